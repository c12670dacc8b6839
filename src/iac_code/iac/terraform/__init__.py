"""Terraform/OpenTofu: HCL parsing with positions, module declarations, references, values
and the checks over them (`.tf`, `.tf.json`, `.tfvars`, `.tfvars.json`)."""
