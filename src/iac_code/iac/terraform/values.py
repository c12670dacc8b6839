"""Rules of known values: `.tfvars` names, values against variable types and `validation`
conditions, `for_each` given a list, and root outputs showing sensitive variables.

A root module (one no scanned module calls) has known variable values: auto-loaded `.tfvars`
over defaults. They flow into its local module calls (arguments evaluated with them), and on
into those modules' calls, up to `MAX_DEPTH`. `-var-file` files (other `.tfvars` beside the
module, or in a directory of `.tfvars` only below it) are checked against the module too.
Anything unknown is skipped: no guessing, no false errors.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import diag, rule
from iac_code.iac.terraform.evaluate import UNKNOWN, Env, evaluate, literal
from iac_code.iac.terraform.hcl import Block, Body, references
from iac_code.iac.terraform.module import Module, ModuleTarget, local_child
from iac_code.iac.terraform.typecheck import (
    ValueProblem,
    coerce,
    conform,
    describe,
    is_list_for_each,
    parse_type,
    variable_problems,
    where,
)

MAX_DEPTH = 6


@dataclass(slots=True)
class Instance:
    """A module run with known variable `values`: the root, or a local module it calls."""

    module: Module
    values: dict[str, Any]
    depth: int
    _scope: tuple[dict, dict] | None = None

    def env(self, file: Path) -> Env:
        """An evaluation context for an expression in `file` of this module."""
        if self._scope is None:
            resources: dict[str, dict[str, tuple[Path, Block]]] = {}
            for (rtype, rname), d in self.module.resources.items():
                resources.setdefault(rtype, {})[rname] = (d.file, d.block)
            self._scope = ({name: (f, a.expr) for name, (f, a) in self.module.locals.items()}, resources)
        return Env(file, self.values, self._scope[0], resources=self._scope[1])


def instances(t: ModuleTarget) -> tuple[list[Instance], list[ValueProblem]]:
    """The root module and the local modules it calls, with their values, and every value
    problem met on the way (root modules only; computed once per target)."""
    return t.once("instances", lambda: _instances(t) if t.root else ([], []))


def _instances(t: ModuleTarget) -> tuple[list[Instance], list[ValueProblem]]:
    problems: list[ValueProblem] = []
    mod = t.module
    given: dict[str, tuple[Any, tuple[Path, int, int]]] = {}
    for path, body in mod.tfvars:
        for a in body.attrs:
            given[a.name] = (evaluate(a.expr, Env(path)), (path, a.line, a.column))
    for k, v in mod.json_values.items():
        given[k] = (v, (mod.dir, 1, 1))
    out = [Instance(mod, _resolve(mod, given, problems), 0)]
    i = 0
    while i < len(out):
        inst = out[i]
        i += 1
        if inst.depth >= MAX_DEPTH:
            continue
        for d in inst.module.blocks:
            b = d.block
            if b.type != "module" or b.attr("count") or b.attr("for_each"):
                continue
            child = local_child(inst.module, b, t.load)
            if child is None:
                continue
            env = inst.env(d.file)
            passed = {a.name: (evaluate(a.expr, env), (d.file, a.line, a.column)) for a in b.attrs
                      if a.expr is not None and a.name in child.variables}
            out.append(Instance(child, _resolve(child, passed, problems), inst.depth + 1))
    return out, problems


def _resolve(mod: Module, given: dict[str, tuple[Any, tuple[Path, int, int]]], problems: list[ValueProblem]) -> dict[str, Any]:
    """The module's variable values (given over defaults, as their types hold them)."""
    values: dict[str, Any] = {}
    for name, decl in mod.variables.items():
        var = decl.block
        t_attr = var.attr("type")
        t = parse_type(t_attr.expr if t_attr is not None else None)
        d = var.attr("default")
        default = evaluate(d.expr, Env(decl.file)) if d is not None and d.expr is not None else UNKNOWN
        if name in given:
            value, at = given[name]
            if d is not None and default is not UNKNOWN and (bad := conform(default, t)) is not None:
                file, line, col = where(bad[0], (decl.file, d.line, d.column))
                problems.append(ValueProblem("type", file, line, col, f'invalid default for variable "{name}" ({describe(t)}): {bad[1]}'))
        elif d is not None:
            value, at = default, (decl.file, d.line, d.column)
        else:
            continue
        problems += variable_problems(decl.file, var, value, at)
        values[name] = coerce(value, t)
    return values


