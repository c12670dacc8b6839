"""Where an HCL syntax error most likely is.

Lark stops where the parser got stuck, which for a missing `}` is often the end of the file. A
lexical scan (strings, comments, heredocs, brackets, and the indentation of top-level blocks)
finds the unclosed bracket, string or heredoc instead, and where its closer belongs.
"""

from __future__ import annotations

import re

_TOP_LEVEL = re.compile(r"^(resource|data|module|variable|output|locals|provider|terraform|moved|import|check|removed|ephemeral)\b")
_PAIRS = {"{": "}", "[": "]", "(": ")"}


def locate_error(text: str, line: int, column: int, exc: Exception) -> tuple[int, int, str]:
    """Where a syntax error most likely is: an unclosed bracket or string found by a scan of
    `text` (lexical only), else the parser's own position. Returns (line, column, message)."""
    found = _scan(text)
    if found is not None:
        return found
    token = getattr(exc, "token", None)
    what = f"unexpected {str(token)!r}" if token is not None and str(token).strip() else "unexpected input"
    if token is not None and getattr(token, "type", "") == "$END":
        what = "unexpected end of file"
    lines = text.split("\n")
    if 1 <= line <= len(lines) and lines[line - 1][: max(column - 1, 0)].strip() == "":
        prev = line - 1
        while prev >= 1 and not lines[prev - 1].split("#")[0].strip():
            prev -= 1
        previous = lines[prev - 1].split("#")[0].rstrip() if prev >= 1 else ""
        if _HALF_STATEMENT.match(previous):
            return prev, 1, f"syntax error: {previous.strip()!r} is neither an argument (name = value) nor a block (name {{ ... }})"
    return line, column, f"syntax error: {what}"


_HALF_STATEMENT = re.compile(r'^\s*[A-Za-z_][\w-]*(\s+("[^"]*"|[A-Za-z_][\w-]*))+\s*$')


def _scan(text: str) -> tuple[int, int, str] | None:
    """A lexical scan for an unclosed/mismatched bracket or an unterminated string."""
    stack: list[tuple[str, int, int, int]] = []  # (opener, line, column, indent of its line)
    lines = text.split("\n")
    heredoc: str | None = None
    heredoc_at = (1, 1)
    in_comment = False
    for n, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if heredoc is not None:
            if stripped == heredoc:
                heredoc = None
            continue
        indent = len(raw) - len(raw.lstrip())
        if not in_comment and stripped and stack and stack[-1][0] == "{" and _TOP_LEVEL.match(raw) and indent == 0:
            opener = stack[-1]
            prev = n - 1
            while prev > opener[1] and not lines[prev - 1].strip():
                prev -= 1
            return prev, 1, f"syntax error: the block opened at line {opener[1]} is not closed (missing '}}')"
        i = 0
        while i < len(raw):
            ch = raw[i]
            if in_comment:
                if raw.startswith("*/", i):
                    in_comment = False
                    i += 2
                    continue
                i += 1
                continue
            if ch == "#" or raw.startswith("//", i):
                break
            if raw.startswith("/*", i):
                in_comment = True
                i += 2
                continue
            if raw.startswith("<<", i):
                m = re.match(r"<<-?([A-Za-z][\w.-]*)\s*$", raw[i:])
                if m:
                    heredoc, heredoc_at = m.group(1), (n, i + 1)
                    break
            if ch == '"':
                end = _string_end(raw, i + 1)
                if end is None:
                    return n, i + 1, "syntax error: the string is not terminated on its line (missing '\"')"
                i = end + 1
                continue
            if ch in _PAIRS:
                stack.append((ch, n, i + 1, indent))
            elif ch in ")]}":
                if not stack:
                    return n, i + 1, f"syntax error: '{ch}' closes nothing"
                opener = stack.pop()
                if _PAIRS[opener[0]] != ch:
                    line = _missing_closer_line(lines, opener, n)
                    return line, opener[2] if line == opener[1] else 1, (
                        f"syntax error: '{opener[0]}' opened at line {opener[1]} is not closed before the '{ch}' at line {n}"
                        f" (missing '{_PAIRS[opener[0]]}')")
            i += 1
    if heredoc is not None:
        return heredoc_at[0], heredoc_at[1], f"syntax error: the heredoc <<{heredoc} is never terminated (no line '{heredoc}')"
    if stack:
        opener = stack[-1]
        line = _missing_closer_line(lines, opener, len(lines) + 1)
        return line, opener[2] if line == opener[1] else 1, (
            f"syntax error: '{opener[0]}' opened at line {opener[1]} is never closed (missing '{_PAIRS[opener[0]]}')")
    return None


def _missing_closer_line(lines: list[str], opener: tuple[str, int, int, int], closer_line: int) -> int:
    """Where the closer of `opener` most likely belongs: its own line when the bracket opens a
    list written on that line (`[a, b` ...), else the last non-blank line before `closer_line`."""
    rest = lines[opener[1] - 1][opener[2]:].split("#")[0].strip()
    if rest:
        return opener[1]
    prev = closer_line - 1
    while prev > opener[1] and not lines[prev - 1].strip():
        prev -= 1
    return prev


def _string_end(raw: str, i: int) -> int | None:
    """Index of the closing quote of a string starting at `i` (after the quote), interpolations
    included, or None if the line ends first."""
    depth = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            i += 2
            continue
        if raw.startswith("${", i) or raw.startswith("%{", i):
            depth += 1
            i += 2
            continue
        if depth and ch == "}":
            depth -= 1
        elif depth and ch == '"':
            end = _string_end(raw, i + 1)
            if end is None:
                return None
            i = end
        elif not depth and ch == '"':
            return i
        i += 1
    return None
