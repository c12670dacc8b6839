resource "alicloud_vswtich" "a" { # expect: terraform.unknown-resource-type
  vpc_id     = "vpc-1"
  cidr_block = "10.0.0.0/24"
}
