"""`validate`: the offline IaC validator (`iac_code.iac.engine`) as a read-only tool.

It reads files only (plus `terraform fmt -check` when Terraform is on PATH; never `terraform
validate`, which starts provider plugins), so it is in the `read` category: allowed without
asking inside the working directory. Rules silenced by `validate.ignore` in the config file stay
silent here. The model gets a summary (files checked; files not checked and why), then one
line per finding (`file:line:col severity rule message`, paths relative to the working
directory), at most `MAX_SHOWN`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from iac_code.core.vocabulary import ValidateKind
from iac_code.iac import report
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult
from iac_code.tools.files import PathArg, in_thread, shown

MAX_SHOWN = 200


class ValidateInput(ToolInput):
    paths: list[PathArg] = Field(
        default_factory=list,
        description="Files or directories to check, relative to the working directory or absolute. Defaults to the working directory.",
    )
    kind: ValidateKind = Field(
        default="auto", description="Restrict to one kind of file; auto detects each file's kind from its content."
    )


class ValidateTool(Tool[ValidateInput]):
    """Validate IaC files offline and report diagnostics."""

    name = "validate"
    description = (
        "Check Infrastructure-as-Code files offline, without cloud credentials: Terraform/OpenTofu "
        "(.tf, .tfvars, .tf.json: syntax, undeclared var/local/module/data/resource references, module "
        "outputs and arguments, duplicates, count/for_each, CIDRs), CloudFormation (cfn-lint), Alibaba "
        "Cloud ROS templates, Kubernetes manifests (schemas) and any YAML (syntax, duplicate keys). "
        "Directories are searched recursively, respecting .gitignore. Returns one line per problem: "
        "file:line:col severity rule message. Run it after changes and fix every error it reports."
    )
    input_model = ValidateInput
    kind = "read"
    category = "read"

    def title(self, params: ValidateInput | None) -> str:
        if params is None or not params.paths:
            return "Validate"
        return "Validate " + ", ".join(params.paths[:3]) + (" …" if len(params.paths) > 3 else "")

    def paths(self, params: ValidateInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(p) for p in params.paths or ["."]]

    async def run(self, params: ValidateInput, ctx: ToolContext) -> ToolResult:
        from iac_code.iac.engine import check, config_options  # on first use, not at start-up

        targets = self.paths(params, ctx)
        missing = [shown(p, ctx.cwd) for p in targets if not p.exists()]
        if missing:
            return ToolResult.error(f"Not found: {', '.join(missing)}.")
        options = config_options(ctx.config_dir)
        options.kind = params.kind

        outcome = await in_thread(lambda stop: check(targets, options))
        diags, skipped = outcome.diagnostics, outcome.skipped
        names = ", ".join(shown(p, ctx.cwd) for p in targets)
        head = f"Validated {names}: {report.summary(diags, skipped, len(outcome.checked))}."
        if skipped:
            head += f"\n{report.not_checked(skipped, ctx.cwd)}."
        if not diags:
            return ToolResult(output=head)
        lines = report.text(diags[:MAX_SHOWN], ctx.cwd).rstrip("\n")
        more = f"\n[... and {len(diags) - MAX_SHOWN:,} more not shown]" if len(diags) > MAX_SHOWN else ""
        return ToolResult(output=f"{head}\n{lines}{more}")
