"""The metrics (paper 4.2) pinned with literal numbers; records frozen; totals sum stored times."""

from __future__ import annotations

import dataclasses
import json

import pytest

from hsd_cli import metrics
from hsd_cli.bench.records import MethodRun, PageBench, totals
from hsd_cli.datatypes import PageResult, PageStatus, StageReport
from hsd_cli.report.json import page_from_json, page_to_json
from hsd_cli.report.summary import page_totals, sum_totals

OLD_KEYS = [  # a page report's keys before the baseline's own numbers were stored
    "schema_version",
    "source",
    "page",
    "status",
    "method",
    "draft_source",
    "tau",
    "window",
    "tokens",
    "steps",
    "aal",
    "accepted_hist",
    "t_render",
    "t_draft",
    "t_prefill",
    "t_decode",
    "t_total",
    "stage1",
    "stage2",
    "sr_decode",
    "sr_e2e",
    "identical_to_ar",
    "first_divergence",
    "loop_repaired",
    "error",
    "draft_error",
    "fault",
    "width",
    "height",
    "dpi",
    "coverage",
    "options",
    "blocks",
    "markdown",
]


def page(**kw: object) -> PageResult:
    base = dict(
        source="a.pdf",
        page=1,
        status=PageStatus.OK,
        tokens=12,
        steps=4,
        accepted_hist=[3, 0, 5],
        t_draft=0.5,
        t_prefill=1.0,
        t_decode=1.5,
        t_total=3.0,
    )
    return PageResult(**{**base, **kw})


def test_aal_is_accepted_per_sequence_step() -> None:
    assert metrics.aal(8, 4) == 2.0
    assert metrics.aal(0, 3) == 0.0  # full rejections count 0
    assert metrics.aal(5, 0) == 0.0  # no steps: nothing to average


def test_sr_steps_is_ar_passes_over_the_methods() -> None:
    assert metrics.sr_steps(120, 30) == 4.0
    assert metrics.sr_steps(120, 0) is None


def test_decode_and_full_times() -> None:
    assert metrics.decode_time(t_draft=0.25, t_decode=1.5) == 1.75  # drafts count on the spec side
    assert metrics.full_time(t_draft=0.25, t_prefill=1.0, t_decode=1.5) == 2.75


def test_sr_decode_is_ar_decode_time_over_spec_decode_time() -> None:
    assert metrics.sr_decode(6.0, 1.5) == 4.0
    assert metrics.sr_decode(6.0, 0.0) is None


def test_sr_e2e_is_ar_full_time_over_spec_full_time() -> None:
    assert metrics.sr_e2e(9.0, 3.0) == 3.0
    assert metrics.sr_e2e(9.0, 0.0) is None


def test_page_metrics_come_from_its_stored_counts_and_times() -> None:
    r = page(steps_ar=20, t_decode_ar=6.0, t_total_ar=9.0)
    assert (r.seq_steps, r.accepted, r.aal) == (3, 8, 8 / 3)
    assert r.t_decode_spec == 2.0  # 0.5 drafting + 1.5 decoding
    assert (r.sr_steps, r.sr_decode, r.sr_e2e) == (5.0, 3.0, 3.0)
    assert (page().sr_steps, page().sr_decode, page().sr_e2e) == (None, None, None)


def test_records_are_frozen() -> None:
    for record in (page(), StageReport(steps=1), MethodRun("ar")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.steps = 2  # type: ignore[misc]


def test_totals_sum_the_baselines_stored_times_not_ratios() -> None:
    """Two pages: AR 6 s and 3 s of decoding against 2 s and 3 s of spec decoding (drafts in)."""
    a = page(steps_ar=20, t_decode_ar=6.0, t_total_ar=9.0)
    b = page(page=2, t_draft=1.0, t_decode=2.0, t_total=4.0, steps_ar=10, t_decode_ar=3.0, t_total_ar=5.0)
    t = sum_totals(page_totals(r) for r in (a, b, page(page=3)))  # page 3 had no baseline
    assert (t.baseline_pages, t.t_decode_ar, t.t_decode_spec) == (2, 9.0, 5.0)
    assert (t.t_total_ar, t.t_total_spec, t.steps_ar, t.steps_spec) == (14.0, 7.0, 30, 8)
    assert (t.sr_decode, t.sr_e2e, t.sr_steps) == (9.0 / 5.0, 2.0, 30 / 8)  # not the mean of 3 and 1
    assert (t.seq_steps, t.accepted, t.aal) == (9, 24, 24 / 9)


def test_bench_totals_use_the_same_definitions() -> None:
    ar = MethodRun("ar", steps=40, seq_steps=40, t_decode=8.0, t_total=10.0)
    spec = MethodRun("page", steps=10, seq_steps=10, accepted=30, t_draft=1.0, t_decode=1.0, t_total=4.0)
    (_, tot) = totals([PageBench("x", 1, "image", runs={"ar": ar, "page": spec})], ("ar", "page"))
    assert (tot.aal, tot.sr_steps, tot.sr_decode, tot.sr_e2e) == (3.0, 4.0, 4.0, 2.5)


def test_report_without_baseline_keeps_its_keys_in_order() -> None:
    assert list(page_to_json(page(), {})) == OLD_KEYS


def test_report_with_baseline_adds_its_own_numbers_and_round_trips() -> None:
    r = page(steps_ar=20, t_decode_ar=6.0, t_total_ar=9.0, identical_to_ar=True)
    data = json.loads(json.dumps(page_to_json(r, {})))
    added = ["steps_ar", "t_decode_ar", "t_total_ar", "sr_steps"]
    assert [k for k in data if k not in OLD_KEYS] == added
    assert (data["sr_decode"], data["sr_e2e"], data["sr_steps"]) == (3.0, 3.0, 5.0)
    assert page_from_json(data) == r


def test_old_report_with_ratios_only_is_redone() -> None:
    """A report that stored speedups but not the baseline's times cannot feed totals honestly."""
    data = page_to_json(page(), {})
    assert page_from_json(data) == page()  # same fields as before: read back
    with pytest.raises(ValueError, match="baseline"):
        page_from_json({**data, "sr_decode": 3.0, "sr_e2e": 2.0})
