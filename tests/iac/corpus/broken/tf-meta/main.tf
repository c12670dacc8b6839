variable "names" {
  type    = set(strng) # expect: terraform.invalid-type
  default = []
}

resource "aws_instance" "web" {
  count         = 2
  for_each      = var.names # expect: terraform.count-and-for-each
  ami           = "ami-123"
  instance_type = "t3.micro"
}

resource "aws_eip" "ip" {
  instance = aws_instance.web.id # expect: terraform.missing-instance-key
  domain   = "vpc"
}

resource "aws_eip" "other" {
  domain = "vpc"
  tags = {
    Name = "${each.key}-ip" # expect: terraform.each-outside-for-each
  }
}

output "first" {
  value = aws_eip.other[0].public_ip # expect: terraform.unexpected-instance-key
}

output "upper" {
  value = uper("x") # expect: terraform.unknown-function
}

resource "aws_s3_bucket" "b" {
  provider = aws.west # expect: terraform.undeclared-provider
  bucket   = "b"
}

ressource "aws_s3_bucket" "c" { # expect: terraform.unknown-block
  bucket = "c"
}

output "nothing" { # expect: terraform.missing-argument
  description = "forgot the value"
}

variable "legacy" {
  type = "string" # expect: terraform.invalid-type
}
