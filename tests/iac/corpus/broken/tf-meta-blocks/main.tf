variable "ports" {
  type    = list(number)
  default = [80]

  validation { # expect: terraform.missing-argument
    condition = length(var.ports) > 0
  }
}

resource "aws_security_group" "web" {
  name = "web"

  dynamic "ingress" { # expect: terraform.missing-argument
    for_each = var.ports
  }

  lifecycle {
    create_before_destroy = true
    prevent_destory       = true # expect: terraform.unknown-argument
  }
}

import {
  to = aws_security_group.api # expect: terraform.undeclared-resource
  id = "sg-123"
}
