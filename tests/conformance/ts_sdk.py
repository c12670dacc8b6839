"""The official TypeScript ACP SDK for the conformance test, installed once with npm into a cache.

    python tests/conformance/ts_sdk.py     # install it (what .ci/run does); prints its directory

The SDK goes into `<cache>/iac-code/acp-ts-sdk-<version>` (`$XDG_CACHE_HOME` or `~/.cache`);
`IAC_CODE_ACP_TS_SDK` names another directory holding its `node_modules` instead. The install
runs under a file lock, in a scratch directory renamed into place when npm has succeeded, so
parallel test workers and an interrupted install never see half a package.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

VERSION = "2.4.0"
PACKAGE = f"@agentclientprotocol/sdk@{VERSION}"


class Unavailable(Exception):
    """The SDK cannot be had here; the message says why (no node/npm, npm's own error)."""


def cache_dir() -> Path:
    """Where the SDK is (or will be) installed."""
    if os.environ.get("IAC_CODE_ACP_TS_SDK"):
        return Path(os.environ["IAC_CODE_ACP_TS_SDK"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "iac-code" / f"acp-ts-sdk-{VERSION}"


def installed(directory: Path) -> bool:
    return (directory / "node_modules" / "@agentclientprotocol" / "sdk" / "package.json").is_file()


def install() -> Path:
    """The directory whose node_modules holds the SDK, installed there first if need be.

    Raises Unavailable (with npm's last words) when node or npm is missing or npm fails.
    """
    target = cache_dir()
    if installed(target):
        return target
    if os.environ.get("IAC_CODE_ACP_TS_SDK"):
        raise Unavailable(f"IAC_CODE_ACP_TS_SDK={target} holds no node_modules/@agentclientprotocol/sdk")
    for program in ("node", "npm"):
        if shutil.which(program) is None:
            raise Unavailable(f"{program} is not on PATH: the TypeScript ACP SDK runs on Node.js and is installed with npm")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing: wait for it
        if installed(target):
            return target
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        scratch.chmod(0o755)
        try:
            (scratch / "package.json").write_text('{"name": "acp-ts-conformance", "private": true}\n')
            done = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(scratch), PACKAGE],
                capture_output=True, text=True, timeout=600, check=False,
            )
            if done.returncode != 0 or not installed(scratch):
                raise Unavailable(f"npm could not install {PACKAGE} into {target}: {(done.stderr or done.stdout).strip()[-500:]}")
            shutil.rmtree(target, ignore_errors=True)  # a half-installed directory of an older layout
            scratch.rename(target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return target


if __name__ == "__main__":
    try:
        print(install())
    except Unavailable as problem:
        sys.exit(f"ts_sdk: {problem}")
