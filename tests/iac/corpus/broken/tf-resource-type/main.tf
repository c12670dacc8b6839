resource "alicloud_vswtich" "a" { # expect: terraform.unknown-resource-type
  vpc_id     = "vpc-1"
  cidr_block = "10.0.0.0/24"
}

resource "aws_instanse" "web" { # expect: terraform.unknown-resource-type
  ami = "ami-1"
}

data "google_compute_netwrk" "default" { # expect: terraform.unknown-resource-type
  name = "default"
}

# a provider without bundled data, and one used under another source: not checked
resource "cloudflare_recrod" "x" {
  zone_id = "z"
}

resource "random_pet" "name" {
  length = 2
}
