"""The `iac-code` command.

    iac-code [PATH]          open the terminal app (iac-tui) on PATH
    iac-code acp             serve ACP on stdio (what editors spawn)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys


def _acp(args: argparse.Namespace) -> int:
    from iac_code.config import load_settings
    from iac_code.logs import setup_logging

    settings = load_settings()
    setup_logging(settings, "acp")
    from iac_code.acp.server import serve_stdio

    try:
        asyncio.run(serve_stdio(settings))
    except KeyboardInterrupt:
        return 130
    return 0


def _tui(argv: list[str]) -> int:
    """Start the terminal app as its own program (the two packages share nothing but ACP)."""
    os.execv(sys.executable, [sys.executable, "-m", "iac_tui", *argv])
    return 0  # not reached


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `iac-code`."""
    parser = argparse.ArgumentParser(
        prog="iac-code",
        description="An Infrastructure-as-Code coding agent served over the Agent Client Protocol.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    acp = sub.add_parser("acp", help="serve the Agent Client Protocol on stdin/stdout")
    acp.set_defaults(run=_acp)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of `iac-code`; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or (argv[0] not in ("acp", "--version", "-h", "--help") and not argv[0].startswith("-")):
        return _tui(argv)
    args = build_parser().parse_args(argv)
    if args.version:
        from iac_code import __version__

        print(f"iac-code {__version__}")
        return 0
    return args.run(args)
