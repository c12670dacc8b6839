variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "environment" {
  type        = string
  description = "Environment name."

  validation {
    condition     = can(regex("^(dev|staging|prod)$", var.environment))
    error_message = "The environment must be dev, staging or prod."
  }
}

variable "vpc_cidr" {
  type    = string
  default = "10.20.0.0/16"
}

variable "azs" {
  type    = list(string)
  default = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
}

variable "extra_tags" {
  type = map(string)
  default = {
    CostCenter = "1234"
  }
}

variable "allowed_ports" {
  type = list(object({
    port        = number
    description = optional(string, "")
    cidrs       = optional(list(string), ["0.0.0.0/0"])
  }))
  default = [
    { port = 443, description = "HTTPS" },
    { port = 80 },
  ]
}
