"""AWS CloudFormation templates, checked by cfn-lint through its Python API."""
