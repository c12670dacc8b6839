"""Fuzzy matching for completions: a query matches a candidate if its characters occur in order.

Scores favour consecutive runs, matches at the start of a word or path segment, and matches in
the file name over those in its directories; shorter candidates win ties.
"""

from __future__ import annotations

SEPARATORS = "/_-. "


def fuzzy_match(query: str, candidate: str) -> tuple[int, list[int]] | None:
    """(score, matched positions) if every character of `query` occurs in order in `candidate`, else None.

    Matching is case-insensitive. The search is greedy from the end of the candidate, so the
    file name is preferred over directory names.
    """
    if not query:
        return 0, []
    text = candidate.lower()
    q = query.lower()
    positions: list[int] = []
    j = len(text)
    for ch in reversed(q):
        j = text.rfind(ch, 0, j)
        if j < 0:
            return None
        positions.append(j)
    positions.reverse()
    name_start = candidate.rfind("/") + 1
    score = 0
    previous = -2
    for pos in positions:
        if pos == previous + 1:
            score += 8
        if pos == 0 or candidate[pos - 1] in SEPARATORS:
            score += 6
        if pos >= name_start:
            score += 3
        previous = pos
    if text.endswith(q) or text[name_start:].startswith(q):
        score += 10
    score -= len(candidate) // 8
    return score, positions


def fuzzy_filter(query: str, candidates: list[str], limit: int = 50) -> list[tuple[str, list[int]]]:
    """The best `limit` candidates for `query`, best first, with their matched positions."""
    scored = []
    for index, candidate in enumerate(candidates):
        result = fuzzy_match(query, candidate)
        if result is not None:
            scored.append((-result[0], len(candidate), index, candidate, result[1]))
    scored.sort()
    return [(c, pos) for *_, c, pos in scored[:limit]]
