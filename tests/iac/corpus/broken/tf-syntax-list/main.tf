resource "aws_security_group_rule" "a" {
  type        = "ingress"
  cidr_blocks = ["10.0.0.0/8", "192.168.0.0/16" # expect: hcl.syntax
  from_port   = 443
}
