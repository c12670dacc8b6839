resource "alicloud_vpc" "main" {
  vpc_name    = "main"
  cidr_blocks = "10.0.0.0/16" # expect: terraform.resource-unknown-argument
}

resource "alicloud_vswitch" "a" { # expect: terraform.resource-missing-argument
  vpc_id  = alicloud_vpc.main.id
  zone_id = "cn-hangzhou-h"
}

resource "alicloud_security_group_rule" "ssh" {
  type              = "ingress"
  ip_protocol       = "tcp"
  port_range        = "22/22"
  security_group_id = "sg-123"
  cidr_ipp          = "10.0.0.0/8" # expect: terraform.resource-unknown-argument
}