def _var_files(t: ModuleTarget) -> tuple[Module | None, list[tuple[Path, Body]], bool]:
    """The module `.tfvars` are checked against, the files, and whether their names are too
    (auto-loaded files' names are `undeclared_tfvar`'s in a module directory)."""
    if t.var_module is not None:
        return t.var_module, t.module.tfvars + t.module.other_tfvars, True
    if t.root:
        return t.module, t.module.other_tfvars, False
    return None, [], False


def _var_file_problems(t: ModuleTarget) -> list[ValueProblem]:
    mod, files, _ = _var_files(t)
    out: list[ValueProblem] = []
    if mod is None:
        return out
    for path, body in files:
        for a in body.attrs:
            decl = mod.variables.get(a.name)
            if decl is not None:
                out += variable_problems(decl.file, decl.block, evaluate(a.expr, Env(path)), (path, a.line, a.column))
    return out


def _value_problems(t: ModuleTarget, kind: str) -> Iterator[ValueProblem]:
    for p in dict.fromkeys([*instances(t)[1], *t.once("var-files", lambda: _var_file_problems(t))]):
        if p.kind == kind:
            yield p


@rule("terraform.invalid-value", "error", "a .tfvars value, default or module argument that does not fit the variable's type",
      kind="terraform")
def invalid_value(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Invalid value for input variable". Reported where the value was written."""
    for p in _value_problems(t, "type"):
        yield diag(invalid_value, p.file, p.line, p.column, p.message)


@rule("terraform.variable-validation", "error", "a known variable value that fails the variable's `validation` condition",
      kind="terraform")
def variable_validation(t: ModuleTarget) -> Iterator[Diagnostic]:
    """The condition evaluated on the known value (`can()`, `regex()`, `contains()`, ...)."""
    for p in _value_problems(t, "validation"):
        yield diag(variable_validation, p.file, p.line, p.column, p.message)


@rule("terraform.undeclared-tfvar", "warning", "a .tfvars value for a variable the module does not declare", kind="terraform")
def undeclared_tfvar(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Value for undeclared variable" (a warning for files it loads itself)."""
    mod, files, names = _var_files(t)
    if not names:
        mod = t.module
        files = mod.tfvars + mod.other_tfvars if mod.blocks and not mod.has_json and not mod.broken else []
    if mod is None:
        return
    for path, body in files:
        for a in body.attrs:
            if a.name not in mod.variables:
                yield diag(undeclared_tfvar, path, a.line, a.column, f'a value for undeclared variable "{a.name}"{hint(a.name, mod.variables)}')


@rule("terraform.for-each-list", "error", "`for_each` given a list or tuple instead of a map or set", kind="terraform")
def for_each_list(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "The given "for_each" argument value is unsuitable: ... a map, or set of
    strings, and you have provided a value of type tuple". Wrap a list in `toset(...)`."""
    seen = set()
    for inst in instances(t)[0]:
        for d in inst.module.blocks:
            b = d.block
            if b.type in ("resource", "data", "module") and (fe := is_list_for_each(b, inst.env(d.file))) is not None:
                if (d.file, fe.line) not in seen:
                    seen.add((d.file, fe.line))
                    yield diag(for_each_list, d.file, fe.line, fe.column,
                               f'{b.type} "{".".join(b.labels)}": for_each needs a map or a set of strings, not a list; wrap it in toset(...)')


@rule("terraform.sensitive-output", "error", "a root module output showing a sensitive variable without `sensitive = true`",
      kind="terraform")
def sensitive_output(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Output refers to sensitive values"."""
    mod = t.module
    secret = {n for n, d in mod.variables.items() if (a := d.block.attr("sensitive")) is not None and literal(a.expr) is True}
    for name, decl in mod.outputs.items() if secret and t.root else ():
        value, flag = decl.block.attr("value"), decl.block.attr("sensitive")
        if value is None or value.expr is None or (flag is not None and literal(flag.expr) is True):
            continue
        refs, _ = references(value.expr)
        hit = next((r for r in refs if r.root == "var" and r.steps and r.steps[0] in secret), None)
        if hit is not None:
            yield diag(sensitive_output, decl.file, hit.line, hit.column,
                       f'output "{name}" shows the sensitive variable "var.{hit.steps[0]}"; add sensitive = true to the output')
