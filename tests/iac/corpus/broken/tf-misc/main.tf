variable "db_password" {
  type      = string
  sensitive = true
}

variable "region" {
  type    = string
  default = "cn-${var.zone}" # expect: terraform.invalid-default
}

variable "zone" {
  type    = string
  default = "hangzhou"
}

resource "alicloud_instance" "web" {
  instance_name = "web"
  password      = var.db_password
  description   = alicloud_instance.web.id # expect: terraform.self-reference

  provisioner "local-exec" {
    command = "echo ${self.id}"
  }
}

output "password" {
  value = var.db_password # expect: terraform.sensitive-output
}

output "password_ok" {
  value     = var.db_password
  sensitive = true
}

resource "alicloud_vpc" "counted" {
  vpc_name   = "vpc-${count.index}" # expect: terraform.count-outside-count
  cidr_block = "10.0.0.0/16"
}

variable "labelled" "twice" { # expect: terraform.block-labels
  type = string
}
