resource "alicloud_vpc" "main" {
  vpc_name   = "main"
  cidr_block = "10.0.0.0/16"

  tags = {
    Env = "dev"
  } # expect: hcl.syntax
