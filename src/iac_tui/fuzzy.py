"""Fuzzy matching for completions, on Textual's own `textual.fuzzy.Matcher`.

A query matches a candidate if its characters occur in order (case-insensitive); Textual scores
the match (runs and word starts count), and of equal scores the shorter candidate wins. This
module only adapts the matcher to the completion list: scores with the matched positions.
"""

from __future__ import annotations

from textual.fuzzy import Matcher


def _positions(matcher: Matcher, candidate: str) -> list[int]:
    return sorted({index for span in matcher.highlight(candidate).spans for index in range(span.start, span.end)})


def fuzzy_filter(query: str, candidates: list[str], limit: int = 50) -> list[tuple[str, list[int]]]:
    """The best `limit` candidates for `query`, best first (shorter first among equals), with their matched positions."""
    if not query:
        return [(c, []) for c in sorted(candidates, key=len)[:limit]]
    matcher = Matcher(query)
    scored = []
    for index, candidate in enumerate(candidates):
        score = matcher.match(candidate)
        if score > 0:
            scored.append((-score, len(candidate), index, candidate))
    scored.sort()
    return [(candidate, _positions(matcher, candidate)) for *_, candidate in scored[:limit]]
