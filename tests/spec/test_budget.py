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
