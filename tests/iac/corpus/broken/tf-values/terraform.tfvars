environment = "stage" # expect: terraform.variable-validation
zones       = "cn-hangzhou-h" # expect: terraform.invalid-value
