"""HCL files as a small model: blocks, attributes, and the references in their expressions.

Parsing is python-hcl2's Lark grammar (positions 1-based) with one fix Terraform needs (see
`_parser`). The model keeps
the Lark expression trees so the checks can find references and `evaluate.py` can evaluate
literals. A syntax error becomes an `HclSyntaxError` whose position is refined by a bracket and
indentation scan (Lark reports where it got stuck, which for a missing `}` is often the end of
the file).
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import lark
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from iac_code.configdir import cache_dir
from iac_code.iac import cache


@dataclass(slots=True)
class Attr:
    """`name = expr` at `line`/`column`."""

    name: str
    line: int
    column: int
    expr: Tree | None  # None: a .tf.json value that holds no template (tfjson.json_expression)


@dataclass(slots=True)
class Block:
    """`type "label" ... { body }`; `attrs` keeps every attribute in order (duplicates included)."""

    type: str
    labels: list[str]
    line: int
    column: int
    attrs: list[Attr] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    def attr(self, name: str) -> Attr | None:
        """The first attribute called `name`, or None."""
        for a in self.attrs:
            if a.name == name:
                return a
        return None


@dataclass(slots=True)
class Body:
    """A parsed file: top-level attributes (tfvars) and blocks."""

    attrs: list[Attr]
    blocks: list[Block]


class HclSyntaxError(Exception):
    """A syntax error at 1-based `line`/`column`."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


# Operators a newline may precede (the line continues): python-hcl2's list, plus `=>` of a `for`
# object expression, which Terraform accepts after a newline (`{ for k, v in x : k\n => v }`) and
# python-hcl2 8.1 rejects. Inside ( ) and [ ] newlines mean nothing to Terraform, so `-` continues
# a line there too (`(a\n - b)`); elsewhere a line starting with `-` is a negative number.
_CONTINUED = frozenset({"DOUBLE_EQ", "NEQ", "LT", "GT", "LEQ", "GEQ", "ASTERISK", "SLASH", "PERCENT", "DOUBLE_AMP",
                        "DOUBLE_PIPE", "PLUS", "QMARK", "FOR_OBJECT_ARROW"})
_OPENS = {"LPAR": "(", "LSQB": "[", "LBRACE": "{", "INTERP_START": "{", "DIRECTIVE_START": "{"}
_CLOSES = frozenset({"RPAR", "RSQB", "RBRACE"})


class _PostLexer:
    """python-hcl2's post-lexer pass (a newline before a binary operator joins the operator's
    token: the LALR grammar cannot tell it from a statement's end), with `_CONTINUED`."""

    always_accept: tuple[str, ...] = ()

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        pending: Token | None = None
        nesting: list[str] = []
        for token in stream:
            if token.type == "NL_OR_COMMENT":
                if pending is not None:
                    yield pending
                pending = token
                continue
            if pending is not None:
                if token.type in _CONTINUED or (token.type == "MINUS" and nesting[-1:] in (["("], ["["])):
                    token = token.update(value=str(pending) + str(token))
                else:
                    yield pending
                pending = None
            if token.type in _OPENS:
                nesting.append(_OPENS[token.type])
            elif token.type in _CLOSES and nesting:
                nesting.pop()
            yield token
        if pending is not None:
            yield pending


def tables_name() -> str:
    """The file name of the built parser tables: one per python-hcl2, lark and Python version
    (lark also checks the grammar's digest inside the file, and rebuilds on a mismatch)."""
    import hcl2

    return f"hcl2-{hcl2.__version__}-lark-{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.tables"


