"""The loop: tau = 1 equals AR token for token over many random drafts (toy target)."""

import random

import pytest
import torch
from decoding import ar_decode, spec_decode
from fake_target import EOS, VOCAB, FakeSession

from hsd_cli.config import SpecConfig
from hsd_cli.spec.budget import CostModel
from hsd_cli.spec.decode import DecodeOptions, SpecStepper
from hsd_cli.spec.stats import BatchStop, DecodeStats
from hsd_cli.spec.stop import StopReason, StopRule

PROMPTS = [[1, 2, 3], [4, 5], [6, 7, 8, 9]]
# No cost model, a flat (GPU-like) one and a steep (CPU-like) one, and one corrected by the
# loop's own pass times: tree sizes change, output never.
STEEP = ((1, 1.0), (2, 1.3), (64, 8.0))
COSTS = [None, CostModel(((1, 1.0), (256, 1.2))), CostModel(STEEP), CostModel(STEEP, measured=True)]


def _ar(prompts, rule):
    s = FakeSession(prompts)
    return ar_decode(s, s.first_logits(), rule)


def _corrupt(tokens, rate, rng):
    out = []
    for t in tokens:
        r = rng.random()
        if r < rate / 3:
            continue  # deletion
        out.append(rng.randrange(VOCAB) if r < rate else t)
        if rng.random() < rate / 3:
            out.append(rng.randrange(VOCAB))  # insertion
    return out


def _random_drafts(ref, rng):
    kind = rng.choice(["exact", "corrupt", "empty", "random", "pieces"])
    if kind == "exact":
        return [list(ref)]
    if kind == "corrupt":
        return [_corrupt(ref, rng.choice([0.05, 0.2, 0.5]), rng) for _ in range(rng.randint(1, 3))]
    if kind == "empty":
        return []
    if kind == "random":
        return [[rng.randrange(VOCAB) for _ in range(rng.randint(1, 40))]]
    cuts = sorted(rng.sample(range(len(ref) + 1), min(3, len(ref) + 1)))
    pieces = [ref[a:b] for a, b in zip([0] + cuts, cuts + [len(ref)], strict=False)]
    rng.shuffle(pieces)  # unordered, like Stage-1 outputs
    return pieces


@pytest.mark.parametrize("seed", range(300))
def test_tau_one_equals_ar_over_random_drafts(seed):
    """Lossless property: any drafts, any settings -> exactly the AR tokens and stop reason."""
    rng = random.Random(seed)
    rule = StopRule(frozenset({EOS}), max_new_tokens=rng.choice([1, 5, 60]), repeat_guard=rng.choice([0, 16]))
    ref = _ar(PROMPTS, rule)
    window = rng.randint(1, 4)
    cfg = SpecConfig(
        window=window,
        min_window=rng.randint(1, window),
        max_depth=rng.randint(1, 12),
        max_candidates=rng.randint(1, 6),
        max_new_tokens=rule.max_new_tokens,
        max_nodes=rng.randint(1, 40),
    )
    drafts = [_random_drafts(r.tokens, rng) for r in ref]
    s = FakeSession(PROMPTS)
    opts = DecodeOptions(starts=rng.random() < 0.5, boundary_ids=frozenset({0}), cost=rng.choice(COSTS))
    got = spec_decode(s, s.first_logits(), drafts, cfg, rule, opts)
    assert [g.tokens for g in got] == [r.tokens for r in ref]
    assert [g.stop for g in got] == [r.stop for r in ref]


def test_exact_drafts_need_few_steps():
    """Drafts equal to the AR output: each step accepts up to max_depth tokens."""
    rule = StopRule(frozenset(), max_new_tokens=200)
    ref = _ar(PROMPTS[:1], rule)[0]
    s = FakeSession(PROMPTS[:1])
    got = spec_decode(s, s.first_logits(), [[ref.tokens]], SpecConfig(max_depth=16, max_new_tokens=200), rule)[0]
    assert got.tokens == ref.tokens
    assert ref.stats.steps == 199
    assert got.stats.steps <= 199 // 8  # Not 199: the drafts are verified 16 tokens at a time
    assert got.stats.aal > 8


def test_batched_rows_step_together():
    """One forward per step for all rows: calls = max over rows of steps, not the sum."""
    rule = StopRule(frozenset({EOS}), max_new_tokens=50)
    ref = _ar(PROMPTS, rule)
    s = FakeSession(PROMPTS)
    got = spec_decode(s, s.first_logits(), [[r.tokens] for r in ref], SpecConfig(max_new_tokens=50), rule)
    assert s.calls == max(g.stats.steps for g in got)
    assert s.calls < sum(g.stats.steps for g in got)


