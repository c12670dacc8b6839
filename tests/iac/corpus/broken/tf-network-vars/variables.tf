variable "vpc_cidr" {
  type    = string
  default = "10.10.0.0/16"
}

variable "vswitches" {
  type = map(object({
    zone_id    = string
    cidr_block = string
  }))
  default = {
    app-a = {
      zone_id    = "cn-hangzhou-h"
      cidr_block = "10.10.1.0/24"
    }
    app-b = {
      zone_id    = "cn-hangzhou-i"
      cidr_block = "10.20.2.0/24" # expect: terraform.cidr-outside-vpc
    }
  }
}
