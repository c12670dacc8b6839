locals {
  name_prefix = "${var.project}-${var.environment}"
}

module "network" {
  source = "./modules/network"

  name_prefix = local.name_prefix
  vpc_cidr    = var.vpc_cidr
  vswitches   = var.vswitches
}

resource "alicloud_security_group" "web" {
  security_group_name = "${local.name_prefix}-web"
  description         = "Web tier: HTTP(S) from anywhere, SSH from the admin network."
  vpc_id              = module.network.vpc_id
}

resource "alicloud_security_group_rule" "http" {
  type              = "ingress"
  ip_protocol       = "tcp"
  port_range        = "80/80"
  cidr_ip           = "0.0.0.0/0"
  security_group_id = alicloud_security_group.web.id
  description       = "HTTP"
}

resource "alicloud_security_group_rule" "https" {
  type              = "ingress"
  ip_protocol       = "tcp"
  port_range        = "443/443"
  cidr_ip           = "0.0.0.0/0"
  security_group_id = alicloud_security_group.web.id
  description       = "HTTPS"
}

resource "alicloud_security_group_rule" "ssh" {
  type              = "ingress"
  ip_protocol       = "tcp"
  port_range        = "22/22"
  cidr_ip           = var.admin_cidr
  security_group_id = alicloud_security_group.web.id
  description       = "SSH from the admin network"
}

resource "alicloud_security_group_rule" "internal" {
  count             = length(var.internal_ports)
  type              = "ingress"
  ip_protocol       = "tcp"
  port_range        = "${var.internal_ports[count.index]}/${var.internal_ports[count.index]}"
  cidr_ip           = var.vpc_cidr
  security_group_id = alicloud_security_group.web.id
  description       = "internal ${count.index}"
}

data "alicloud_zones" "available" {
  available_resource_creation = "VSwitch"
}

resource "alicloud_nat_gateway" "main" {
  vpc_id           = module.network.vpc_id
  nat_gateway_name = "${local.name_prefix}-nat"
  payment_type     = "PayAsYouGo"
  vswitch_id       = values(module.network.vswitch_ids)[0]
  nat_type         = "Enhanced"
}

resource "alicloud_eip_address" "nat" {
  address_name = "${local.name_prefix}-nat"
  isp          = "BGP"
}

resource "alicloud_eip_association" "nat" {
  allocation_id = alicloud_eip_address.nat.id
  instance_id   = alicloud_nat_gateway.main.id
}

resource "alicloud_snat_entry" "app" {
  for_each          = module.network.vswitch_ids
  snat_table_id     = alicloud_nat_gateway.main.snat_table_ids
  source_vswitch_id = each.value
  snat_ip           = alicloud_eip_address.nat.ip_address
  depends_on        = [alicloud_eip_association.nat]
}
