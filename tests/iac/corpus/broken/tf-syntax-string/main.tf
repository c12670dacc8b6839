resource "aws_s3_bucket" "a" {
  bucket = "a # expect: hcl.syntax
  acl    = "private"
}
