"""`python -m iac_code` is the `iac-code` command."""

from iac_code.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
