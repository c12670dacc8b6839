"""YAML documents with positions: syntax errors, duplicate keys, CloudFormation/ROS short tags.

`load(path, text)` composes every document (libyaml when available), reports syntax errors and
duplicate keys with positions, and builds Python values whose mappings (`PosDict`) and sequences
(`PosList`) remember the 1-based line and column of each key/item. Short-form intrinsic tags
(`!Ref x`, `!GetAtt a.b`, `!Sub ...`) become their long form (`{"Ref": "x"}`,
`{"Fn::GetAtt": ["a", "b"]}`, `{"Fn::Sub": ...}`); other unknown tags keep the plain value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from iac_code.iac import cache
from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import declare, diag

SYNTAX = declare("yaml.syntax", "error", "YAML syntax error", kind="yaml", doc="""
    Reported by the parser (PyYAML), at the opening quote or bracket when one is not closed.""")
DUPLICATE_KEY = declare("yaml.duplicate-key", "error", "a YAML mapping has the same key twice", kind="yaml", doc="""
    The last value wins in most readers, silently; Kubernetes and CloudFormation reject it.""")
_RULES = {"yaml.syntax": SYNTAX, "yaml.duplicate-key": DUPLICATE_KEY}



class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]  # libyaml's loader where built in
    """PyYAML's safe loader (libyaml when available), reading plain scalars such as `1e-05` as
    floats the way Kubernetes, Helm and go-yaml do (YAML 1.1 wants a dot: PyYAML reads a string)."""


_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+$"),
                              list("-+0123456789."))
_constructor = yaml.constructor.SafeConstructor()


class PosDict(dict):
    """A mapping with `line`/`column` of itself and `key_pos[key] = (line, column)` of each key."""

    line = 1
    column = 1

    def __init__(self) -> None:
        super().__init__()
        self.key_pos: dict[Any, tuple[int, int]] = {}

    def pos(self, key: Any) -> tuple[int, int]:
        """Where `key` is written (the mapping's own position if unknown)."""
        return self.key_pos.get(key, (self.line, self.column))


class PosList(list):
    """A sequence with `line`/`column` and `item_pos[i] = (line, column)`."""

    line = 1
    column = 1

    def __init__(self) -> None:
        super().__init__()
        self.item_pos: list[tuple[int, int]] = []


@dataclass(slots=True)
class YamlDoc:
    """One document: its value and the line it starts on."""

    value: Any
    line: int


@dataclass(slots=True)
class YamlFile:
    """Every document of a file, and the problems found while reading it."""

    docs: list[YamlDoc]
    problems: list[tuple[int, int, str, str]]  # (line, column, rule, message)
    complex_keys: bool = False  # a mapping or sequence used as a key: `name: {{ .Name }}` read as YAML


def load(path: Path, text: str) -> tuple[list[YamlDoc], list[Diagnostic]]:
    """Parse `text` (cached by content); returns the documents read before any syntax error and
    the diagnostics (file = `path`)."""
    parsed = cache.get_or_compute("yaml", text, lambda: _parse(text))
    return parsed.docs, [diag(_RULES[rule], path, ln, col, msg) for ln, col, rule, msg in parsed.problems]


def templated(text: str) -> bool:
    """Whether `text` holds `{{ ... }}` where YAML reads a mapping used as a key: the unquoted
    placeholders of a Go, mustache or Jinja template (`name: {{ .Name }}`), not YAML's own data."""
    return "{{" in text and cache.get_or_compute("yaml", text, lambda: _parse(text)).complex_keys


def _parse(text: str) -> YamlFile:
    docs: list[YamlDoc] = []
    problems: list[tuple[int, int, str, str]] = []
    try:
        for node in yaml.compose_all(text, Loader=_Loader):
            if node is None:
                continue
            docs.append(YamlDoc(_value(node, problems, 0), node.start_mark.line + 1))
    except yaml.MarkedYAMLError as exc:
        # an unclosed quote or [ / { is reported where it ends the file: its start is the place
        opened = exc.context and exc.context.startswith(("while scanning a quoted", "while parsing a flow"))
        mark = (exc.context_mark if opened else None) or exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        line, col = _unclosed_quote(text, line) or (line, col)
        what = exc.problem or "syntax error"
        context = f" ({exc.context})" if exc.context else ""
        problems.append((line, col, "yaml.syntax", f"YAML syntax error: {what}{context}"))
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        problems.append((1, 1, "yaml.syntax", f"YAML error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"))
    complex_keys = any(p[2] == "complex-key" for p in problems)
    return YamlFile(docs, [p for p in problems if p[2] != "complex-key"], complex_keys)


_OPEN_QUOTE = re.compile(r'(?:^|:\s+|-\s+)("(?:[^"\\]|\\.)*)$')


def _unclosed_quote(text: str, line: int) -> tuple[int, int] | None:
    """The line (up to 10 above a syntax error) whose value opens a double quote it does not
    close: the string then swallows the next lines, and the parser fails further down."""
    lines = text.split("\n")
    for n in range(max(1, line - 10), min(line, len(lines)) + 1):
        m = _OPEN_QUOTE.search(lines[n - 1].split(" #")[0] if '"' not in lines[n - 1].split(" #", 1)[-1] else lines[n - 1])
        if m and n < line:
            return n, m.start(1) + 1
    return None


def _pos(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _value(node: yaml.Node, problems: list, depth: int) -> Any:
    if depth > 200:
        raise RecursionError("nested too deeply")
    tag = node.tag or ""
    if isinstance(node, yaml.MappingNode):
        out = PosDict()
        out.line, out.column = _pos(node)
        seen: dict[Any, int] = {}
        for k, v in node.value:
            if k.tag == "tag:yaml.org,2002:merge" and isinstance(v, yaml.MappingNode):
                merged = _value(v, problems, depth + 1)
                for mk, mv in merged.items():
                    out.setdefault(mk, mv)
                continue
            key = _value(k, problems, depth + 1)
            try:
                hash(key)
            except TypeError:
                key = str(key)
                problems.append((0, 0, "complex-key", ""))  # not a finding: a sign of a template (see `templated`)
            if key in seen:
                line, col = _pos(k)
                problems.append((line, col, "yaml.duplicate-key",
                                 f'duplicate key "{key}" (first at line {seen[key]}); the last value wins'))
            seen[key] = _pos(k)[0]
            out[key] = _value(v, problems, depth + 1)
            out.key_pos[key] = _pos(k)
        value: Any = out
    elif isinstance(node, yaml.SequenceNode):
        seq = PosList()
        seq.line, seq.column = _pos(node)
        for item in node.value:
            seq.append(_value(item, problems, depth + 1))
            seq.item_pos.append(_pos(item))
        value = seq
    else:
        assert isinstance(node, yaml.ScalarNode)  # the composer's nodes: mapping, sequence or scalar
        value = _scalar(node)
    if tag.startswith("!"):
        return _short_form(tag[1:], value, _pos(node))
    return value


def _scalar(node: yaml.ScalarNode) -> Any:
    tag = node.tag or ""
    if tag.startswith("!") or tag in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:binary"):
        return node.value
    try:
        return _constructor.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, TypeError):
        return node.value


def _short_form(name: str, value: Any, pos: tuple[int, int]) -> Any:
    if name in ("Ref", "Condition"):
        key = name
    elif name and name[0].isupper():
        key = f"Fn::{name}"
        if name == "GetAtt" and isinstance(value, str):
            value = value.split(".", 1)
    else:
        return value
    out = PosDict()
    out.line, out.column = pos
    out[key] = value
    out.key_pos[key] = pos
    return out


def locate(root: PosDict | PosList, path: list[Any] | Any) -> tuple[tuple[int, int], Any, list[str]]:
    """Follow `path` (keys and list indexes, e.g. a JSON Schema error's `absolute_path`) from `root`.

    Returns ((line, column) of the deepest node reached, that node, the keys walked as strings);
    the walk stops at the first key the document does not have.
    """
    node: Any = root
    pos = (root.line, root.column)
    walked: list[str] = []
    for key in path:
        if isinstance(node, PosDict) and key in node:
            pos, node = node.pos(key), node[key]
        elif isinstance(node, PosList) and isinstance(key, int) and key < len(node):
            pos, node = node.item_pos[key], node[key]
        else:
            break
        walked.append(str(key))
    return pos, node, walked
