variable "name" { # expect: terraform.duplicate
  type = string
}

resource "aws_s3_bucket" "logs" { # expect: terraform.duplicate
  bucket        = "x"
  force_destroy = true
  force_destroy = false # expect: terraform.duplicate-attribute
}

output "bucket" { # expect: terraform.duplicate
  value = aws_s3_bucket.logs.arn
}

locals {
  a = 2 # expect: terraform.duplicate
}

module "m" {
  source = "./m"
}

module "m" { # expect: terraform.duplicate
  source = "./m"
}
