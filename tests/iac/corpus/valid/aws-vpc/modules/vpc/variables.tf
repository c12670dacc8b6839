variable "name" {
  type = string
}

variable "cidr_block" {
  type = string
}

variable "azs" {
  type = list(string)
}

variable "public_cidrs" {
  type = list(string)
}

variable "private_cidrs" {
  type = list(string)
}

variable "enable_nat" {
  type    = bool
  default = true
}

variable "tags" {
  type    = map(string)
  default = {}
}
