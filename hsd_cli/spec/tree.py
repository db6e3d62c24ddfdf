"""Prefix tree over candidates: merge, prune to a node budget, linearize in DFS order.

In DFS (pre)order every subtree is a contiguous run of nodes, so node j is an ancestor of
node i (or i itself) iff j <= i < j + size[j]: the whole ancestry mask is one comparison.
"""

from __future__ import annotations

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


def build_tree(root_token: int, candidates: list[list[int]]) -> DraftTree:
    """Merge candidates that share prefixes into one trie (each node a unique prefix), DFS order."""
    return linearize(build_trie(root_token, candidates))


def build_trie(
    root_token: int, candidates: list[list[int]], origins: list[tuple[int, int]] | None = None, lead: float = 1.0
) -> DraftTree:
    """The trie in insertion order; `count` says how many candidates agree on each prefix, the
    first candidate (the likeliest, as the caller ranks them) counting `lead` times."""
    tree = DraftTree([root_token], [-1], [0], [{}], [len(candidates)], origin=[(-1, -1)] if origins else [])
    for c, cand in enumerate(candidates):
        node = 0
        for i, tok in enumerate(cand):
            child = tree.children[node].get(tok)
            if child is None:
                child = tree.num_nodes
                tree.children[node][tok] = child
                tree.tokens.append(tok)
                tree.parent.append(node)
                tree.depth.append(tree.depth[node] + 1)
                tree.children.append({})
                tree.count.append(0)
                if origins:
                    d, pos = origins[c]
                    tree.origin.append((d, pos + i) if d >= 0 else (d, pos))  # (-1, -1): no draft's token
            tree.count[child] += lead if c == 0 else 1
            node = child
    return tree


def linearize(trie: DraftTree, keep: set[int] | None = None) -> DraftTree:
    """The trie (or its nodes in `keep`, a set closed under parents) renumbered in DFS order."""
    out = DraftTree([], [], [], [], [], [], [])
    stack = [(0, -1)]
    while stack:
        node, parent = stack.pop()
        new = out.num_nodes
        out.tokens.append(trie.tokens[node])
        out.parent.append(parent)
        out.depth.append(trie.depth[node])
        out.children.append({})
        out.count.append(trie.count[node])
        out.size.append(1)
        if trie.origin:
            out.origin.append(trie.origin[node])
        if parent >= 0:
            out.children[parent][trie.tokens[node]] = new
        kids = [c for c in trie.children[node].values() if keep is None or c in keep]
        stack.extend((c, new) for c in reversed(kids))  # first-inserted child first
    for i in range(out.num_nodes - 1, 0, -1):  # children follow parents: sizes bottom-up
        out.size[out.parent[i]] += out.size[i]
    return out


def pack_trees(trees: list[DraftTree]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Pad trees to one batch: ids [B, K], ancestry [B, K, K], depth [B, K].

    Padding nodes repeat the root token at depth 0 with subtree size 1: they see only
    themselves, no real node attends to them, and their logits are ignored.
    """
    k = max(t.num_nodes for t in trees)
    ids = torch.tensor([t.tokens + [t.tokens[0]] * (k - t.num_nodes) for t in trees])
    depth = torch.tensor([t.depth + [0] * (k - t.num_nodes) for t in trees])
    size = torch.tensor([t.size + [1] * (k - t.num_nodes) for t in trees])
    return ids, _mask(size), depth


def _mask(size: torch.Tensor) -> torch.Tensor:
    """[B, K] DFS subtree sizes -> [B, K, K] ancestry: j <= i < j + size[j]."""
    pos = torch.arange(size.shape[1])
    i, j = pos[:, None], pos[None, :]
    return (j <= i) & (i < (j + size[:, None, :]))
