module "network" { # expect: terraform.module-missing-variable
  source = "./modules/network"

  vpc_cidr  = "10.0.0.0/16"
  vpc_namee = "main" # expect: terraform.module-unknown-argument
}

module "gone" {
  source = "./modules/missing" # expect: terraform.module-source-missing
}

output "vpc" {
  value = module.network.vpc_idd # expect: terraform.undeclared-module-output
}
