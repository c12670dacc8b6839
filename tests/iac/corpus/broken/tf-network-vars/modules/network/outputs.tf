output "vpc_id" {
  description = "ID of the VPC."
  value       = alicloud_vpc.this.id
}

output "vswitch_ids" {
  description = "IDs of the VSwitches, keyed by name."
  value       = { for name, vsw in alicloud_vswitch.this : name => vsw.id }
}
