resource "alicloud_vpc" "this" {
  vpc_name   = "${var.name_prefix}-vpc"
  cidr_block = var.vpc_cidr
}

resource "alicloud_vswitch" "this" {
  for_each = var.vswitches

  vswitch_name = "${var.name_prefix}-${each.key}"
  vpc_id       = alicloud_vpc.this.id
  zone_id      = each.value.zone_id
  cidr_block   = each.value.cidr_block
}
