"""Trees the cost model cut to the root are tried now and then, so acceptance is learned; still lossless."""

from __future__ import annotations

import random
from dataclasses import replace

from decoding import ar_decode
from fake_target import BUSY, EOS, PROMPT, FakeSession, SizedSession, reference

from hsd_cli.config import SpecConfig
from hsd_cli.spec.align import build_index
from hsd_cli.spec.budget import CostModel
from hsd_cli.spec.decode import DecodeOptions, SpecStepper
from hsd_cli.spec.propose import EXPLORE_EVERY, EXPLORE_NODES, Exploration, _cut, _size
from hsd_cli.spec.row import Row
from hsd_cli.spec.stop import StopRule


def _decode(drafts, opts, n=200, cfg=None, prompt=PROMPT[0]):
    rule = StopRule(frozenset(), n)
    s = SizedSession([prompt])
    stepper = SpecStepper()
    stepper.add(s, s.first_logits(), drafts, cfg or SpecConfig(max_new_tokens=n), rule, opts)
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


def test_a_long_cache_keeps_the_trees_a_short_one_cuts():
    """With every slot the row reads priced, a step over a long cache has a larger fixed part, so
    the busy curve's trees pay from the first full window (the stepper passes the session's length)."""
    priced = DecodeOptions(cost=replace(BUSY, slot=0.002))
    long = [0] * 2000 + PROMPT[0]
    _, short = _decode([[reference(60)]], priced, n=60)
    _, wide = _decode([[reference(60, long)]], priced, n=60, prompt=long)
    assert short[:3] == [1, 1, 1] and max(wide[:3]) > 1


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
    row = Row(build_index([[1, 2, 3]], 3, 1))
    assert not _cut(row, 0, offered=5, k=2, cfg=cfg) and row.cut_streak == 0  # short window
    assert not _cut(row, 0, offered=0, k=3, cfg=cfg) and row.cut_streak == 0  # no candidate
    explore, got = Exploration(), []
    for _ in range(2 * EXPLORE_EVERY):
        cut = _cut(row, 0, offered=5, k=3, cfg=cfg)
        got.append(_size(row, 0, cut and explore.now(row.cut_streak >= EXPLORE_EVERY), cfg))
    assert got == ([0] * (EXPLORE_EVERY - 1) + [EXPLORE_NODES]) * 2
    assert not _cut(row, 6, offered=5, k=3, cfg=cfg) and row.cut_streak == 0  # a tree: start again
    assert _size(row, 6, False, cfg) == 6 and _size(row, 0, True, SpecConfig(max_nodes=2)) == 2


def test_a_batch_explores_all_its_due_rows_on_one_step_in_eight():
    """Rows joining every third step: the padded step widens at most once per EXPLORE_EVERY steps."""
    # Quadratic in the step's tokens: no tree pays at any number of rows, so every wide step explores.
    never = CostModel(tuple((2**i, 4.0**i) for i in range(9)))
    ref, rule, cfg, opts = (
        reference(100),
        StopRule(frozenset(), 100),
        SpecConfig(max_new_tokens=100),
        DecodeOptions(cost=never),
    )
    s = SizedSession(PROMPT)
    stepper = SpecStepper()
    stepper.add(s, s.first_logits(), [[ref]], cfg, rule, opts)
    for step in range(60):
        if step % 3 == 0 and step < 18:  # a page joins the running batch
            new = FakeSession(PROMPT)
            stepper.add(new, new.first_logits(), [[ref]], cfg, rule, opts)
        stepper.step()
    wide = [i for i, k in enumerate(s.sizes) if k > 1]
    assert len(wide) >= 3 and all(b - a >= EXPLORE_EVERY for a, b in zip(wide, wide[1:], strict=False))
    while not stepper.done:
        stepper.step()
    results = stepper.results()
    assert len(results) == 7 and all(r.stats.drafted > 0 for r in results)  # every row explored
    assert all(r.tokens == ref for r in results)


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
        got = SpecStepper()
        got.add(s, s.first_logits(), drafts, cfg, rule, DecodeOptions(cost=BUSY))
        while not got.done:
            got.step()
        assert got.results()[0].tokens == ref.tokens and got.results()[0].stop == ref.stop
        explored += s.sizes.count(EXPLORE_NODES + 1)
    assert explored > 0  # the property covered explored trees