def _only_ours(path: Path) -> bool:
    """Whether `path` belongs to this user and nobody else may write it (a file there is ours)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _can_write(directory: Path) -> bool:
    """Whether a file can be created in `directory` (tried: a sandbox's read-only view or a
    Landlock rule says no only when asked)."""
    try:
        fd, name = tempfile.mkstemp(dir=directory)
    except OSError:
        return False
    os.close(fd)
    os.unlink(name)
    return True


def tables_file() -> Path | None:
    """Where lark keeps the built parser tables of `_parser` (building them costs ~3 s of CPU;
    loading them, ~0.1 s). The file is a pickle, so only one this user alone can have written is
    used: in the cache dir (`configdir.cache_dir()`, made 0700) when the file is there or can be
    written; else in the temporary directory when only this user may write it (a sandboxed
    command's private TMPDIR, where the cache dir is read-only: it reads the agent's tables
    there, or keeps its own here); never a shared /tmp (None: no cache)."""
    directory = cache_dir()
    name = tables_name()
    if (directory / name).exists():
        if _only_ours(directory) and _only_ours(directory / name):
            return directory / name
    else:
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            pass
        if _only_ours(directory) and _can_write(directory):
            return directory / name
    private = Path(tempfile.gettempdir())
    return private / name if _only_ours(private) else None


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser of python-hcl2's grammar file (`hcl2/hcl2.lark`, the tree its
    `parses_to_tree` returns) with our post-lexer; its built tables are kept in `tables_file()`.
    Positions are the tokens' (1-based line and column): without `propagate_positions` a parse
    takes about a sixth less time and its tree a third less memory (measured on terraform-aws-eks)."""
    import hcl2.parser

    tables = tables_file()
    return Lark.open(
        "hcl2.lark", rel_to=hcl2.parser.__file__, parser="lalr", postlex=_PostLexer(), cache=str(tables) if tables else False
    )


def parse(text: str) -> Body:
    """Parse HCL `text`; raises `HclSyntaxError` with the best position found."""
    try:
        tree = _parser().parse(text + "\n")
    except UnexpectedInput as exc:
        from iac_code.iac.terraform.syntax import locate_error

        line, column, message = locate_error(text, getattr(exc, "line", 1), getattr(exc, "column", 1), exc)
        raise HclSyntaxError(message, line, column) from None
    except RecursionError:
        raise HclSyntaxError("the file nests too deeply to parse", 1, 1) from None
    try:
        return _body(subtree(tree, 0))
    except RecursionError:
        raise HclSyntaxError("the file nests too deeply to validate", 1, 1) from None


def parse_cached(text: str) -> Body | HclSyntaxError:
    """`parse` through the content-keyed cache (a syntax error is cached too)."""

    def compute() -> Body | HclSyntaxError:
        try:
            return parse(text)
        except HclSyntaxError as exc:
            return exc

    return cache.get_or_compute("hcl", text, compute)


def _body(body: Tree) -> Body:
    attrs, blocks = [], []
    for child in body.children:
        if not isinstance(child, Tree):
            continue
        if child.data == "attribute":
            attrs.append(_attr(child))
        elif child.data == "block":
            blocks.append(_block(child))
    return Body(attrs, blocks)


def leaf(node: Tree) -> Token:
    """`node`'s first child, which the grammar makes a token (an identifier's name, an operator).

    Raises TypeError where it is a subtree (a grammar this module does not know)."""
    tok = node.children[0]
    if not isinstance(tok, Token):
        raise TypeError(f"{node.data}: the first child is a subtree, not a token")
    return tok


def place(tok: Token) -> tuple[int, int]:
    """The 1-based (line, column) of a token the parser made (lark types them optional: tokens
    made by hand have none). Raises ValueError for a token without a position."""
    if tok.line is None or tok.column is None:
        raise ValueError(f"token {tok.type} has no position")
    return tok.line, tok.column


def subtree(node: Tree, index: int) -> Tree:
    """`node.children[index]`, which the grammar makes a subtree (a file's body, an expression).

    Raises TypeError where it is a token (a grammar this module does not know)."""
    child = node.children[index]
    if not isinstance(child, Tree):
        raise TypeError(f"{node.data}: child {index} is a token, not a subtree")
    return child


def _name(node: Tree | Token) -> str:
    if isinstance(node, Token):
        return str(node)
    if node.data == "string":
        return "".join(str(p.children[0]) for p in node.children if isinstance(p, Tree) and isinstance(p.children[0], Token))
    return "".join(str(t) for t in node.scan_values(lambda v: isinstance(v, Token)))


