environment    = "production" # expect: terraform.variable-validation
instance_count = "three" # expect: terraform.invalid-value
