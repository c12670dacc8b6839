"""The protocol adapter: the only package importing the `acp` SDK (imported first, cheaply: sdk_import.py)."""

from iac_code.acp.sdk_import import import_sdk

import_sdk()
