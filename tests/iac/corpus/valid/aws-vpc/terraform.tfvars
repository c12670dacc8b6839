environment = "dev"
azs         = ["eu-west-1a", "eu-west-1b"]
