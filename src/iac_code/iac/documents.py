"""YAML and JSON files: parsed once, their kind decided by their place and content, then
checked by the rules of that kind (CloudFormation, ROS, Kubernetes, a Helm chart's values)
through a target.

The kind is decided first: a file under a Helm chart's `templates/` (a directory beside a
`Chart.yaml`) is a template, not YAML until rendered, and is skipped with that reason; any
other file is parsed, and its documents say what it is. `{{ ... }}` elsewhere is just text (a
CloudFormation `{{resolve:ssm:...}}`, a ROS `{{ computenest::... }}`): a file is taken for
another tool's template and skipped when it holds `{{` and does not parse, or parses only by
reading a placeholder as a mapping (`name: {{ .Name }}`), or is a manifest whose name, namespace
or labels hold `{{` or a shell placeholder `${NAME}` (envsubst's templates). A file that a sibling
`kustomization.yaml` lists as a patch holds partial objects by design: only its YAML is checked.
A CloudFormation template is checked with the settings of its project's `.cfnlintrc`, which may
also leave it out (`templates`, `ignore_templates`).

The formats are imported when such a file is found: a Terraform-only project never loads
PyYAML and the format checkers (start-up of `iac-code validate`).
"""

from __future__ import annotations

import re
from pathlib import Path

from iac_code.iac import rules
from iac_code.iac.diagnostics import Diagnostic, Skipped
from iac_code.iac.discovery import YAML_SUFFIXES, Reader
from iac_code.iac.jsonsyntax import load_json
from iac_code.iac.options import Options

HELM_TEMPLATE = "a Helm template (rendered by helm, not YAML until then)"
OTHER_TEMPLATE = "a template ({{ ... }}) that is not YAML until rendered"
SHELL_TEMPLATE = "a template (${...} in its names, as envsubst fills them) that is no manifest until filled"
_SHELL_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}]*)?\}")


def helm_template(path: Path) -> bool:
    """Whether `path` is under the `templates/` directory of a Helm chart (beside `Chart.yaml`)."""
    for parent in path.parents:
        if parent.name == "templates" and (parent.parent / "Chart.yaml").is_file():
            return True
        if (parent / "Chart.yaml").is_file():
            return False
    return False


def check(path: Path, reader: Reader, options: Options) -> tuple[list[Diagnostic], str | Skipped | None]:
    """The findings on one YAML or JSON file (the parsers', then the rules' of its kind), and
    its kind (`yaml` when no rules but the parser's apply), a `Skipped`, or None when `--kind`
    leaves its kind out."""
    from iac_code.iac.yamlsyntax import load as load_yaml
    from iac_code.iac.yamlsyntax import templated

    selection = options.selection
    if helm_template(path):
        return [], Skipped(path, HELM_TEMPLATE) if options.kind == "auto" else None
    text = reader(path)
    if isinstance(text, Skipped):
        return [], text
    if not isinstance(text, str):
        return ([text] if selection.enabled(text.rule) else []), "file"
    is_json = not path.name.endswith(YAML_SUFFIXES) and text.lstrip().startswith(("{", "["))
    found: list[Diagnostic] = []
    if is_json:
        value, problems = load_json(path, text)
        if problems and value is None:
            return [d for d in problems if selection.enabled(d.rule)], "json"
        found += problems
    docs, problems = load_yaml(path, text)
    if is_json:
        problems = []  # valid JSON that PyYAML reads differently: positions only from JSON
    elif "{{" in text and (any(p.rule == "yaml.syntax" for p in problems) or templated(text)):
        return [], Skipped(path, OTHER_TEMPLATE)
    found += problems
    values = [d.value for d in docs]
    kind = kind_of(path, values, reader)
    if options.kind != "auto" and kind != options.kind:
        return [], None
    if kind == "kubernetes" and (placeholder := _placeholders(values)) is not None:
        return [], Skipped(path, placeholder)
    out = [d for d in found if selection.enabled(d.rule)]
    if any(p.rule == "yaml.syntax" for p in problems):
        return out, kind
    if kind == "cloudformation":
        from iac_code.iac.cloudformation.cfnlintrc import for_template

        config = for_template(path)
        if (reason := config.excluded(path)) is not None:
            return out, Skipped(path, reason)
        out += [d for d in config.notes() if selection.enabled(d.rule)]
    for target_kind, target in _targets(kind, path, text, values, found, reader, options):
        out += rules.run(target_kind, target, selection, path)
    return out, kind if kind != "yaml" or not is_json else "json"


