module "network" {
  source    = "./modules/network"
  name_prefix = "shop"
  vpc_cidr  = var.vpc_cidr
  vswitches = var.vswitches
}