@pytest.mark.parametrize("seed", range(60))
def test_repetition_penalty_stays_lossless(seed):
    """With a checkpoint's repetition penalty, each tree node is penalized over its own context."""
    rng = random.Random(seed)
    rule = StopRule(frozenset({EOS}), max_new_tokens=40)
    penalty = rng.choice([1.05, 1.3, 2.0])
    ar_opts = DecodeOptions(penalty=penalty, prompts=PROMPTS)
    s = FakeSession(PROMPTS)
    ref = ar_decode(s, s.first_logits(), rule, ar_opts)
    plain = _ar(PROMPTS, rule)
    drafts = [_random_drafts(r.tokens, rng) for r in ref]
    s = FakeSession(PROMPTS)
    opts = DecodeOptions(penalty=penalty, prompts=PROMPTS, cost=rng.choice(COSTS))
    got = spec_decode(s, s.first_logits(), drafts, SpecConfig(max_new_tokens=40), rule, opts)
    assert [g.tokens for g in got] == [r.tokens for r in ref]
    if seed == 0:
        assert [r.tokens for r in ref] != [p.tokens for p in plain]  # Not a no-op: the penalty bites


def test_batch_stop_cuts_the_last_row_running_alone():
    """Flat prices: rows run while two or more go on; the one left alone is cut, its tokens a prefix."""
    rule = StopRule(frozenset(), max_new_tokens=40)
    ref = _ar(PROMPTS[:2], rule)
    s = FakeSession(PROMPTS[:2])
    drafts = [[ref[0].tokens], []]  # row 0 finishes fast on its exact draft; row 1 crawls
    stop = BatchStop(prices=(1.0, 1.0), saving=0.75)
    got = spec_decode(s, s.first_logits(), drafts, SpecConfig(max_new_tokens=40), rule, DecodeOptions(batch_stop=stop))
    assert got[1].stop is StopReason.CUT and got[1].tokens == ref[1].tokens[: len(got[1].tokens)]
    assert s.calls < 40 - 1  # Not AR's 39 steps: row 1 was cut once it ran alone


def test_batch_stop_prices_rows_against_their_saving():
    stop = BatchStop(prices=(1.0, 1.2, 1.5, 3.5), saving=0.75)
    assert [stop.pays(n) for n in (1, 2, 3, 4, 8)] == [False, True, True, False, True]
    running = [DecodeStats(steps=1)]
    assert not stop(running * 2) and not stop(running)  # before the warm-up: never
    assert stop([DecodeStats(steps=2)])


def _misread(tokens, every):
    """The tokens with every `every`-th one replaced by another (an OCR misread)."""
    return [(t + 1) % EOS if i % every == every - 1 else t for i, t in enumerate(tokens)]


def test_a_misread_costs_one_step():
    """After the model writes another token than its draft, the draft goes on at the expected position."""
    rule = StopRule(frozenset(), max_new_tokens=200)
    ref = _ar(PROMPTS[:1], rule)[0]
    s = FakeSession(PROMPTS[:1])
    cfg = SpecConfig(max_depth=64, max_nodes=400, max_candidates=1, max_new_tokens=200)  # no node budget binds
    got = spec_decode(s, s.first_logits(), [[_misread(ref.tokens, 25)]], cfg, rule, DecodeOptions(own=False))[0]
    assert got.tokens == ref.tokens
    assert got.stats.steps <= 200 // 25 + 1  # one step per misread: the bonus token is the model's


class _Periodic(FakeSession):
    """A target whose greedy output cycles through 0..4 (a table's repeated markup, say)."""

    def first_logits(self):
        return torch.stack([self._next(len(c)) for c in self.cached])

    def step(self, ids, ancestry, depth):
        self.calls += 1
        self.pending = ids.tolist()
        lengths = torch.tensor([len(c) for c in self.cached])[:, None] + depth + 1
        return torch.stack([torch.stack([self._next(n) for n in row]) for row in lengths.tolist()])

    @staticmethod
    def _next(length: int) -> torch.Tensor:
        return torch.nn.functional.one_hot(torch.tensor(length % 5), VOCAB).float()


def test_own_output_drafts_where_no_draft_does():
    """A row with no draft still skips ahead where its output repeats itself; AR does not."""
    rule = StopRule(frozenset(), max_new_tokens=300)
    s = _Periodic(PROMPTS[:1])
    ref = ar_decode(s, s.first_logits(), rule)[0]
    s = _Periodic(PROMPTS[:1])
    got = spec_decode(s, s.first_logits(), [[[]]], SpecConfig(max_new_tokens=300), rule)[0]
    assert got.tokens == ref.tokens and ref.stats.steps == 299
    assert got.stats.steps < 299 // 10


def test_rows_cruising_through_their_drafts_do_not_keep_a_batch_running():
    """A row whose step accepted a whole branch corrected nothing: only correcting rows pay for the step."""
    stop = BatchStop(prices=(1.0, 1.0, 1.0), saving=0.75)
    cruising, correcting = DecodeStats(steps=3, ran_out=True), DecodeStats(steps=3)
    assert not stop([correcting, correcting])  # 1.5 page steps saved for 1
    assert stop([correcting, cruising, cruising])  # Not running on: 0.75 saved for 1