def _attr(node: Tree) -> Attr:
    name_node = node.children[0]
    tok = next(name_node.scan_values(lambda v: isinstance(v, Token)))
    return Attr(_name(name_node), tok.line, tok.column, node.children[-1])


def _block(node: Tree) -> Block:
    kids = [c for c in node.children if isinstance(c, Tree)]
    head = kids[0]
    tok = next(head.scan_values(lambda v: isinstance(v, Token)))
    labels = [_name(k) for k in kids[1:] if k.data in ("string", "identifier", "keyword", "literal_value")]
    inner = next(k for k in kids if k.data == "body")
    body = _body(inner)
    return Block(_name(head), labels, tok.line, tok.column, body.attrs, body.blocks)


# ----- references -----


@dataclass(frozen=True, slots=True)
class Ref:
    """A traversal `root.step...`; steps are attribute names, or "[" for an index / "*" for a splat."""

    root: str
    steps: tuple[str, ...]
    line: int
    column: int
    guarded: bool = False  # inside try() or can(): an error there is the function's to catch

    def attrs(self) -> list[str]:
        """The attribute names of the traversal, indexes left out."""
        return [s for s in self.steps if s not in ("[", "*")]

    def text(self) -> str:
        """The traversal as written, indexes shown as `[…]` and splats as `[*]`."""
        out = self.root
        for s in self.steps:
            out += "[…]" if s == "[" else "[*]" if s == "*" else f".{s}"
        return out


@dataclass(frozen=True, slots=True)
class Call:
    """A function call `name(...)` (provider functions are not collected)."""

    name: str
    line: int
    column: int


_CHAIN = ("get_attr_expr_term", "index_expr_term", "attr_splat_expr_term", "full_splat_expr_term")
_HEREDOC_INTERP = re.compile(r"(?<!\$)\$\{([^}]*)\}")
_TRAVERSAL = re.compile(r"\b([A-Za-z_][\w-]*)((?:\.[A-Za-z_][\w-]*)+)")


def references(expr: Tree | Token, scope: frozenset[str] = frozenset()) -> tuple[list[Ref], list[Call]]:
    """Every traversal and function call in `expr`, leaving out names bound by for-expressions
    and template `for` directives inside it (and names in `scope`). The lists are shared when
    `scope` is empty: callers must not change them."""
    memo = not scope and isinstance(expr, Tree)
    if memo and (known := getattr(expr, "_iac_refs", None)) is not None:
        return known  # trees are shared through the parse cache: the walk is done once per content
    refs: list[Ref] = []
    calls: list[Call] = []
    _walk(expr, set(scope), refs, calls)
    if memo and isinstance(expr, Tree):
        expr._iac_refs = (refs, calls)  # type: ignore[attr-defined]  # a memo on the shared, cached parse tree
    return refs, calls


