"""The step's price and the batch's tree size: rows attend over caches of their own."""

from __future__ import annotations

from pytest import approx

from hsd_cli.spec.budget import Buckets, CostModel, PassPrices, best_size

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


def _prices(cost: CostModel, passes: dict[tuple[int, int], float], times: int = 20) -> PassPrices:
    """Prices after `times` passes of each (rows, width) shape, each taking `ratio` x its price."""
    prices = PassPrices()
    for (rows, width), ratio in passes.items():
        for _ in range(times):
            prices.observe(cost, rows, width, 0, ratio * cost.step(rows, width))
    return prices


def test_passes_that_cost_more_than_their_price_shrink_the_batchs_trees():
    """Issue 22: 8 rows of wide trees took ~25% over their price on a CPU while one-token rows
    took their price; learned from the run's own passes, the batch's trees shrink."""
    cost = CostModel(CURVE, PER_ROW, measured=True)
    gains = [[0.8**i for i in range(1, 17)] for _ in range(8)]
    prices = _prices(cost, {(8, 1): 1.0, (8, 2): 1.0, (8, 4): 1.25, (8, 8): 1.25, (8, 16): 1.25})
    assert prices.factor(8, 8) > 1.2 * prices.factor(8, 1)
    assert best_size(gains, cost, 16, prices=prices) < best_size(gains, cost, 16)


def test_a_uniform_error_changes_no_tree_and_a_made_up_cost_model_learns_nothing():
    """Every shape 30% over: the overall ratio is no reason to resize; a flat or test cost model
    (not measured on this device) is never corrected, so its runs stay reproducible."""
    measured = CostModel(CURVE, PER_ROW, measured=True)
    gains = [[0.8**i for i in range(1, 17)] for _ in range(8)]
    uniform = _prices(measured, {(8, w): 1.3 for w in (1, 2, 4, 8, 16)})
    assert best_size(gains, measured, 16, prices=uniform) == best_size(gains, measured, 16)
    made_up = CostModel(CURVE, PER_ROW)
    assert _prices(made_up, {(8, 1): 0.5, (8, 8): 2.0}).total == [0.0, 0.0]
    skewed = _prices(CostModel(CURVE, PER_ROW, measured=True), {(8, 1): 0.5, (8, 8): 2.0})
    assert best_size(gains, made_up, 16, prices=skewed) == best_size(gains, made_up, 16)


def test_a_shape_seen_rarely_or_not_at_all_takes_the_runs_overall_ratio():
    """One stalled pass does not price a shape: it is clipped and shrunk to the overall ratio."""
    cost = CostModel(CURVE, PER_ROW, measured=True)
    prices = _prices(cost, {(8, 1): 1.1})
    assert prices.factor(8, 16) == approx(1.1)  # never seen
    prices.observe(cost, 8, 16, 0, 50 * cost.step(8, 16))  # a stall
    assert 1.1 < prices.factor(8, 16) < 1.5
    assert PassPrices().factor(4, 4) == 1.0


def test_the_summary_names_each_shape_seen_by_its_smallest_rows_and_width():
    cost = CostModel(CURVE, PER_ROW, measured=True)
    (cell,) = _prices(cost, {(6, 5): 1.2}, times=3).summary()
    assert (cell["rows"], cell["width"], cell["passes"]) == (4, 4, 3)
    assert cell["measured_over_priced"] == approx(1.2) == cell["factor"]


def test_steps_price_every_width_as_step_does():
    """best_size prices all widths of a pass at once: each the float step() gives."""
    cost = CostModel(CURVE, PER_ROW, slot=25e-6, base=256, context=1024)
    for rows, context in ((1, None), (8, 700), (32, 2000)):
        assert cost.steps(rows, 40, context) == [cost.step(rows, w, context) for w in range(1, 41)]
    listed = CostModel([[1, 1.0], [8, 2.0]])  # not hashable: priced without the cache
    assert listed.steps(2, 3) == [listed.step(2, w) for w in (1, 2, 3)]


BUCKETS = Buckets(rows=(1, 2, 4, 8), widths=(1, 8, 16, 32), slots=(256, 512, 1024))


def test_an_engine_that_pads_to_buckets_is_priced_at_its_bucket():
    """A static engine runs 3 rows of 9-token trees over 300 slots as 4 x 16 over 512: that is
    what the step costs, and steps() prices every width the same way."""
    cost = CostModel(CURVE, PER_ROW, slot=25e-6, base=256, context=1024, buckets=BUCKETS)
    plain = CostModel(CURVE, PER_ROW, slot=25e-6, base=256, context=1024)
    assert cost.step(3, 9, 300) == plain.step(4, 16, 512)
    assert cost.step(3, 9, 300) == cost.step(4, 16, 500)
    for rows, context in ((1, None), (3, 300), (5, 700)):
        assert cost.steps(rows, 30, context) == [cost.step(rows, w, context) for w in range(1, 31)]


def test_trees_fill_the_bucket_they_pay_for():
    """Sized against bucket prices, a batch's trees (root + nodes) end on a bucket: nodes past the
    unpadded optimum cost nothing more up to the bucket's edge, and each adds gain."""
    gains = [[0.85**i for i in range(1, 31)] for _ in range(3)]
    padded = best_size(gains, CostModel(CURVE, PER_ROW, buckets=BUCKETS), 30)
    assert padded + 1 in BUCKETS.widths
    assert padded + 1 >= best_size(gains, CostModel(CURVE, PER_ROW), 30) + 1
