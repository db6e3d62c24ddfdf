"""Windowed alignment: find the accepted prefix's last `n` tokens in the drafts."""

from __future__ import annotations

from dataclasses import dataclass, field

Ngram = tuple[int, ...]
Origin = tuple[int, int]  # (draft index as given to build_index, token position in it)
MODEL: Origin = (-1, -1)  # a token no draft proposed (the bonus token, plain steps)


@dataclass(slots=True)
class NgramIndex:
    """Every n-gram (min_n <= len <= n) of every draft -> positions just after it."""

    drafts: list[list[int]]
    n: int
    min_n: int
    table: dict[Ngram, list[tuple[int, int]]] = field(default_factory=dict)  # -> [(draft, pos)]
    started: set[int] = field(default_factory=set)  # drafts whose start was already offered
    ids: list[int] = field(default_factory=list)  # index.drafts[i] is drafts[ids[i]] (empties dropped)


def build_index(drafts: list[list[int]], n: int, min_n: int = 1) -> NgramIndex:
    """Index all drafts once per call, so a step costs O(matches), not O(draft length)."""
    index = NgramIndex([list(d) for d in drafts if d], n, min_n, ids=[i for i, d in enumerate(drafts) if d])
    for d, toks in enumerate(index.drafts):
        for k in range(min_n, n + 1):
            for j in range(len(toks) - k):  # a match at the very end has no continuation
                index.table.setdefault(tuple(toks[j : j + k]), []).append((d, j + k))
    return index


def align_origins(
    index: NgramIndex, prefix: list[int], max_depth: int, max_candidates: int, near: Origin | None = None
) -> tuple[list[list[int]], list[Origin], int]:
    """Continuations after the longest window (n, then shorter) found in a draft, their origins, its length.

    Continuations that several drafts agree on come back once per draft (the tree counts the
    agreement); at most `max_candidates` distinct ones, nearest first to `near`, the draft
    position the output is expected to continue from (a short window matches all over a long
    page, and the page's first matches are rarely where the output stands).
    """
    for k in range(min(index.n, len(prefix)), index.min_n - 1, -1):
        hits = index.table.get(tuple(prefix[-k:]))
        if hits:
            if near is not None and len(hits) > 1:
                hits = sorted(hits, key=lambda hit: _distance(index, hit, near))
            found = ((index.drafts[d][j : j + max_depth], (index.ids[d], j)) for d, j in hits)
            cands, origins = _agreeing(found, max_candidates)
            return cands, origins, k
    return [], [], 0


def _distance(index: NgramIndex, hit: tuple[int, int], near: Origin) -> tuple[int, int]:
    """How far a hit lies from `near`: its own draft by positions, then the drafts after it in order."""
    d, j = hit
    draft = index.ids[d]
    if draft == near[0]:
        return (0, abs(j - near[1]))
    return (1, (draft - near[0]) % (max(index.ids) + 1))


def starts_origins(index: NgramIndex, max_depth: int, max_candidates: int) -> tuple[list[list[int]], list[Origin]]:
    """Beginnings of drafts not offered before (the window rarely matches a region's start), with origins."""
    fresh = [d for d in range(len(index.drafts)) if d not in index.started]
    chosen = fresh[:max_candidates]
    index.started.update(chosen)
    return [index.drafts[d][:max_depth] for d in chosen], [(index.ids[d], 0) for d in chosen]


def _agreeing(candidates, limit: int) -> tuple[list[list[int]], list[Origin]]:
    """(candidate, origin) pairs in order, duplicates kept, stopping before the (limit + 1)-th distinct one."""
    seen: set[Ngram] = set()
    out: list[list[int]] = []
    origins: list[Origin] = []
    for cand, origin in candidates:
        key = tuple(cand)
        if key not in seen:
            if len(seen) == limit:
                break
            seen.add(key)
        out.append(cand)
        origins.append(origin)
    return out, origins
