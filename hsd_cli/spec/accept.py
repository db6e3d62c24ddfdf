"""Acceptance: walk the tree greedily with the tau rule, then add the bonus token."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from hsd_cli.spec.tree import DraftTree


@dataclass(frozen=True, slots=True)
class Acceptance:
    path: list[int]  # node indices from the root (inclusive) to the last accepted node
    tokens: list[int]  # accepted draft tokens (root excluded)
    bonus: int  # u_hat at the last accepted node


def accept_nodes(tree: DraftTree, u_hat: list[int], tau: float, logp: torch.Tensor | None = None) -> Acceptance:
    """Greedy walk given each node's argmax `u_hat` (and log-probs [num_nodes, vocab] if tau < 1).

    Rule (paper eq. 10): accept u_star, the most probable child, iff
    log p(u_hat) / log p(u_star) >= tau, where u_hat is the argmax over the vocabulary.
    """
    node, path, tokens = 0, [0], []
    while tree.children[node]:
        child = _choose(tree.children[node], u_hat[node], logp, node, tau)
        if child is None:
            break
        node = child
        path.append(node)
        tokens.append(tree.tokens[node])
    return Acceptance(path, tokens, u_hat[node])


def _choose(children: dict[int, int], u_hat: int, logp, node: int, tau: float) -> int | None:
    if u_hat in children:  # u_star == u_hat: the exact greedy match
        return children[u_hat]
    if logp is None:
        return None
    u_star = max(children, key=lambda tok: logp[node, tok].item())
    lp_hat, lp_star = logp[node, u_hat].item(), logp[node, u_star].item()
    # Both are <= 0 and lp_hat >= lp_star, so the ratio lies in [0, 1]; 1 means a tie.
    return children[u_star] if lp_star < 0 and lp_hat / lp_star >= tau else None
