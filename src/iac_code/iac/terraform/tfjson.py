"""A .tf.json configuration file as the HCL blocks it stands for.

Terraform reads a JSON configuration file as blocks whose every string is a template
(`"${var.x}-y"`) and whose objects and lists are constructors. `configuration(doc, text)` gives
the blocks of one parsed file (resources, data sources, variables, outputs, module calls,
locals) with the line each is written on, and the providers it configures; `json_expression`
turns one value into the HCL expression it stands for, its strings on their own lines, so the
references found in it have their place. The module (`module.load_module`) declares the blocks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from lark import Tree

from iac_code.iac.terraform.hcl import Attr, Block, HclSyntaxError, parse_cached

# keys of a .tf.json block whose strings are not (only) expressions of the block: nested
# blocks with their own scope (`self` in provisioners) and lifecycle's addresses
JSON_NOT_EXPRESSIONS = frozenset({"provisioner", "connection", "lifecycle", "dynamic", "depends_on"})
# keys of a .tf.json variable/output block that are nested blocks (objects, or lists of them)
JSON_BLOCKS = frozenset({"validation", "precondition", "postcondition"})
_TEMPLATE = re.compile(r"(?<!\$)\$\{|(?<!%)%\{")


def json_expression(value: object, text: str, after_line: int) -> Tree | None:
    """A .tf.json value as the HCL expression it stands for (Terraform reads every JSON string of
    a configuration block as a template: `"${var.x}-y"`; objects and lists as constructors),
    each string on the line of the file it is written on, so references have their place; None
    when the value holds no template (then nothing in it refers to anything)."""
    if not _has_template(value):
        return None
    writer = _HclWriter(text, _offset_of_line(text, after_line))
    writer.emit("__json = (")
    writer._to_line_of(value)
    writer.value(value)
    writer.emit(")\n")
    body = parse_cached(writer.result())
    if isinstance(body, HclSyntaxError) or not body.attrs:
        return None
    return body.attrs[0].expr


def _has_template(v: object) -> bool:
    if isinstance(v, str):
        return _TEMPLATE.search(v) is not None
    if isinstance(v, dict):
        return any(k != "//" and _has_template(item) for k, item in v.items())
    if isinstance(v, list):
        return any(_has_template(item) for item in v)
    return False


class _HclWriter:
    """Writes a JSON value as HCL, moving each string to its line (and column) in the file."""

    def __init__(self, text: str, cursor: int) -> None:
        self.text, self.cursor, self.line, self.column = text, cursor, 1, 1
        self.parts: list[str] = []

    def emit(self, piece: str) -> None:
        self.parts.append(piece)
        if "\n" in piece:
            self.line += piece.count("\n")
            self.column = len(piece) - piece.rfind("\n")
        else:
            self.column += len(piece)

    def _first_line(self, v: object) -> int | None:
        """The file line of the first string of `v` (from the cursor), or None."""
        if isinstance(v, str):
            at = self.text.find(json.dumps(v), self.cursor)
            return self.text.count("\n", 0, at) + 1 if at >= 0 else None
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        return next((line for item in items if (line := self._first_line(item)) is not None), None)

    def _to_line_of(self, v: object) -> None:
        """Newlines up to the line `v` starts on (only where HCL allows them: before an element)."""
        want = self._first_line(v)
        if want is not None and want > self.line:
            self.emit("\n" * (want - self.line))

    def value(self, v: object) -> None:
        if isinstance(v, str):
            literal = json.dumps(v)
            at = self.text.find(literal, self.cursor)
            if at >= 0:
                self.cursor = at + len(literal)
                want_column = at - self.text.rfind("\n", 0, at)
                if self.text.count("\n", 0, at) + 1 == self.line and want_column > self.column:
                    self.emit(" " * (want_column - self.column))
            self.emit(literal)
        elif isinstance(v, bool):
            self.emit("true" if v else "false")
        elif v is None:
            self.emit("null")
        elif isinstance(v, (int, float)):
            self.emit(json.dumps(v))
        elif isinstance(v, list):
            self.emit("[")
            for item in v:
                self._to_line_of(item)
                self.value(item)
                self.emit(", ")
            self.emit("]")
        elif isinstance(v, dict):
            self.emit("{")
            for k, item in v.items():
                if k == "//":
                    continue
                self._to_line_of(item)
                self.emit(f"{json.dumps(str(k))} = ")
                self.value(item)
                self.emit(", ")
            self.emit("}")
        else:
            self.emit("null")

    def result(self) -> str:
        return "".join(self.parts)


def _offset_of_line(text: str, line: int) -> int:
    offset = 0
    for _ in range(max(line - 1, 0)):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return 0
    return offset


def configuration(doc: dict[str, Any], text: str) -> tuple[list[Block], set[tuple[str, str]]]:
    """The blocks of the .tf.json configuration `doc` (parsed from `text`, which gives their
    lines), in the order Terraform's sections are read, and the (provider name, alias) pairs of
    its `provider` section ("" for no alias)."""
    found: list[Block] = []
    providers: set[tuple[str, str]] = set()

    def line_of(name: str) -> int:
        m = re.search(r'"' + re.escape(name) + r'"\s*:', text)
        return text.count("\n", 0, m.start()) + 1 if m else 1

    def attrs(body: dict, line: int) -> list[Attr]:
        return [Attr(k, line_of(k) if line_of(k) >= line else line, 1, json_expression(v, text, line)) for k, v in body.items()
                if k != "//"]

    def blocks(section: str, depth: int) -> Iterator[tuple[list[str], Any]]:
        value = doc.get(section)
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, dict):
                continue
            if depth == 1:
                for name, body in item.items():
                    yield [name], body
            else:
                for t, named in item.items():
                    for name, body in (named.items() if isinstance(named, dict) else []):
                        yield [t, name], body

    for section, depth in (("resource", 2), ("data", 2), ("variable", 1), ("output", 1), ("module", 1)):
        for labels, body in blocks(section, depth):
            b = Block(section, labels, line_of(labels[-1]), 1)
            if isinstance(body, dict):
                literal = JSON_NOT_EXPRESSIONS | (set(body) if section == "variable" else set())  # a variable's are literal
                b.attrs = attrs({k: v for k, v in body.items() if k not in literal | JSON_BLOCKS}, b.line)
                b.attrs += [Attr(k, b.line, 1, None) for k in body if k in literal and k not in JSON_BLOCKS]
                for k in JSON_BLOCKS & set(body):
                    for item in body[k] if isinstance(body[k], list) else [body[k]]:
                        if isinstance(item, dict):
                            b.blocks.append(Block(k, [], line_of(k), 1, attrs(item, b.line)))
            found.append(b)
    for item in doc.get("locals", []) if isinstance(doc.get("locals"), list) else [doc.get("locals")]:
        if isinstance(item, dict):
            found.append(Block("locals", [], line_of("locals"), 1, attrs(item, line_of("locals"))))
    for item in doc.get("provider", []) if isinstance(doc.get("provider"), list) else [doc.get("provider")]:
        if isinstance(item, dict):
            for name, conf in item.items():
                for c in conf if isinstance(conf, list) else [conf]:
                    providers.add((name, str(c.get("alias", "")) if isinstance(c, dict) else ""))
    return found, providers
