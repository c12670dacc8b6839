"""The ground floor: the vocabulary every other package of `iac_code` speaks.

`conversation` (messages and content blocks, Anthropic-shaped), `events` (what the agent core
reports while a prompt turn runs) and `provider` (the `Provider` protocol and its stream events).
Nothing here imports any other part of `iac_code`.
"""
