variable "name" {
  type = string
}

resource "aws_s3_bucket" "logs" {
  bucket = var.name
}

output "bucket" {
  value = aws_s3_bucket.logs.id
}

locals {
  a = 1
}
