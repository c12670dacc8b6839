# Arguments against the providers' schemas (aws 6.69, alicloud 1.289 in the bundled data).
resource "alicloud_vpc" "main" {
  vpc_name    = "main"
  cidr_blocks = "10.0.0.0/16" # expect: terraform.resource-unknown-argument
}

# vpc_id and cidr_block of a vswitch are optional since alicloud 1.2xx (IPAM pools): no finding
resource "alicloud_vswitch" "a" {
  vpc_id  = alicloud_vpc.main.id
  zone_id = "cn-hangzhou-h"
}

resource "alicloud_security_group_rule" "ssh" { # expect: terraform.resource-missing-argument
  ip_protocol       = "tcp"
  port_range        = "22/22"
  security_group_id = "sg-123"
  cidr_ipp          = "10.0.0.0/8" # expect: terraform.resource-unknown-argument
}

resource "aws_subnet" "a" {
  vpc_id     = "vpc-1"
  cidr_block = "10.0.1.0/24"
  arn        = "arn:aws:ec2:x" # expect: terraform.resource-unknown-argument
  timeouts {
    create = "10m"
    creat  = "10m" # expect: terraform.resource-unknown-argument
  }
  tag { # expect: terraform.resource-unknown-argument
    key = "Name"
  }
  count = 1
  lifecycle {
    ignore_changes = [tags]
  }
}

resource "aws_security_group" "web" {
  name = "web"
  dynamic "ingress" {
    for_each = [80, 443]
    content {
      from_port = ingress.value
      to_port   = ingress.value
      protocol  = "tcp"
      cidr      = ["0.0.0.0/0"] # expect: terraform.resource-unknown-argument
    }
  }
}

resource "aws_lb_listener" "http" { # expect: terraform.resource-missing-argument
  port = 80
  default_action {
    type = "fixed-response"
  }
}

output "subnet" {
  value = aws_subnet.a[0].arn
}

output "listener" {
  value = aws_lb_listener.http.listener_arn # expect: terraform.resource-unknown-attribute
}

data "aws_ami" "ubuntu" {
  most_recent = true
  owners      = ["099720109477"]
}

output "ami" {
  value = data.aws_ami.ubuntu.image_idd # expect: terraform.resource-unknown-attribute
}

output "vswitch" {
  value = resource.alicloud_vswitch.a.zone # expect: terraform.resource-unknown-attribute
}
