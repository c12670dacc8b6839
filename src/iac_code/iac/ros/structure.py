"""Rules of a ROS template's shape: the format version, the sections and their shapes,
parameters (a `Type`, a `Default` among `AllowedValues`), resources (a `Type` of the ROS form),
outputs (a `Value`), and keys ROS does not know (likely misspellings).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import diag, rule
from iac_code.iac.ros.template import VERSION, RosTemplate
from iac_code.iac.yamlsyntax import PosDict

SECTIONS = {"ROSTemplateFormatVersion", "Description", "Metadata", "Parameters", "Mappings", "Conditions",
            "Resources", "Outputs", "Rules", "Locals", "Transform", "Workspace", "Hooks"}
RESOURCE_KEYS = {"Type", "Properties", "DependsOn", "Condition", "DeletionPolicy", "Metadata", "Count", "Version",
                 "UpdatePolicy", "CreationPolicy", "Description", "DependsOnOnDelete"}
TYPE_PREFIXES = ("ALIYUN::", "DATASOURCE::", "MODULE::", "Custom::")
PARAMETER_TYPES = {"String", "Number", "CommaDelimitedList", "Json", "Boolean"}
MAPPINGS = ("Parameters", "Resources", "Conditions", "Outputs", "Mappings")


@rule("ros.version", "error", "`ROSTemplateFormatVersion` is not 2015-09-01", kind="ros")
def version(t: RosTemplate) -> Iterator[Diagnostic]:
    """ROS knows one format version, 2015-09-01."""
    value = t.doc.get("ROSTemplateFormatVersion")
    if str(value) != VERSION:
        yield diag(version, t.path, *t.doc.pos("ROSTemplateFormatVersion"), f'ROSTemplateFormatVersion must be "{VERSION}", not "{value}"')


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@rule("ros.structure", "error", "a section, resource, parameter or output of the wrong shape", kind="ros")
def structure(t: RosTemplate) -> Iterator[Diagnostic]:
    """Sections that must be mappings; parameters with a `Type` among ROS's (String, Number,
    CommaDelimitedList, Json, Boolean, or an `ALIYUN::` type) and a `Default` among their
    `AllowedValues`; resources that are mappings with a `Type`; outputs with a `Value`."""
    doc, path = t.doc, t.path
    for name in MAPPINGS:
        if name in doc and doc[name] is not None and not isinstance(doc[name], PosDict):
            yield diag(structure, path, *doc.pos(name), f"{name} must be a mapping")
    params = t.section("Parameters")
    for name, p in params.items():
        if not isinstance(p, PosDict):
            yield diag(structure, path, *params.pos(name), f'parameter "{name}" must be a mapping with a Type')
            continue
        if "Type" not in p:
            yield diag(structure, path, *params.pos(name), f'parameter "{name}" has no Type')
        elif isinstance(p["Type"], str) and p["Type"] not in PARAMETER_TYPES and not p["Type"].startswith("ALIYUN::"):
            yield diag(structure, path, *p.pos("Type"),
                       f'parameter "{name}": Type "{p["Type"]}" is not one of {", ".join(sorted(PARAMETER_TYPES))}{hint(p["Type"], PARAMETER_TYPES)}')
        allowed, default = p.get("AllowedValues"), p.get("Default")
        if default is not None and isinstance(allowed, list) and allowed and default not in allowed \
                and _text(default) not in {_text(a) for a in allowed}:
            yield diag(structure, path, *p.pos("Default"), f'parameter "{name}": Default {p["Default"]!r} is not among AllowedValues {list(allowed)}')
    resources = t.section("Resources")
    for name, r in resources.items() if not t.transformed else ():
        if not isinstance(r, PosDict):
            yield diag(structure, path, *resources.pos(name), f'resource "{name}" must be a mapping with a Type')
        elif not isinstance(r.get("Type"), str):
            yield diag(structure, path, *resources.pos(name), f'resource "{name}" has no Type')
    outputs = t.section("Outputs")
    for name, o in outputs.items():
        if isinstance(o, PosDict) and "Value" not in o:
            yield diag(structure, path, *outputs.pos(name), f'output "{name}" has no Value')


@rule("ros.unknown-key", "warning", "a top-level section or resource attribute ROS does not know (a misspelling?)", kind="ros")
def unknown_key(t: RosTemplate) -> Iterator[Diagnostic]:
    """Top-level sections other than ROS's, and resource attributes other than `Type`,
    `Properties`, `DependsOn`, `Condition`, `DeletionPolicy`, ... (a warning: ROS adds them)."""
    for key in t.doc:
        if key not in SECTIONS:
            yield diag(unknown_key, t.path, *t.doc.pos(key), f'unknown top-level section "{key}"{hint(str(key), SECTIONS)}')
    for name, r in t.section("Resources").items() if not t.transformed else ():
        if not isinstance(r, PosDict):
            continue
        for key in r:
            if key not in RESOURCE_KEYS:
                yield diag(unknown_key, t.path, *r.pos(key), f'resource "{name}" has an unknown attribute "{key}"{hint(str(key), RESOURCE_KEYS)}')


@rule("ros.no-resources", "warning", "a template without a Resources section", kind="ros")
def no_resources(t: RosTemplate) -> Iterator[Diagnostic]:
    """A template creates nothing without `Resources` (one with a `Transform` may not need it)."""
    if "Resources" not in t.doc and not t.transformed:
        yield diag(no_resources, t.path, t.doc.line, t.doc.column, "the template has no Resources section")


@rule("ros.resource-type", "error", "a resource `Type` that is not of the ROS form, or a misspelling of a ROS type", kind="ros")
def resource_type(t: RosTemplate) -> Iterator[Diagnostic]:
    """ROS types are `ALIYUN::Service::Resource`, `DATASOURCE::...`, `MODULE::...` or
    `Custom::...`; an `ALIYUN::`/`DATASOURCE::` type ROS's published types (`resource_types`)
    lack is reported when it misspells one of them (other letter case, or one or two letters
    off within the service): ROS accepts older types its CDK no longer lists, so an unknown
    name alone is not an error."""
    from iac_code.iac.ros import resource_types

    for name, r in t.section("Resources").items() if not t.transformed else ():
        rtype = r.get("Type") if isinstance(r, PosDict) else None
        if not isinstance(r, PosDict) or not isinstance(rtype, str):
            continue
        if not rtype.startswith(TYPE_PREFIXES):
            yield diag(resource_type, t.path, *r.pos("Type"), f'resource "{name}": "{rtype}" is not a ROS type (ALIYUN::Service::Resource)')
        elif rtype.startswith(("ALIYUN::", "DATASOURCE::")) and resource_types.lookup(rtype) is None \
                and (known := resource_types.misspelt(rtype)) is not None:
            yield diag(resource_type, t.path, *r.pos("Type"), f'resource "{name}": ROS has no resource type "{rtype}" (did you mean "{known}"?)')
