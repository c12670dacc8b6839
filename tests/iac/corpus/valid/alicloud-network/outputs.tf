output "vpc_id" {
  description = "ID of the VPC."
  value       = module.network.vpc_id
}

output "vswitch_ids" {
  description = "IDs of the VSwitches, keyed by name."
  value       = module.network.vswitch_ids
}

output "security_group_id" {
  description = "ID of the web security group."
  value       = alicloud_security_group.web.id
}