def _walk(node: Tree | Token, scope: set[str], refs: list[Ref], calls: list[Call]) -> None:
    if isinstance(node, Token):
        if node.type in ("HEREDOC_TEMPLATE", "HEREDOC_TEMPLATE_TRIM"):
            _heredoc(node, scope, refs)
        return
    data = node.data
    if data == "expr_term" and len(node.children) == 1 and isinstance(node.children[0], Tree) and node.children[0].data == "identifier":
        tok = leaf(node.children[0])
        if str(tok) not in scope:
            refs.append(Ref(str(tok), (), *place(tok)))
        return
    if data in _CHAIN:
        _chain(node, scope, refs, calls)
        return
    if data in ("for_tuple_expr", "for_object_expr"):
        intro = next(c for c in node.children if isinstance(c, Tree) and c.data == "for_intro")
        names = [str(c.children[0]) for c in intro.children if isinstance(c, Tree) and c.data == "identifier"]
        coll = [c for c in intro.children if isinstance(c, Tree) and c.data != "identifier" and c.data != "new_line_or_comment"]
        for c in coll:
            _walk(c, scope, refs, calls)
        inner = scope | set(names)
        for c in node.children:
            if isinstance(c, Tree) and c is not intro:
                _walk(c, inner, refs, calls)
        return
    if data == "function_call":
        idents = [c for c in node.children if isinstance(c, Tree) and c.data == "identifier"]
        if len(idents) == 1:
            tok = leaf(idents[0])
            calls.append(Call(str(tok), *place(tok)))
        in_args: list[Ref] = []
        for c in node.children:
            if isinstance(c, Tree) and c.data == "arguments":
                _walk(c, scope, in_args, calls)
        if len(idents) == 1 and str(idents[0].children[0]) in ("try", "can"):
            in_args = [Ref(r.root, r.steps, r.line, r.column, True) for r in in_args]
        refs += in_args
        return
    if data == "object_elem":
        key = node.children[0]
        inner_key = key.children[0] if key.children else None
        bare = (
            isinstance(inner_key, Tree)
            and inner_key.data == "expr_term"
            and len(inner_key.children) == 1
            and isinstance(inner_key.children[0], Tree)
            and inner_key.children[0].data in ("identifier", "literal_value")
        )
        if not bare and not (isinstance(inner_key, Tree) and inner_key.data == "keyword"):
            _walk(key, scope, refs, calls)
        for c in node.children[1:]:
            _walk(c, scope, refs, calls)
        return
    if data == "string":
        in_string = set(scope)  # template `for` names live to the end of the string
        for part in node.children:
            if isinstance(part, Tree):
                for sub in part.children:
                    if isinstance(sub, Tree) and sub.data == "template_for_start":
                        ids = [c for c in sub.children if isinstance(c, Tree) and c.data == "identifier"]
                        rest = [c for c in sub.children if isinstance(c, Tree) and c.data != "identifier"]
                        for c in rest:
                            _walk(c, in_string, refs, calls)
                        in_string |= {str(i.children[0]) for i in ids}
                    elif isinstance(sub, Tree):
                        _walk(sub, in_string, refs, calls)
        return
    for c in node.children:
        _walk(c, scope, refs, calls)


def _chain(node: Tree, scope: set[str], refs: list[Ref], calls: list[Call]) -> None:
    steps: list[str] = []
    cur: Tree | Token = node
    while isinstance(cur, Tree) and (cur.data in _CHAIN or cur.data == "expr_term"):
        if cur.data == "expr_term":
            if len(cur.children) == 1 and isinstance(cur.children[0], Tree) and cur.children[0].data in (*_CHAIN, "identifier"):
                cur = cur.children[0]
                continue
            break
        base, op = cur.children[0], cur.children[1]
        if cur.data == "get_attr_expr_term":
            steps.append(_name(op.children[-1]))
        elif cur.data == "index_expr_term":
            steps.append("[")
            _walk(op, scope, refs, calls)
        else:  # a splat holds the steps after it (`x[*].a[0].b`): kept in order, as the chain's are
            after: list[str] = []
            for sub in op.children:
                if isinstance(sub, Tree):
                    if sub.data == "get_attr":
                        after.append(_name(sub.children[-1]))
                    else:
                        after.append("[")
                        _walk(sub, scope, refs, calls)
            steps += reversed(after)
            steps.append("*")
        cur = base
    steps.reverse()
    if isinstance(cur, Tree) and cur.data == "identifier":
        tok = leaf(cur)
        if str(tok) not in scope:
            refs.append(Ref(str(tok), tuple(steps), *place(tok)))
    else:
        _walk(cur, scope, refs, calls)


def _heredoc(tok: Token, scope: set[str], refs: list[Ref]) -> None:
    text = str(tok)
    for m in _HEREDOC_INTERP.finditer(text):
        line = place(tok)[0] + text.count("\n", 0, m.start())
        for t in _TRAVERSAL.finditer(m.group(1)):
            if t.group(1) in ("var", "local", "module", "data") and t.group(1) not in scope:
                parts = tuple(t.group(2)[1:].split("."))
                refs.append(Ref(t.group(1), parts, line, 1))
