variable "vpc_cidr" {
  type = string
}

variable "zones" {
  type = list(string)
}

variable "vpc_name" {
  type    = string
  default = "main"
}

resource "alicloud_vpc" "this" {
  vpc_name   = var.vpc_name
  cidr_block = var.vpc_cidr
}

output "vpc_id" {
  value = alicloud_vpc.this.id
}
