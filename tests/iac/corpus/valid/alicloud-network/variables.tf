variable "region" {
  description = "Alibaba Cloud region to deploy into."
  type        = string
  default     = "cn-hangzhou"
}

variable "project" {
  description = "Short project name, used as a prefix for resource names."
  type        = string
  default     = "shop"
}

variable "environment" {
  description = "Deployment environment (dev, staging or prod)."
  type        = string
  default     = "dev"

  validation {
    condition     = contains(["dev", "staging", "prod"], var.environment)
    error_message = "environment must be one of dev, staging or prod."
  }
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC."
  type        = string
  default     = "10.10.0.0/16"
}

variable "vswitches" {
  description = "VSwitches to create, keyed by name: the zone and CIDR block of each."
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
      cidr_block = "10.10.2.0/24"
    }
  }
}

variable "admin_cidr" {
  description = "CIDR allowed to reach instances over SSH."
  type        = string
  default     = "203.0.113.0/24"
}

variable "internal_ports" {
  description = "Ports open inside the VPC."
  type        = list(number)
  default     = [8080, 9090]
}
