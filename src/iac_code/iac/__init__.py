"""IaC knowledge: offline validation of Terraform/OpenTofu, CloudFormation, Alibaba Cloud ROS,
Kubernetes and YAML files (`engine.validate`, `engine.new_problems`).

This package imports only `iac_code.core`, the standard library and its libraries (python-hcl2,
PyYAML, cfn-lint, kubernetes-validate, pathspec), never the agent, the tools or the ACP adapter.
"""
