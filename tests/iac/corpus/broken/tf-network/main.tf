resource "alicloud_vpc" "main" {
  vpc_name   = "main"
  cidr_block = "10.10.0.0/16"
}

resource "alicloud_vswitch" "a" {
  vpc_id     = alicloud_vpc.main.id
  cidr_block = "10.10.1.0/24"
  zone_id    = "cn-hangzhou-h"
}

resource "alicloud_vswitch" "b" {
  vpc_id     = alicloud_vpc.main.id
  cidr_block = "10.10.1.128/25" # expect: terraform.cidr-overlap
  zone_id    = "cn-hangzhou-i"
}

resource "alicloud_vswitch" "c" {
  vpc_id     = alicloud_vpc.main.id
  cidr_block = "10.11.3.0/24" # expect: terraform.cidr-outside-vpc
  zone_id    = "cn-hangzhou-j"
}

resource "alicloud_security_group_rule" "ssh" {
  type              = "ingress"
  ip_protocol       = "tcp"
  port_range        = "22/22"
  cidr_ip           = "10.10.300.0/24" # expect: terraform.invalid-cidr
  security_group_id = "sg-1"
}

resource "alicloud_vswitch" "d" {
  vpc_id     = alicloud_vpc.main.id
  cidr_block = "10.10.4.1/24" # expect: terraform.invalid-cidr
  zone_id    = "cn-hangzhou-j"
}
