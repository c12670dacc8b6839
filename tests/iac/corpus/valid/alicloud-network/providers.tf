provider "alicloud" {
  region = var.region
}
