"""The per-region-kind acceptance table: which reference tokens are whose, and what was accepted."""

from __future__ import annotations

from hsd_cli.bench.acceptance import MODEL_ONLY, KindCount, by_kind, token_kinds
from hsd_cli.bench.records import MethodRun, PageBench, totals
from hsd_cli.bench.report import kind_table
from hsd_cli.datatypes import RegionKind
from hsd_cli.spec.align import MODEL


def test_tokens_take_the_kind_of_the_longest_span_holding_them():
    offsets = [(0, 4), (4, 9), (9, 12), (20, 25)]
    spans = [(0, 12), (4, 9)]  # a short caption draft also matched inside the text
    kinds = [RegionKind.TEXT, RegionKind.CAPTION]
    assert token_kinds(offsets, spans, kinds) == ["text", "text", "text", MODEL_ONLY]


def test_formulas_and_furniture_are_labelled_as_the_table_says():
    offsets = [(0, 2), (2, 4)]
    assert token_kinds(offsets, [(0, 2), (2, 4)], [RegionKind.EQUATION, RegionKind.FOOTER]) == [
        "formula",
        "header/footer",
    ]


def test_by_kind_counts_draft_tokens_as_accepted_and_model_tokens_as_written():
    counts = by_kind(["text", "text", "table"], [(0, 0), MODEL, (0, 5)])
    assert counts == {"text": KindCount(1, 1), "table": KindCount(1, 0)}


def test_kind_table_sums_pages_and_leaves_ar_out():
    def page(accepted: int, written: int) -> PageBench:
        runs = {
            "ar": MethodRun("ar", by_kind={"text": KindCount(0, accepted + written)}),
            "page": MethodRun("page", by_kind={"text": KindCount(accepted, written)}),
        }
        return PageBench("d.pdf", 1, "image", runs=runs)

    columns, rows = kind_table(totals([page(3, 1), page(1, 3)], ("ar", "page")))
    assert columns == ("region kind", "ref tokens", "page: accepted")
    assert rows == [["text", "8", "4 (50%)"]]
