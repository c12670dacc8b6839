resource "aws_s3_bucket" "a" {
  bucket = "a"

  versioning {
    enabled = true
  # expect: hcl.syntax

resource "aws_s3_bucket" "b" {
  bucket = "b"
}
