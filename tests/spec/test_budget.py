"""The step's price and the batch's tree size: rows attend over caches of their own."""

from __future__ import annotations

from pytest import approx

from hsd_cli.spec.budget import CostModel, best_size

CURVE = ((1, 0.15), (16, 0.45), (32, 0.73), (64, 1.26), (128, 2.35))  # full-size HunyuanOCR, CPU (s)
PER_ROW = ((1, 0.0), (4, 0.2), (16, 0.64))  # 1024-token rows: 16 one-token rows 1.09 s, not 0.45


def test_a_batch_step_prices_its_tokens_and_its_rows():
    cost = CostModel(CURVE, PER_ROW)
    assert cost.step(1, 16) == cost(16) == approx(0.45)  # one row: the curve alone
    assert cost.step(16, 1) == approx(0.45 + 0.64)
    assert cost.step(16, 4) == approx(1.26 + 0.64)
    assert cost.step(8, 1) == approx(cost(8) + 0.2 + 0.44 * 4 / 12)  # between measured row counts


def test_without_a_row_price_a_batch_costs_its_tokens():
    assert CostModel(CURVE).step(16, 2) == CostModel(CURVE)(32)


def test_priced_rows_let_a_large_batch_keep_its_trees():
    """16 rows whose drafts are accepted at 0.9 a token: with every row's own attention priced,
    the step's fixed part is larger, so a token of tree costs relatively less and trees grow."""
    gains = [[0.9**i for i in range(1, 17)] for _ in range(16)]
    tokens_only, priced = CostModel(CURVE), CostModel(CURVE, PER_ROW)
    assert best_size(gains, tokens_only, 16) < best_size(gains, priced, 16)
    one = gains[:1]
    assert best_size(one, tokens_only, 16) == best_size(one, priced, 16)  # one row: nothing changes


def test_a_step_is_priced_at_its_rows_cache_length():
    """Each cache slot a row reads costs `slot` beyond the curve's own row of `base` slots;
    a caller that does not know the length pays for the typical row's."""
    cost = CostModel(CURVE, PER_ROW, slot=25e-6, base=256, context=1024)
    assert cost.step(1, 16, 256) == approx(0.45)  # the curve's own row
    assert cost.step(8, 1, 512) == approx(CostModel(CURVE, PER_ROW).step(8, 1) + 25e-6 * (8 * 512 - 256))
    assert cost.step(8, 1, 1024) - cost.step(8, 1, 512) == approx(8 * 512 * 25e-6)
    assert cost.step(4, 2) == cost.step(4, 2, 1024)
    assert cost.step(1, 1, 100) == cost(1)  # a shorter cache than the curve's is not priced below it


def test_short_caches_keep_a_batch_from_widening_trees_that_do_not_pay():
    """Issue 22: 8 rows over 500-slot caches were priced as over 1024 slots; the step's fixed part,
    priced too high, made wider trees look cheap. Priced at their length, trees stay narrower."""
    gains = [[0.7**i for i in range(1, 17)] for _ in range(8)]
    cost = CostModel(CURVE, PER_ROW, slot=25e-6, base=256, context=1024)
    assert best_size(gains, cost, 16, 500) < best_size(gains, cost, 16, 4096)
    flat = CostModel(CURVE, PER_ROW)
    assert best_size(gains, flat, 16, 500) == best_size(gains, flat, 16, 4096)  # no slot price: no change
