variable "azs" {
  type    = list(string)
  default = ["eu-west-1a", "eu-west-1b"]
}

resource "aws_vpc" "this" {
  cidr_block = "10.30.0.0/16"
}

resource "aws_subnet" "private" {
  count             = length(var.azs)
  vpc_id            = aws_vpc.this.id
  cidr_block        = cidrsubnet(aws_vpc.this.cidr_block, 8, 0) # expect: terraform.cidr-overlap
  availability_zone = var.azs[count.index]
}

resource "aws_subnet" "public" {
  count             = length(var.azs)
  vpc_id            = aws_vpc.this.id
  cidr_block        = cidrsubnet(aws_vpc.this.cidr_block, 8, count.index + 300) # expect: terraform.invalid-cidr
  availability_zone = var.azs[count.index]
}
