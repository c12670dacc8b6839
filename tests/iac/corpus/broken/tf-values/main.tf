resource "alicloud_vpc" "main" {
  vpc_name   = "main-${var.environment}"
  cidr_block = "10.0.0.0/16"
}

resource "alicloud_security_group" "zone" {
  for_each = ["a", "b"] # expect: terraform.for-each-list
  vpc_id   = alicloud_vpc.main.id
  name     = each.value
}

module "net" {
  source = "./modules/net"
  ports  = "80,443" # expect: terraform.invalid-value
  names  = ["web", "api"]
}
