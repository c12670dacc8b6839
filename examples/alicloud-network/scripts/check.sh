#!/bin/sh
# Offline checks of the project, no cloud account needed: every file parses, the network adds up,
# and `terraform fmt -check` passes when Terraform is installed. Arguments go to validate.py
# (e.g. --require-tags to enforce the tagging policy).
set -e
cd "$(dirname "$0")/.."
python3 scripts/validate.py "$@"
if command -v terraform >/dev/null 2>&1; then
  terraform fmt -check -recursive -diff terraform && echo "ok  terraform fmt -check"
else
  echo "skip terraform fmt -check (terraform is not installed)"
fi
