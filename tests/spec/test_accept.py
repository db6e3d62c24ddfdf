"""Acceptance rule: tau = 1 is exact greedy; tau < 1 takes near-ties, rejects clear losers."""

import math

import torch

from hsd_cli.spec.accept import accept_nodes
from hsd_cli.spec.tree import build_tree


def _logp(rows: list[dict[int, float]], vocab: int = 10) -> torch.Tensor:
    """Log-probabilities [num_nodes, vocab] with the given per-node token probabilities (rest spread evenly)."""
    out = torch.empty(len(rows), vocab)
    for i, probs in enumerate(rows):
        rest = (1.0 - sum(probs.values())) / (vocab - len(probs))
        out[i] = torch.tensor([math.log(probs.get(t, rest)) for t in range(vocab)])
    return out


def test_perfect_match():
    acc = accept_nodes(build_tree(0, [[1, 2]]), [1, 2, 3], tau=1.0)
    assert acc.tokens == [1, 2] and acc.path == [0, 1, 2] and acc.bonus == 3


def test_early_mismatch():
    acc = accept_nodes(build_tree(0, [[1, 2]]), [4, 2, 3], tau=1.0)
    assert acc.tokens == [] and acc.path == [0] and acc.bonus == 4


def test_picks_the_branch_the_model_agrees_with():
    tree = build_tree(0, [[1, 2], [5, 6]])  # nodes: 0, 1, 2, 5, 6
    acc = accept_nodes(tree, [5, 0, 0, 6, 7], tau=1.0)
    assert acc.tokens == [5, 6] and acc.path == [0, 3, 4] and acc.bonus == 7  # Not [1, 2]: that branch is wrong


def test_tau_one_rejects_near_tie_without_log_probs():
    """tau = 1 needs only the argmax: the loop passes no log-probs."""
    acc = accept_nodes(build_tree(0, [[1]]), [2, 0], tau=1.0, logp=None)
    assert acc.tokens == [] and acc.bonus == 2


def test_tau_one_rejects_near_tie_with_log_probs():
    acc = accept_nodes(build_tree(0, [[1]]), [2, 0], tau=1.0, logp=_logp([{2: 0.41, 1: 0.40}, {}]))
    assert acc.tokens == [] and acc.bonus == 2


def test_tau_below_one_accepts_near_tie():
    acc = accept_nodes(build_tree(0, [[1]]), [2, 3], tau=0.75, logp=_logp([{2: 0.41, 1: 0.40}, {3: 0.9}]))
    assert acc.tokens == [1] and acc.path == [0, 1] and acc.bonus == 3


def test_tau_below_one_rejects_clear_loser():
    acc = accept_nodes(build_tree(0, [[1]]), [2, 0], tau=0.75, logp=_logp([{2: 0.9, 1: 0.01}, {}]))
    assert acc.tokens == [] and acc.bonus == 2


def test_tau_below_one_prefers_most_probable_child():
    tree = build_tree(0, [[1], [3]])  # nodes: 0, 1, 3
    logp = _logp([{2: 0.40, 1: 0.10, 3: 0.38}, {}, {5: 0.9}])
    acc = accept_nodes(tree, [2, 0, 5], tau=0.75, logp=logp)
    assert acc.tokens == [3] and acc.bonus == 5  # Not [1]: 1 is the less probable child


def test_empty_tree_gives_bonus_only():
    acc = accept_nodes(build_tree(0, []), [4], tau=1.0)
    assert acc.path == [0] and acc.tokens == [] and acc.bonus == 4
