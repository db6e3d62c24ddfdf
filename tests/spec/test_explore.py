"""Trees the cost model cut to the root are tried now and then, so acceptance is learned; still lossless."""

from __future__ import annotations

import random

from fake_target import BUSY, EOS, PROMPT, FakeSession, SizedSession, reference

from hsd_cli.config import SpecConfig
from hsd_cli.spec.align import build_index
from hsd_cli.spec.decode import DecodeOptions, SpecStepper, _Row, ar_decode
from hsd_cli.spec.propose import EXPLORE_EVERY, EXPLORE_NODES, _explore
from hsd_cli.spec.stop import StopRule


def _decode(drafts, opts, n=200, cfg=None):
    rule = StopRule(frozenset(), n)
    s = SizedSession(PROMPT)
    stepper = SpecStepper(s, s.first_logits(), drafts, cfg or SpecConfig(max_new_tokens=n), rule, opts)
    while not stepper.done:
        stepper.step()
    return stepper.results()[0], s.sizes


def test_a_row_cut_to_the_root_tries_a_small_tree_every_eighth_full_window_step():
    """Exact drafts, pessimistic priors, the busy curve: step 1 matches 1 token, step 2 two, then full windows."""
    ref = reference(200)
    _, sizes = _decode([[ref]], DecodeOptions(cost=BUSY))
    first = next(i for i, k in enumerate(sizes) if k > 1)
    assert sizes[:first] == [1] * first and first == 2 + EXPLORE_EVERY - 1  # the 8th full-window step
    assert sizes[first] == EXPLORE_NODES + 1


def test_exploring_corrects_the_priors_and_trees_come_back():
    """Accepted explored trees raise the row's estimate until the cost model keeps trees by itself."""
    ref = reference(300)
    row, sizes = _decode([[ref]], DecodeOptions(cost=BUSY), n=300)
    assert max(sizes) > EXPLORE_NODES + 1  # a tree the cost model chose, not an exploration
    assert row.stats.steps < 300 // 3 and row.tokens == ref


def test_exploration_is_deterministic():
    ref = reference(120)
    assert _decode([[ref]], DecodeOptions(cost=BUSY), 120)[1] == _decode([[ref]], DecodeOptions(cost=BUSY), 120)[1]


def test_explore_counts_only_cut_full_window_steps_and_resets_on_a_tree():
    cfg = SpecConfig(window=3)
    row = _Row(build_index([[1, 2, 3]], 3, 1))
    assert _explore(row, 0, offered=5, k=2, cfg=cfg) == 0 and row.cut_streak == 0  # short window
    assert _explore(row, 0, offered=0, k=3, cfg=cfg) == 0 and row.cut_streak == 0  # no candidate
    got = [_explore(row, 0, offered=5, k=3, cfg=cfg) for _ in range(2 * EXPLORE_EVERY)]
    assert got == ([0] * (EXPLORE_EVERY - 1) + [EXPLORE_NODES]) * 2
    assert _explore(row, 6, offered=5, k=3, cfg=cfg) == 6 and row.cut_streak == 0  # a tree: start again
    assert _explore(_Row(row.index, cut_streak=EXPLORE_EVERY - 1), 0, 5, 3, SpecConfig(max_nodes=2)) == 2


def test_exploring_stays_lossless():
    """tau = 1 with exploration on the busy curve: exactly the AR tokens, over random drafts."""
    explored = 0
    for seed in range(60):
        rng = random.Random(seed)
        rule = StopRule(frozenset({EOS}), max_new_tokens=80)
        s = FakeSession(PROMPT)
        ref = ar_decode(s, s.first_logits(), rule)[0]
        cut = rng.randrange(len(ref.tokens) + 1)
        noisy = [t if rng.random() > 0.1 else (t + 1) % 11 for t in ref.tokens]
        drafts = [[noisy[cut:] + noisy[:cut]]]
        s = SizedSession(PROMPT)
        cfg = SpecConfig(max_new_tokens=80, window=rng.randint(1, 3))
        got = SpecStepper(s, s.first_logits(), drafts, cfg, rule, DecodeOptions(cost=BUSY))
        while not got.done:
            got.step()
        assert got.results()[0].tokens == ref.tokens and got.results()[0].stop == ref.stop
        explored += s.sizes.count(EXPLORE_NODES + 1)
    assert explored > 0  # the property covered explored trees
