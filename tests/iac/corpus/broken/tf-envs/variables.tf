variable "environment" {
  type = string

  validation {
    condition     = contains(["dev", "prod"], var.environment)
    error_message = "environment must be dev or prod."
  }
}

variable "instance_count" {
  type    = number
  default = 1
}

output "environment" {
  value = var.environment
}
