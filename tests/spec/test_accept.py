"""Acceptance rule: tau = 1 is exact greedy; tau < 1 takes near-ties, rejects clear losers."""

import math

import torch

from hsd_cli.spec.accept import accept_path
from hsd_cli.spec.tree import build_tree


def _logits(rows: list[dict[int, float]], vocab: int = 10) -> torch.Tensor:
    """Log-probabilities with the given per-node token probabilities (rest spread evenly)."""
    out = torch.empty(len(rows), vocab)
    for i, probs in enumerate(rows):
        rest = (1.0 - sum(probs.values())) / (vocab - len(probs))
        out[i] = torch.tensor([math.log(probs.get(t, rest)) for t in range(vocab)])
    return out


def test_perfect_match():
    tree = build_tree(0, [[1, 2]])
    acc = accept_path(tree, _logits([{1: 0.9}, {2: 0.9}, {3: 0.9}]), tau=1.0)
    assert acc.tokens == [1, 2] and acc.path == [0, 1, 2] and acc.bonus == 3


def test_early_mismatch():
    tree = build_tree(0, [[1, 2]])
    acc = accept_path(tree, _logits([{4: 0.9}, {2: 0.9}, {3: 0.9}]), tau=1.0)
    assert acc.tokens == [] and acc.path == [0] and acc.bonus == 4


def test_picks_the_branch_the_model_agrees_with():
    tree = build_tree(0, [[1, 2], [5, 6]])
    logits = _logits([{5: 0.9}, {}, {}, {6: 0.9}, {7: 0.9}])
    acc = accept_path(tree, logits, tau=1.0)
    assert acc.tokens == [5, 6] and acc.bonus == 7  # Not [1, 2]: that branch is wrong


def test_tau_one_rejects_near_tie():
    tree = build_tree(0, [[1]])
    acc = accept_path(tree, _logits([{2: 0.41, 1: 0.40}, {}]), tau=1.0)
    assert acc.tokens == [] and acc.bonus == 2


def test_tau_below_one_accepts_near_tie():
    tree = build_tree(0, [[1]])
    logits = _logits([{2: 0.41, 1: 0.40}, {3: 0.9}])
    acc = accept_path(tree, logits, tau=0.75)
    assert acc.tokens == [1] and acc.bonus == 3


def test_tau_below_one_rejects_clear_loser():
    tree = build_tree(0, [[1]])
    acc = accept_path(tree, _logits([{2: 0.9, 1: 0.01}, {}]), tau=0.75)
    assert acc.tokens == [] and acc.bonus == 2


def test_tau_below_one_prefers_most_probable_child():
    tree = build_tree(0, [[1], [3]])
    logits = _logits([{2: 0.40, 1: 0.10, 3: 0.38}, {}, {5: 0.9}])
    acc = accept_path(tree, logits, tau=0.75)
    assert acc.tokens == [3] and acc.bonus == 5


def test_empty_tree_gives_bonus_only():
    acc = accept_path(build_tree(0, []), _logits([{4: 0.5}]), tau=1.0)
    assert acc.path == [0] and acc.tokens == [] and acc.bonus == 4
