"""Post-edit feedback: after `write_file`/`edit_file` changes an IaC file, the problems the edit
introduced are appended to the call's result (for the model) and content (for the person).

The engine (`iac.engine.new_problems`) validates the file's module (a Terraform file's
directory) or template with the text before and after the edit and keeps what is new. Rules
silenced by `validate.ignore` stay silent. A check that fails or takes longer than
`TIMEOUT_S` adds nothing: feedback never fails an edit that succeeded.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from iac_code.core.events import TextContent
from iac_code.iac import report
from iac_code.tools.base import ToolContext, ToolResult
from iac_code.tools.files import in_thread

log = logging.getLogger(__name__)
TIMEOUT_S = 20.0
MAX_SHOWN = 30


async def with_feedback(result: ToolResult, path: Path, before: str | None, after: str, ctx: ToolContext) -> ToolResult:
    """`result` of a successful edit of `path` (`before` None: the file is new), with the new
    problems appended to `output` and as a text block after the diff in `content`."""
    # The engine (Lark, python-hcl2) is imported by the first edit, not at the agent's start-up.
    from iac_code.iac.engine import config_options, is_iac_path, new_problems

    if result.is_error or not is_iac_path(path):
        return result
    options = config_options(ctx.config_dir)
    if not options.after_edits:
        return result
    try:
        diags = await asyncio.wait_for(in_thread(lambda stop: new_problems(path, before, after, options)), TIMEOUT_S)
    except TimeoutError:
        log.warning("post-edit validation of %s took longer than %s s; skipped", path, TIMEOUT_S)
        return result
    except Exception:
        log.exception("post-edit validation of %s failed", path)
        return result
    if not diags:
        return result
    errors = sum(d.severity == "error" for d in diags)
    head = (f"Validation: this edit introduced {report.summary(diags)}"
            + (" - fix them before going on:" if errors else ":"))
    shown = diags[:MAX_SHOWN]
    lines = report.text(shown, ctx.cwd).rstrip("\n")
    if len(diags) > len(shown):
        lines += f"\n[... and {len(diags) - len(shown)} more; run the validate tool to see all]"
    block = f"{head}\n{lines}"
    result.output = f"{result.output}\n\n{block}"
    result.content = [*result.client_content(), TextContent(block)]
    return result
