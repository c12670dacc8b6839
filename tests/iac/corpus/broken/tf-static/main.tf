terraform {
  required_version = ">= 1.5"

  backend "oss" {
    bucket = var.state_bucket # expect: terraform.static-only
  }
}

variable "state_bucket" {
  type = string
}

variable "count" { # expect: terraform.invalid-name
  type = number
}

resource "aws_vpc" "main.vpc" { # expect: terraform.invalid-name
  cidr_block = "10.0.0.0/16"
}

resource "aws_security_group" "web" {
  name       = "web"
  depends_on = ["aws_vpc.main"] # expect: terraform.invalid-reference

  ingress {
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = "0.0.0.0/0" # expect: terraform.list-argument
  }

  tags { # expect: terraform.block-vs-argument
    Name = "web"
  }
}

module "net" {
  source  = "./net"
  version = "1.0.0" # expect: terraform.module-version-local
}
