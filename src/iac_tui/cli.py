"""`iac-tui [PATH]`: open the terminal app on PATH (default: the current directory).

    iac-tui [PATH] [--agent "CMD ARGS"] [--model ID] [--mode ID] [--resume SESSION_ID | --continue] [--prompt TEXT]

`iac-code` with no arguments runs this too (as `python -m iac_tui`). The app draws its first
screen, then starts the agent (`agent_control.AgentController.start`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from iac_tui import __version__

FRAMES_PER_SECOND = 120
"""Textual's frame cap for this app (`TEXTUAL_FPS`, Textual's default 60): the most screen updates
a second, and so the grid on which a key's echo is drawn. After an update longer than one
interval, Textual 8.2's frame timer waits one to two intervals for the next (its skip rounds up:
`tests/tui/test_cli.py` drives it on a clock of its own); at 60 a key typed after such an update
(each one that lays out a streamed answer) waited up to 33 ms for its echo. `bench/tui_answer.py`
(5,000-line answer, keys typed while it streams, 3 runs each alternated): echo p95 35-43 ms at
60, 17-25 at 120 (the app's CPU +4%), 14-19 at 240 (+8%)."""


def set_frame_rate() -> None:
    """Set Textual's frame cap to `FRAMES_PER_SECOND`, unless the user set `TEXTUAL_FPS` or Textual
    is imported already (it reads the variable once, when `textual.constants` is imported). The
    variable is set only for that import: the agent and the terminals it starts inherit the
    environment as the user gave it."""
    if "TEXTUAL_FPS" in os.environ or "textual.constants" in sys.modules:
        return
    os.environ["TEXTUAL_FPS"] = str(FRAMES_PER_SECOND)
    try:
        import textual.constants  # noqa: F401
    finally:
        del os.environ["TEXTUAL_FPS"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `iac-tui`."""
    parser = argparse.ArgumentParser(prog="iac-tui", description="A terminal client for ACP agents (iac-code by default).")
    parser.add_argument("path", nargs="?", default=".", help="the project directory (default: the current directory)")
    parser.add_argument("--agent", metavar='"CMD ARGS"', help="run this ACP agent instead of `iac-code acp`")
    parser.add_argument("--model", help="model for the session (a value of the agent's model option)")
    parser.add_argument("--mode", help="mode for the session (e.g. default, accept_edits, plan)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--resume", metavar="SESSION_ID", help="load this session")
    group.add_argument("--continue", dest="continue_last", action="store_true", help="load the project's most recent session")
    parser.add_argument("--prompt", metavar="TEXT", help="type TEXT into the prompt box (press enter to send it)")
    parser.add_argument("--version", action="version", version=f"iac-tui {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of `iac-tui`; returns the exit status. As the process's entry point (`argv`
    None), it first moves the credentials out of the process's environment block (`handoff`)."""
    if argv is None:
        from iac_tui.handoff import hand_off_credentials

        hand_off_credentials()
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    project = Path(args.path).expanduser()
    if not project.is_dir():
        print(f"iac-tui: not a directory: {args.path}", file=sys.stderr)
        return 2
    set_frame_rate()
    from iac_tui.launch import default_agent_command, parse_agent_command

    agent = default_agent_command()
    if args.agent:
        try:
            agent = parse_agent_command(args.agent)
        except ValueError as exc:
            print(f"iac-tui: --agent: {exc}", file=sys.stderr)
            return 2
    from iac_tui.app import IacTui
    from iac_tui.config import history_path

    app = IacTui(
        project,
        agent=agent,
        model=args.model,
        mode=args.mode,
        resume=args.resume,
        continue_last=args.continue_last,
        history_file=history_path(),
        initial_prompt=args.prompt,
    )
    app.run()
    return app.return_code or 0
