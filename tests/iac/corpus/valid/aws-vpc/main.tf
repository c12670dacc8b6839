locals {
  name = "acme-${var.environment}"
  tags = merge(var.extra_tags, {
    Environment = var.environment
    Workspace   = terraform.workspace
  })
  public_cidrs  = [for i, az in var.azs : cidrsubnet(var.vpc_cidr, 8, i)]
  private_cidrs = [for i, az in var.azs : cidrsubnet(var.vpc_cidr, 8, i + 10)]
}

data "aws_caller_identity" "current" {}

data "aws_ami" "al2023" {
  most_recent = true
  owners      = ["amazon"]

  filter {
    name   = "name"
    values = ["al2023-ami-*-x86_64"]
  }
}

module "vpc" {
  source = "./modules/vpc"

  name          = local.name
  cidr_block    = var.vpc_cidr
  azs           = var.azs
  public_cidrs  = local.public_cidrs
  private_cidrs = local.private_cidrs
  tags          = local.tags

  providers = {
    aws = aws
  }
}

resource "aws_security_group" "web" {
  name_prefix = "${local.name}-web-"
  vpc_id      = module.vpc.vpc_id

  dynamic "ingress" {
    for_each = var.allowed_ports
    content {
      from_port   = ingress.value.port
      to_port     = ingress.value.port
      protocol    = "tcp"
      cidr_blocks = ingress.value.cidrs
      description = ingress.value.description
    }
  }

  dynamic "egress" {
    for_each = [0]
    iterator = rule
    content {
      from_port   = rule.value
      to_port     = 0
      protocol    = "-1"
      cidr_blocks = ["0.0.0.0/0"]
    }
  }

  lifecycle {
    create_before_destroy = true
    ignore_changes        = [tags["LastScan"], description]
  }
}

resource "aws_instance" "web" {
  count = length(module.vpc.public_subnet_ids)

  ami                    = data.aws_ami.al2023.id
  instance_type          = "t3.micro"
  subnet_id              = module.vpc.public_subnet_ids[count.index]
  vpc_security_group_ids = [aws_security_group.web.id]
  user_data = templatefile("${path.module}/templates/user_data.sh.tftpl", {
    environment = var.environment
  })

  tags = {
    Name = "${local.name}-web-${count.index}"
  }

  provisioner "local-exec" {
    command = "echo ${self.private_ip} >> hosts.txt"
  }
}

resource "aws_s3_bucket" "logs" {
  for_each = toset(["access", "audit"])

  bucket = "${local.name}-${each.key}-${data.aws_caller_identity.current.account_id}"
}

resource "aws_s3_bucket" "replica" {
  provider = aws.replica
  bucket   = "${local.name}-replica"
}

resource "aws_iam_policy" "read_logs" {
  name = "${local.name}-read-logs"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["s3:GetObject"]
      Resource = [for b in aws_s3_bucket.logs : "${b.arn}/*"]
    }]
  })
}

moved {
  from = aws_s3_bucket.old_logs
  to   = aws_s3_bucket.logs["access"]
}

check "web_reachable" {
  data "http" "web" {
    url = "https://${aws_instance.web[0].public_dns}"
  }

  assert {
    condition     = data.http.web.status_code == 200
    error_message = "The web server did not answer 200."
  }
}
