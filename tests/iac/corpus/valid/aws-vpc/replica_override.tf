resource "aws_s3_bucket" "replica" {
  force_destroy = true
}