def test_a_row_limit_stops_that_row_alone_at_its_own_budget():
    """Per-row limits (Stage-1 regions near the page's cap) stop a row early; its tokens so far
    are AR's, and the other rows run to the rule's budget."""
    rule = StopRule(frozenset(), max_new_tokens=30)
    ref = _ar(PROMPTS, rule)
    s = FakeSession(PROMPTS)
    opts = DecodeOptions(limits=(30, 7, 30))
    got = spec_decode(s, s.first_logits(), [[r.tokens] for r in ref], SpecConfig(max_new_tokens=30), rule, opts)
    assert [len(g.tokens) for g in got] == [30, 7, 30]
    assert got[1].tokens == ref[1].tokens[:7] and got[1].stop is StopReason.BUDGET
    assert [g.tokens for g in (got[0], got[2])] == [ref[0].tokens, ref[2].tokens]


def test_the_loop_prices_its_passes_only_against_a_measured_cost_model():
    """Every pass's time is recorded against its price when the cost model was measured on the
    device and the pass ran as it was measured; a made-up model (flat, a test's) learns nothing,
    nor does a pass that ran on cores a drafting worker took."""
    rule = StopRule(frozenset({EOS}), max_new_tokens=20)
    drafts = [[r.tokens] for r in _ar(PROMPTS, rule)]
    for measured, short in ((True, 0), (False, 0), (True, 2)):
        s = FakeSession(PROMPTS)
        opts = DecodeOptions(cost=CostModel(STEEP, measured=measured))
        stepper = SpecStepper()
        stepper.add(s, s.first_logits(), drafts, SpecConfig(max_new_tokens=20), rule, opts)
        steps = 0
        while not stepper.done:
            s.priced = steps >= short  # the first `short` passes ran while a worker drafted
            stepper.step()
            steps += 1
        assert stepper.prices.total[1] > 0 if measured else stepper.prices.total == [0.0, 0.0]
        assert sum(c[2] for c in stepper.prices.cells.values()) == (steps - short if measured else 0)


@pytest.mark.parametrize("seed", range(100))
def test_drafts_joining_rows_mid_decode_stay_lossless(seed):
    """Rows that start as AR rows (no drafts) and get drafts at a random step (`attach`, a page
    whose drafts arrived late): the AR tokens and stop reasons, with or without a penalty."""
    rng = random.Random(seed)
    rule = StopRule(frozenset({EOS}), max_new_tokens=rng.choice([5, 60]), repeat_guard=rng.choice([0, 16]))
    penalty = rng.choice([1.0, 1.05, 2.0])
    s = FakeSession(PROMPTS)
    ref = ar_decode(s, s.first_logits(), rule, DecodeOptions(penalty=penalty, prompts=PROMPTS))
    s = FakeSession(PROMPTS)
    stepper = SpecStepper()
    plain = SpecConfig(window=1, max_new_tokens=rule.max_new_tokens)
    first = DecodeOptions(penalty=penalty, prompts=PROMPTS, own=False)
    group = stepper.add(s, s.first_logits(), [[] for _ in PROMPTS], plain, rule, first)
    for _ in range(rng.randint(0, rule.max_new_tokens)):
        if stepper.done:
            break
        stepper.step()
    cfg = SpecConfig(window=rng.randint(1, 4), max_depth=rng.randint(1, 12), max_new_tokens=rule.max_new_tokens)
    stepper.attach(
        group, [_random_drafts(r.tokens, rng) for r in ref], cfg, DecodeOptions(penalty=penalty, cost=rng.choice(COSTS))
    )
    while not stepper.done:
        stepper.step()
    got = stepper.results()
    assert [g.tokens for g in got] == [r.tokens for r in ref]
    assert [g.stop for g in got] == [r.stop for r in ref]


def test_drafts_that_join_a_row_are_verified_from_its_output_on():
    """Exact drafts attached after ten AR steps: the rest takes a few steps, not one per token."""
    rule = StopRule(frozenset(), max_new_tokens=120)
    ref = _ar(PROMPTS[:1], rule)[0]
    s = FakeSession(PROMPTS[:1])
    stepper = SpecStepper()
    plain = SpecConfig(window=1, max_new_tokens=120)
    group = stepper.add(s, s.first_logits(), [[]], plain, rule, DecodeOptions(own=False))
    for _ in range(10):
        stepper.step()
    stepper.attach(group, [[ref.tokens]], SpecConfig(max_depth=16, max_new_tokens=120), DecodeOptions())
    while not stepper.done:
        stepper.step()
    (got,) = stepper.results()
    assert got.tokens == ref.tokens
    assert got.stats.steps <= 10 + 110 // 8  # Not 119: after the join, 16 tokens a step
