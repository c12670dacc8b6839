variable "name_prefix" {
  description = "Prefix for resource names."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC."
  type        = string
}

variable "vswitches" {
  description = "VSwitches to create, keyed by name."
  type = map(object({
    zone_id    = string
    cidr_block = string
  }))
}
