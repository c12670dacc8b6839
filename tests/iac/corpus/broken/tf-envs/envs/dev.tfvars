environment = "dev"
instance_cnt = 2 # expect: terraform.undeclared-tfvar
