variable "region" {
  type = string
}

locals {
  prefix = "shop-${var.env}" # expect: terraform.undeclared-variable
}

resource "alicloud_vpc" "main" {
  vpc_name   = local.prefx # expect: terraform.undeclared-local
  cidr_block = "10.0.0.0/16"
}

resource "alicloud_vswitch" "a" {
  vpc_id     = alicloud_vpc.mian.id # expect: terraform.undeclared-resource
  cidr_block = "10.0.1.0/24"
  zone_id    = data.alicloud_zones.default.zones[0].id # expect: terraform.undeclared-data
}

output "net" {
  value = module.network.id # expect: terraform.undeclared-module
}

resource "alicloud_security_group" "sg" {
  vpc_id     = alicloud_vpc.main.id
  depends_on = [alicloud_vswitch.b] # expect: terraform.depends-on-missing
}
