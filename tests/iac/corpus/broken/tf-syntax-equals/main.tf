resource "alicloud_vpc" "main" {
  vpc_name "main" # expect: hcl.syntax
  cidr_block = "10.0.0.0/16"
}
