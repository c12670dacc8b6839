vpc_cidr = "10.10.0.0/16"
regoin   = "cn-hangzhou" # expect: terraform.undeclared-tfvar
