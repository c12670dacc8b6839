variable "ports" {
  type = list(number)
}

variable "names" {
  type = set(string)
}

resource "alicloud_security_group" "sg" {
  for_each = var.names
  name     = each.key
}
