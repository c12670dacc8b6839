# The module pins aws 4.x: the bundled aws 6.x data cannot speak for it (nothing is reported
# about aws resources), while random, unpinned, is checked.
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 4.0"
    }
    google = {
      source = "example/google" # another provider under a bundled name: not checked
    }
  }
}

resource "aws_s3_bucket" "logs" {
  bucket = "logs"
  acl    = "private" # removed in aws 5: fine with 4.x
}

resource "google_thing" "x" {
  name = "x"
}

resource "random_password" "db" { # expect: terraform.resource-missing-argument
  lenght = 16 # expect: terraform.resource-unknown-argument
}
