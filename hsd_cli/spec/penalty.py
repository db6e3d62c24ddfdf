"""A checkpoint's repetition penalty, applied per tree node over the node's own context.

The usual repetition-penalty logits processor (as in HF generate) divides positive scores (multiplies negative
ones) by `penalty` for every token that occurs in the sequence so far: the prompt and the
generated tokens. A tree node's sequence is the row's prompt + accepted tokens (`seen`) plus the
draft tokens on its own path, so every node gets exactly what AR decoding would apply there.
"""

from __future__ import annotations

import torch

from hsd_cli.spec.tree import DraftTree


def path_tokens(tree: DraftTree, seen: set[int]) -> list[list[int]]:
    """Per node: tokens on its path (itself included, root excluded) that are not in `seen`."""
    out: list[list[int]] = [[]]
    for i in range(1, tree.num_nodes):
        own = [] if tree.tokens[i] in seen else [tree.tokens[i]]
        parent = out[tree.parent[i]]
        out.append(parent + own if own and own[0] not in parent else parent)
    return out


def penalize(
    logits: torch.Tensor,  # [B, K, V]
    seen: list[list[int]],  # per row: distinct prompt + accepted tokens
    extra: list[list[list[int]]],  # per row, per node: further distinct tokens (not in seen)
    penalty: float,
) -> torch.Tensor:
    """The logits with the repetition penalty applied at every node (a new tensor)."""
    b, k, _ = logits.shape
    width = max((len(e) for row in extra for e in row), default=0)
    most = max(len(row) for row in seen)
    idx = []
    for r in range(b):
        assert seen[r], "a row's context always holds its prompt"
        fill = seen[r][0]  # a duplicate of a real index gathers and scatters the same value
        nodes = [e + [fill] * (width - len(e)) for e in extra[r]] + [[fill] * width] * (k - len(extra[r]))
        base = seen[r] + [fill] * (most - len(seen[r]))
        idx.append([base + node for node in nodes])
    idx = torch.tensor(idx, device=logits.device)  # [B, K, most + width]
    scores = logits.gather(-1, idx)
    scores = torch.where(scores < 0, scores * penalty, scores / penalty)
    return logits.scatter(-1, idx, scores)
