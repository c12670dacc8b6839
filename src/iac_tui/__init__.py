"""iac-tui: a Textual terminal client for ACP agents (iac-code by default).

The app spawns the agent as a separate process and talks to it only over the Agent Client
Protocol; it never imports the agent's code.
"""

__version__ = "0.1.0"