def _placeholders(values: list) -> str | None:
    """Why a manifest is a template, when it names itself with a placeholder (`name: etcd-{{cell}}`,
    `name: ${APP_NAME:-web}`, in its name, namespace or labels): Kubernetes never reads `{{` or
    `${` there (elsewhere, as in a container's command, they are just text)."""
    for v in values:
        meta = v.get("metadata") if isinstance(v, dict) else None
        if isinstance(meta, dict):
            names = [meta.get("name"), meta.get("namespace"), *(meta.get("labels") or {}).values()] if isinstance(meta.get("labels") or {}, dict) else []
            for n in names:
                if isinstance(n, str) and "{{" in n:
                    return OTHER_TEMPLATE
                if isinstance(n, str) and _SHELL_PLACEHOLDER.search(n):
                    return SHELL_TEMPLATE
    return None


def kind_of(path: Path, values: list, reader: Reader) -> str:
    """The kind of a file's documents: cloudformation, ros, kubernetes, helm (a chart's values
    file), or yaml (syntax only: other YAML, and kustomize patches)."""
    from iac_code.iac.cloudformation.lint import is_cloudformation
    from iac_code.iac.helm.values import chart_of
    from iac_code.iac.kubernetes.kustomize import is_patch
    from iac_code.iac.kubernetes.schema import is_manifest
    from iac_code.iac.ros.template import is_ros

    if any(is_cloudformation(v) for v in values):
        return "cloudformation"
    if any(is_ros(v) for v in values):
        return "ros"
    if any(is_manifest(v) for v in values):
        return "yaml" if is_patch(path, reader) else "kubernetes"
    if path.name.endswith(YAML_SUFFIXES) and chart_of(path) is not None and values and isinstance(values[0], dict):
        return "helm"
    return "yaml"


def _targets(kind: str, path: Path, text: str, values: list, problems: list[Diagnostic], reader: Reader,
             options: Options) -> list[tuple[str, object]]:
    """(the kind whose rules run, their target) for a file of `kind` (a ROS file: one per template)."""
    from iac_code.iac.yamlsyntax import PosDict

    if kind == "cloudformation":
        from dataclasses import replace

        from iac_code.iac.cloudformation.cfnlintrc import for_template
        from iac_code.iac.cloudformation.lint import CfnTemplate

        conf = for_template(path).options
        ignored = tuple(p[len("cfn."):].rstrip("*") for p in options.ignore if p.startswith("cfn."))
        cfn_options = replace(conf, ignore=conf.ignore + ignored)
        return [("cloudformation", CfnTemplate(path, text, cfn_options, any(p.rule.endswith("duplicate-key") for p in problems)))]
    if kind == "ros":
        from iac_code.iac.ros.template import RosTemplate

        return [("ros", RosTemplate(path, v)) for v in values if isinstance(v, PosDict)]
    if kind == "kubernetes":
        from iac_code.iac.kubernetes.kustomize import partial
        from iac_code.iac.kubernetes.schema import Manifests, is_manifest

        objects = [v for v in values if isinstance(v, PosDict) and (is_manifest(v) or "apiVersion" in v or "kind" in v) and not partial(v)]
        return [("kubernetes", Manifests(path, objects, options.kubernetes_version))]
    if kind == "helm" and isinstance(values[0], PosDict):
        from iac_code.iac.helm.values import HelmValues, chart_of

        chart = chart_of(path)  # there is one: kind_of said helm
        return [("helm", HelmValues(path, values[0], chart, reader))] if chart is not None else []
    return []
