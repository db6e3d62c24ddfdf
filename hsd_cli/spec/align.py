"""Windowed alignment: find the accepted prefix's last `n` tokens in the drafts."""

from __future__ import annotations

from dataclasses import dataclass, field

Ngram = tuple[int, ...]
# A batch's drafts: per row (a page, or one region crop), its draft token lists.
TokenDrafts = list[list[list[int]]]
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
    where: dict[int, int] = field(default_factory=dict)  # drafts[d] is index.drafts[where[d]]
    span: int = 1  # max(ids) + 1: how far apart drafts can be, in draft order


def build_index(drafts: list[list[int]], n: int, min_n: int = 1) -> NgramIndex:
    """Index all drafts once per call, so a step costs O(matches), not O(draft length)."""
    index = NgramIndex([list(d) for d in drafts if d], n, min_n, ids=[i for i, d in enumerate(drafts) if d])
    index.where = {d: i for i, d in enumerate(index.ids)}
    index.span = max(index.ids, default=0) + 1
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
                hits = sorted(hits, key=_distance(index, near))
            found = ((index.drafts[d][j : j + max_depth], (index.ids[d], j)) for d, j in hits)
            cands, origins = _agreeing(found, max_candidates)
            return cands, origins, k
    return [], [], 0


def _distance(index: NgramIndex, near: Origin):
    """A hit's sort key, how far it lies from `near`: in its own draft by positions, then the
    drafts after it in order (one int: FAR past every position of near's own draft)."""
    ids, span, (draft, pos) = index.ids, index.span, near

    def key(hit: tuple[int, int]) -> int:
        d, j = hit
        return abs(j - pos) if ids[d] == draft else FAR + (ids[d] - draft) % span

    return key


FAR = 1 << 48  # beyond any position in a draft


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


# After the output leaves its draft at a misread (the model wrote other tokens than the draft
# holds there), the draft most likely goes on where the output would stand had it kept to it:
# a substitution at the expected position, an insertion or a deletion of a token or two beside
# it. On the dev corpus (flat regime, oracle target) these cut page steps 5810 -> 5102; offsets
# of +-3 and +-4 gained under 0.3% more.
RESYNC = (0, -1, 1, 2, -2)


def resync_origins(
    index: NgramIndex, near: Origin, max_depth: int, have: list[list[int]]
) -> tuple[list[list[int]], list[Origin]]:
    """Continuations at the expected draft position `near` and beside it (RESYNC), not in `have`."""
    if near[0] not in index.where:
        return [], []
    draft = index.drafts[index.where[near[0]]]
    seen = {tuple(c) for c in have}
    cands, origins = [], []
    for j in (near[1] + delta for delta in RESYNC):
        cand = draft[j : j + max_depth]
        if 0 <= j < len(draft) and tuple(cand) not in seen:
            seen.add(tuple(cand))
            cands.append(cand)
            origins.append((near[0], j))
    return cands, origins


@dataclass(slots=True)
class OutputIndex:
    """A row's own output as a draft: its n-grams (1 <= len <= n) -> the positions just after them."""

    n: int
    table: dict[Ngram, list[int]] = field(default_factory=dict)
    size: int = 0  # output tokens indexed so far

    def continuations(self, tokens: list[int], max_depth: int, limit: int) -> list[list[int]]:
        """What followed the output's last tokens (longest window first) at its latest `limit` places."""
        self._update(tokens)
        for k in range(min(self.n, len(tokens) - 1), 0, -1):
            hits = self.table.get(tuple(tokens[-k:]))
            if hits:
                return [tokens[j : j + max_depth] for j in reversed(hits[-limit:])]
        return []

    def _update(self, tokens: list[int]) -> None:
        """Index the n-grams ending before the last token (a match needs a token after it)."""
        lo, hi, table = max(self.size, 1), len(tokens), self.table
        for k in range(1, self.n + 1):  # a key's positions still come in order: each key has one k
            first = max(lo, k)  # the first end of a k-gram not indexed yet
            if first >= hi:
                continue
            grams = zip(*(tokens[first - k + i : hi - k + i] for i in range(k)), strict=True)  # tokens[end - k : end]
            for end, gram in zip(range(first, hi), grams, strict=True):
                table.setdefault(gram, []).append(end)
        self.size = max(self.size, hi)
