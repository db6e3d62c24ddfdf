"""Prefix tree over candidates: merge, prune to a node budget, linearize in DFS order.

In DFS (pre)order every subtree is a contiguous run of nodes, so node j is an ancestor of
node i (or i itself) iff j <= i < j + size[j]: the whole ancestry mask is one comparison.
"""

from __future__ import annotations

import functools
from array import array
from dataclasses import dataclass, field

import torch


@dataclass(slots=True)
class DraftTree:
    """Node 0 is the root (the last accepted token); every other node is a draft token."""

    tokens: list[int]  # [num_nodes]
    parent: list[int]  # [num_nodes], -1 for the root
    depth: list[int]  # [num_nodes], root = 0
    children: list[dict[int, int]] = field(default_factory=list)  # token -> node index
    count: list[float] = field(default_factory=list)  # [num_nodes] candidates through the node (weighted)
    size: list[int] = field(default_factory=list)  # [num_nodes] subtree size (DFS-ordered trees)
    # [num_nodes] (draft, position) the node's token was taken from: the first candidate that made
    # it; (-1, -1) for the root. Empty when the candidates came without origins.
    origin: list[tuple[int, int]] = field(default_factory=list)

    @property
    def num_nodes(self) -> int:
        return len(self.tokens)


@dataclass(slots=True)
class Trie:
    """Candidates merged by shared prefix, nodes in insertion order (parents before children):
    made for one step and cut to a DraftTree by `linearize`.

    It keeps per node only what sizing reads, in flat lists a candidate's new tail extends at
    once; children maps exist only where a node branched (`branches`): a node made as part of a
    tail has the tail's next node, node + 1, as its only child until another candidate leaves it."""

    tokens: list[int]  # [num_nodes]
    parent: list[int]  # [num_nodes], -1 for the root
    depth: list[int]  # [num_nodes], root = 0
    count: list[float]  # [num_nodes] candidates through the node (weighted)
    branches: dict[int, dict[int, int]]  # node -> its children (token -> node) where it branched
    # [num_nodes] draft and position the node's token was taken from (see DraftTree.origin);
    # empty when the candidates came without origins.
    draft: list[int]
    pos: list[int]

    @property
    def num_nodes(self) -> int:
        return len(self.tokens)

    def child(self, node: int, token: int) -> int | None:
        """The child of `node` that holds `token`, if any."""
        kids = self.branches.get(node)
        if kids is not None:
            return kids.get(token)
        nxt = node + 1
        return nxt if nxt < len(self.tokens) and self.parent[nxt] == node and self.tokens[nxt] == token else None


def root_tree(token: int) -> DraftTree:
    """The tree of a row with no candidates: its last token alone, as `linearize(build_trie(token,
    []))` makes it, without their work (rows with no drafts are most of a plain batch's rows)."""
    return DraftTree([token], [-1], [0], [{}], [0], [1], [])


def build_tree(root_token: int, candidates: list[list[int]]) -> DraftTree:
    """Merge candidates that share prefixes into one trie (each node a unique prefix), DFS order."""
    return linearize(build_trie(root_token, candidates))


def build_trie(
    root_token: int, candidates: list[list[int]], origins: list[tuple[int, int]] | None = None, lead: float = 1.0
) -> Trie:
    """The trie in insertion order; `count` says how many candidates agree on each prefix, the
    first candidate (the likeliest, as the caller ranks them) counting `lead` times."""
    root = [-1] if origins else []
    trie = Trie([root_token], [-1], [0], [len(candidates)], {0: {}}, root, list(root))
    count, child = trie.count, trie.child
    for c, cand in enumerate(candidates):
        weight = lead if c == 0 else 1
        node = 0
        for i, tok in enumerate(cand):
            nxt = child(node, tok)
            if nxt is None:  # the candidate leaves the trie: its rest is one new chain
                _add_chain(trie, node, cand[i:], weight, origins[c] if origins else None, i)
                break
            count[nxt] += weight
            node = nxt
    return trie


