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
