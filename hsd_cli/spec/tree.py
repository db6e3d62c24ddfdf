"""Prefix tree over candidates, linearized with parents before children."""

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

    @property
    def num_nodes(self) -> int:
        return len(self.tokens)


def build_tree(root_token: int, candidates: list[list[int]]) -> DraftTree:
    """Merge candidates that share prefixes into one trie (each node a unique prefix)."""
    tree = DraftTree([root_token], [-1], [0], [{}])
    for cand in candidates:
        node = 0
        for tok in cand:
            child = tree.children[node].get(tok)
            if child is None:
                child = tree.num_nodes
                tree.children[node][tok] = child
                tree.tokens.append(tok)
                tree.parent.append(node)
                tree.depth.append(tree.depth[node] + 1)
                tree.children.append({})
            node = child
    return tree


def ancestry_mask(tree: DraftTree) -> torch.Tensor:
    """[num_nodes, num_nodes] bool: entry [i, j] is True iff j is i or an ancestor of i."""
    k = tree.num_nodes
    mask = torch.zeros(k, k, dtype=torch.bool)
    for i in range(k):
        mask[i, i] = True
        p = tree.parent[i]
        if p >= 0:
            mask[i] |= mask[p]  # parents precede children, so mask[p] is complete
    return mask


def pack_trees(trees: list[DraftTree]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Pad trees to one batch: ids [B, K], ancestry [B, K, K], depth [B, K].

    Padding nodes repeat the root token at depth 0 and see only themselves, so no real node
    attends to them and their logits are ignored.
    """
    k = max(t.num_nodes for t in trees)
    ids = torch.zeros(len(trees), k, dtype=torch.long)
    depth = torch.zeros(len(trees), k, dtype=torch.long)
    anc = torch.eye(k, dtype=torch.bool).repeat(len(trees), 1, 1)
    for b, t in enumerate(trees):
        n = t.num_nodes
        ids[b, :n] = torch.tensor(t.tokens)
        ids[b, n:] = t.tokens[0]
        depth[b, :n] = torch.tensor(t.depth)
        anc[b, :n, :n] = ancestry_mask(t)
    return ids, anc, depth