def _add_chain(trie: Trie, node: int, rest: list[int], weight: float, origin: tuple[int, int] | None, at: int):
    """New nodes for `rest` below `node`, each under the one before, appended at once."""
    first, m = trie.num_nodes, len(rest)
    kids = trie.branches.get(node)
    if kids is not None:
        kids[rest[0]] = first
    elif node + 1 < first and trie.parent[node + 1] == node:  # a tail's node branches
        trie.branches[node] = {trie.tokens[node + 1]: node + 1, rest[0]: first}
    elif node + 1 < first:  # a tail's last node gets a child further on
        trie.branches[node] = {rest[0]: first}
    trie.tokens += rest
    trie.parent += [node, *range(first, first + m - 1)]
    d = trie.depth[node] + 1
    trie.depth += range(d, d + m)
    trie.count += [weight] * m
    if origin is not None:
        draft, pos = origin
        trie.draft += [draft] * m
        # (-1, -1): no draft's token; else the position of each token in its draft
        trie.pos += range(pos + at, pos + at + m) if draft >= 0 else [pos] * m


def linearize(trie: Trie, keep: set[int] | None = None) -> DraftTree:
    """The trie (or its nodes in `keep`, a set closed under parents) renumbered in DFS order,
    a node's children in the order they were inserted.

    No walk: a trie's parents come before their children, so one pass from the last node sums
    subtree sizes, and one from the first places each child where its parent's next child goes
    (after the subtrees of the siblings inserted before it)."""
    up = trie.parent
    kept = range(trie.num_nodes) if keep is None else _reachable(sorted(keep | {0}), up)
    size = [1] * trie.num_nodes
    for n in reversed(kept):
        if n:
            size[up[n]] += size[n]
    pos = [0] * trie.num_nodes  # old node -> new
    free = [1] * trie.num_nodes  # old node -> where its next child goes
    order = [0] * len(kept)  # new node -> old
    for n in kept:
        if n:
            at = pos[n] = free[up[n]]
            free[up[n]] = at + size[n]
            free[n] = at + 1
            order[at] = n
    tokens = [trie.tokens[i] for i in order]
    parent = [-1] + [pos[up[i]] for i in order[1:]]
    children: list[dict[int, int]] = [{} for _ in order]
    for i in range(1, len(order)):
        children[parent[i]][tokens[i]] = i
    return DraftTree(
        tokens,
        parent,
        [trie.depth[i] for i in order],
        children,
        [trie.count[i] for i in order],
        [size[i] for i in order],
        [(trie.draft[i], trie.pos[i]) for i in order] if trie.draft else [],
    )


def _reachable(nodes: list[int], parent: list[int]) -> list[int]:
    """The ascending `nodes` whose ancestors are all among them (the root always)."""
    inside = set()
    out = []
    for n in nodes:
        if n == 0 or parent[n] in inside:
            inside.add(n)
            out.append(n)
    return out


def pack_trees(trees: list[DraftTree]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Pad trees to one batch: ids [B, K], ancestry [B, K, K], depth [B, K].

    Padding nodes repeat the root token at depth 0 with subtree size 1: they see only
    themselves, no real node attends to them, and their logits are ignored.
    """
    k = max(len(t.tokens) for t in trees)
    ids, depth, size = [], [], []
    for t in trees:  # flat lists, one tensor each: nested lists cost torch a pass per row
        pad = k - len(t.tokens)
        ids += t.tokens + [t.tokens[0]] * pad
        depth += t.depth + [0] * pad
        size += t.size + [1] * pad
    shape = (len(trees), k)
    return long_tensor(ids, shape), _mask(long_tensor(size, shape)), long_tensor(depth, shape)


def long_tensor(values: list[int], shape: tuple[int, ...]) -> torch.Tensor:
    """A long CPU tensor of `shape` from a flat list of ints: through an array, about ten times as
    fast as torch.tensor over a list."""
    if not values:
        return torch.empty(shape, dtype=torch.long)
    return torch.frombuffer(array("q", values), dtype=torch.long).view(shape)


def upload(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    """A host tensor on `device`: on a GPU from pinned memory, so the copy does not wait. Made
    contiguous first: pinning copies into a tensor of the same strides, which an expanded view
    (one element seen at many places) cannot be written into."""
    if device.type == "cpu" or t.device == device:
        return t
    return t.contiguous().pin_memory().to(device, non_blocking=True)


def _mask(size: torch.Tensor) -> torch.Tensor:
    """[B, K] DFS subtree sizes -> [B, K, K] ancestry: j <= i < j + size[j], one comparison."""
    return _offsets(size.shape[1]) < size[:, None, :]


@functools.lru_cache(maxsize=256)
def _offsets(k: int) -> torch.Tensor:
    """[K, K] i - j where j <= i, else K (no subtree is that large); read only."""
    pos = torch.arange(k)
    diff = pos[:, None] - pos[None, :]
    return diff.masked_fill(diff < 0, k)
