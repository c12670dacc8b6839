"""iac-code: an Infrastructure-as-Code coding agent served over the Agent Client Protocol."""

__version__ = "0.1.0"
