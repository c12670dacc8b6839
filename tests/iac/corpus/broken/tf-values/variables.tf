variable "environment" {
  type = string

  validation {
    condition     = contains(["dev", "staging", "prod"], var.environment)
    error_message = "environment must be dev, staging or prod."
  }
}

variable "zones" {
  type    = list(string)
  default = ["cn-hangzhou-h", "cn-hangzhou-i"]
}

variable "instance_count" {
  type    = number
  default = "two" # expect: terraform.invalid-value
}

variable "vswitches" {
  type = map(object({
    zone_id    = string
    cidr_block = string
  }))
  default = {
    app-a = {
      zone_id    = "cn-hangzhou-h"
      cidr_block = "10.0.1.0/24"
    }
    app-b = { # expect: terraform.invalid-value
      zone_id = "cn-hangzhou-i"
    }
  }
}
