"""The rule of `locals` that depend on each other in a circle (Terraform: "Cycle: local.a,
local.b"): none of them can be evaluated."""

from __future__ import annotations

from collections.abc import Iterator

from lark import Tree

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import diag, rule
from iac_code.iac.terraform.hcl import references
from iac_code.iac.terraform.module import ModuleTarget


@rule("terraform.local-cycle", "error", "`locals` that refer to each other in a circle (or one that refers to itself)", kind="terraform")
def local_cycle(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform evaluates each local value after the ones it reads; a circle of `local.` reads
    (`a = local.b`, `b = local.a`, or `a = local.a`) has no order. Each circle is reported once,
    at the local of the circle that is written first."""
    graph: dict[str, set[str]] = {}
    for name, (_, attr) in t.module.locals.items():
        refs = references(attr.expr)[0] if isinstance(attr.expr, Tree) else []
        graph[name] = {r.steps[0] for r in refs if r.root == "local" and r.steps and r.steps[0] in t.module.locals}
    for cycle in _cycles(graph):
        first = min(cycle, key=lambda n: (str(t.module.locals[n][0]), t.module.locals[n][1].line))
        path, attr = t.module.locals[first]
        start = cycle.index(first)
        order = cycle[start:] + cycle[:start]
        shown = " -> ".join(f"local.{n}" for n in [*order, first])
        yield diag(local_cycle, path, attr.line, attr.column, f"these locals refer to each other in a circle: {shown}")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path of names) per strongly connected component that has one (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:  # iterative, so a long chain of locals cannot exhaust the stack
        nonlocal counter
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        found.append(_path(graph, set(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _path(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A circle through the component, from its first name: follow edges inside it until one
    comes back."""
    start = min(component)
    path, seen = [start], {start}
    node = start
    while True:
        nxt = sorted(w for w in graph[node] if w in component)
        back = [w for w in nxt if w == start]
        if back:
            return path
        step = next((w for w in nxt if w not in seen), None)
        if step is None:  # the circle closes elsewhere: cut the path at its first repeat
            w = nxt[0]
            return path[path.index(w):]
        path.append(step)
        seen.add(step)
        node = step
