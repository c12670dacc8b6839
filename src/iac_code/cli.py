"""The `iac-code` command.

    iac-code [PATH] [TUI OPTIONS]   open the terminal app (iac-tui) on PATH
    iac-code acp [--http ADDR]      serve the Agent Client Protocol on stdio (what editors spawn) or HTTP
    iac-code -p PROMPT [OPTIONS]    headless: run one prompt here and print the answer
    iac-code demo [--headless]      play the bundled demo on a copy of the example project
    iac-code validate [PATH ...]    check IaC files offline (exit 0 clean, 1 errors, 2 bad usage)
    iac-code doctor                 say which command sandbox works here, and why another does not
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # config (pydantic) is imported where a command needs it: `iac-code` starts the TUI fast
    from iac_code.config import Settings

from iac_code.core.vocabulary import OUTPUT_FORMATS, PERMISSION_MODES, VALIDATE_FORMATS, VALIDATE_KINDS

SUBCOMMANDS = ("acp", "demo", "validate", "doctor")


def _positive_int(value: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {value!r}")
    return number


def _settings(**overrides: Any) -> Settings:
    from iac_code.config import load_settings

    return load_settings(**{k: v for k, v in overrides.items() if v is not None})


def _acp(args: argparse.Namespace) -> int:
    from iac_code.logs import setup_logging
    from iac_code.tools.sandbox import protect_agent

    protect_agent()
    settings = _settings()
    setup_logging(settings, "acp")
    if args.http:
        from iac_code.acp.http import serve_http

        try:
            signum = serve_http(settings, args.http, os.environ.get("IAC_CODE_HTTP_TOKEN") or None)
        except ValueError as exc:
            print(f"iac-code acp: {exc}", file=sys.stderr)
            return 2
        return _exit_now(128 + signum if signum else 0)
    import asyncio

    from iac_code.acp.stdio import serve_stdio

    signum = asyncio.run(serve_stdio(settings))
    return _exit_now(128 + signum if signum else 0)  # the shell's convention for "ended by a signal"


def _exit_now(status: int) -> int:
    """End the server process at once with `status`, its logs flushed.

    Everything the server owns is already closed (history written, tools and MCP servers
    stopped); the interpreter's own teardown of every imported module can take a second on a
    loaded machine, and PROTOCOL.md gives the whole shutdown 2 s.
    """
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _headless(args: argparse.Namespace) -> int:
    import asyncio

    from iac_code.headless import run_prompt
    from iac_code.logs import setup_logging
    from iac_code.tools.sandbox import protect_agent

    protect_agent()
    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    if not prompt.strip():
        print("iac-code: the prompt is empty", file=sys.stderr)
        return 1
    settings = _settings(model=args.model, permission_mode=args.permission_mode, max_turns=args.max_turns)
    setup_logging(settings, "headless")
    allow = {t.strip() for t in (args.allow or "").split(",") if t.strip()}
    try:
        return asyncio.run(
            run_prompt(
                prompt,
                cwd=os.getcwd(),
                settings=settings,
                output_format=args.output_format,
                allow=allow,
                resume=args.resume,
                continue_last=args.continue_last,
            )
        )
    except KeyboardInterrupt:
        return 1


def _demo(args: argparse.Namespace) -> int:
    from iac_code.demo import run_demo

    return run_demo(headless=args.headless, keep=args.keep)


def _validate(args: argparse.Namespace) -> int:
    from iac_code.iac.command import run

    from iac_code.configdir import default_config_dir  # not iac_code.config: pydantic costs start-up
    from iac_code.iac.engine import config_options

    conf = config_options(default_config_dir())
    return run(args.paths, output_format=args.format, kind=args.kind, ignore=[*conf.ignore, *(args.ignore or [])],
               kubernetes_version=args.kubernetes_version or conf.kubernetes_version,
               terraform_validate=args.terraform_validate)


def _doctor(args: argparse.Namespace) -> int:
    """Print the command sandbox's state (the backend in use, why each other does not work);
    exit 0 when commands are sandboxed, 1 when not."""
    from iac_code.tools.sandbox import describe, detect

    detection = detect(_settings().sandbox)
    print(describe(detection))
    return 0 if detection.backend != "none" else 1


def _tui(argv: list[str]) -> int:
    """Start the terminal app as its own program (the two packages share nothing but ACP)."""
    os.execv(sys.executable, [sys.executable, "-m", "iac_tui", *argv])
    return 0  # not reached


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `iac-code` (subcommands and headless options)."""
    parser = argparse.ArgumentParser(
        prog="iac-code",
        description="An Infrastructure-as-Code coding agent served over the Agent Client Protocol. "
        "Without arguments it opens the terminal app on the current directory.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("-p", "--prompt", help="run one prompt headless in the current directory ('-' reads stdin)")
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text")
    parser.add_argument("--permission-mode", choices=PERMISSION_MODES, help="who may write and run commands (default: nobody)")
    parser.add_argument("--allow", metavar="TOOL,...", help="tools allowed without asking, e.g. edit_file,bash "
                        "(bash-outside-sandbox: commands that ask to run outside the sandbox)")
    parser.add_argument("--model", help="model id (default: IAC_CODE_MODEL or the newest Claude Sonnet)")
    parser.add_argument("--max-turns", type=_positive_int, help="model requests allowed for the prompt (default 50)")
    parser.add_argument("--resume", metavar="SESSION_ID", help="continue a stored session")
    parser.add_argument("--continue", dest="continue_last", action="store_true", help="continue this directory's latest session")
    sub = parser.add_subparsers(dest="command")
    acp = sub.add_parser("acp", help="serve the Agent Client Protocol on stdin/stdout")
    acp.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve ACP's Streamable HTTP transport instead (needs IAC_CODE_HTTP_TOKEN off loopback)",
    )
    acp.set_defaults(run=_acp)
    demo = sub.add_parser("demo", help="play the demo task on a copy of the example project")
    demo.add_argument("--headless", action="store_true", help="play it without the terminal app, approving every step")
    demo.add_argument("--keep", action="store_true", help="keep the temporary project directory afterwards")
    demo.set_defaults(run=_demo)
    val = sub.add_parser("validate", help="check Terraform, CloudFormation, ROS, Kubernetes and YAML files offline")
    val.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    val.add_argument("--format", choices=VALIDATE_FORMATS, default="text")
    val.add_argument("--kind", choices=VALIDATE_KINDS, default="auto")
    val.add_argument("--ignore", action="append", metavar="RULE", help="a rule id to silence (repeatable; 'cfn.W*' for a prefix)")
    val.add_argument("--kubernetes-version", metavar="X.Y", help="Kubernetes version of the schemas (1.25-1.37)")
    val.add_argument("--terraform-validate", action="store_true",
                     help="also run `terraform validate` in initialised directories (starts their provider plugins)")
    val.set_defaults(run=_validate)
    doctor = sub.add_parser("doctor", help="say which command sandbox works here (bubblewrap, Landlock) and why another does not")
    doctor.set_defaults(run=_doctor)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of `iac-code`; returns the exit status. As the process's entry point (`argv`
    None), a command that runs an agent first moves the credentials out of the process's
    environment block (`handoff`)."""
    entry = argv is None
    argv = sys.argv[1:] if argv is None else argv
    headless_or_help = any(a in ("-p", "--prompt", "-h", "--help", "--version") or a.startswith("--prompt=") for a in argv)
    if not headless_or_help and (not argv or argv[0] not in SUBCOMMANDS):
        return _tui(argv)
    args = build_parser().parse_args(argv)
    if args.version:
        from iac_code import __version__

        print(f"iac-code {__version__}")
        return 0
    if entry and (args.prompt is not None or args.command in ("acp", "demo")):
        from iac_code.handoff import hand_off_credentials

        hand_off_credentials()
    if args.prompt is not None:
        return _headless(args)
    return args.run(args)
