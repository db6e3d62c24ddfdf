"""Each page's drafts start from their source's measured acceptance (its `prior`, driver/priors.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from decoding import decode_page
from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PageImage, PreparedPage, StageReport
from hsd_cli.drafts import RapidOcrSource, TextLayerSource
from hsd_cli.driver import rows as rows_module
from hsd_cli.driver.converter import TargetConverter
from hsd_cli.driver.priors import fitted, prior_for
from hsd_cli.methods.base import PageDrafts, PageWork, RowsDone, RowsRequest
from hsd_cli.spec.budget import DEFAULT_PRIOR, AcceptPrior

MADE_UP = AcceptPrior((0.1, 0.1, 0.1, 0.1), 0.5)
TEXT_LAYER, OCR = fitted(*TextLayerSource.prior), fitted(*RapidOcrSource.prior)


def _chain(prior: AcceptPrior, depth: int = 48) -> float:
    """Expected accepted tokens of one chain of `depth` after a full window match."""
    return prior.first[3] * (1 - prior.cont**depth) / (1 - prior.cont)


def test_sources_rank_by_draft_quality_and_unknown_keeps_todays_prior():
    assert prior_for("text_layer") == TEXT_LAYER and prior_for("rapidocr") == OCR
    assert prior_for("") == prior_for("noise") == DEFAULT_PRIOR
    for a, b in ((TEXT_LAYER, OCR), (OCR, DEFAULT_PRIOR)):
        assert all(x > y for x, y in zip(a.first, b.first, strict=True)) and a.cont > b.cont


def test_priors_match_the_oracle_benchmark():
    """Page-method AAL by draft source measured by hsd bench --oracle at 5e5dbb6: 8.51 text layer, 4.99 rapidocr."""
    assert abs(_chain(TEXT_LAYER) - 8.51) < 0.5
    assert abs(_chain(OCR) - 4.99) < 0.5
    assert _chain(DEFAULT_PRIOR) < 3.1  # today's: below both measured sources


class _TwoRequests:
    """A method whose job asks for one request without a prior and one with its own."""

    name, uses_drafts = "fake", True

    def start(self, work):
        spec = work.spec
        yield RowsRequest((), "p", ([],), spec)
        yield RowsRequest((), "p", ([],), spec, prior=MADE_UP)
        return PageDecode([], False, None, StageReport())


def _work(source: str) -> PageWork:
    page = PageImage(Path("x.png"), 0, Image.new("RGB", (8, 8)), 72)
    return PageWork(None, page, [], PageDrafts([]), SpecConfig(), source)


def test_the_driver_gives_requests_the_pages_draft_source_prior(monkeypatch):
    seen = []
    from hsd_cli.driver import batch as batch_module

    def admit(self, live):  # record the request's prior, hand back no rows
        seen.append(live.request.prior)
        self._resume(live, lambda j: j.send(RowsDone((), StageReport())))

    monkeypatch.setattr(batch_module.Batcher, "_admit", admit)
    decode_page(_TwoRequests(), _work("text_layer"))
    assert seen == [TEXT_LAYER, MADE_UP]  # a method's own choice stays
    seen.clear()
    decode_page(_TwoRequests(), _work(""))
    assert seen == [DEFAULT_PRIOR, MADE_UP]


def test_page_work_defaults_to_no_draft_source():
    page = PageImage(Path("x.png"), 0, Image.new("RGB", (8, 8)), 72)
    assert PageWork(None, page, [], PageDrafts([]), SpecConfig()).draft_source == ""


def test_the_converter_passes_the_prepared_pages_draft_source():
    page = PageImage(Path("x.png"), 0, Image.new("RGB", (8, 8)), 72)
    conv = TargetConverter(_TwoRequests(), SimpleNamespace(spec=SpecConfig()), target=object(), element_level=False)
    work = conv._work(PreparedPage(page, (), "rapidocr"), PageDrafts([]))
    assert work.draft_source == "rapidocr"


def test_a_requests_prior_reaches_the_loop():
    session = SimpleNamespace(prompt_ids=[[1]], forward_calls=0)
    target = SimpleNamespace(
        eos_ids=frozenset(),
        boundary_ids=frozenset(),
        repetition_penalty=1.0,
        device="cpu",
        cost=None,
        pass_prices=None,
        prefill=lambda images, prompt: (session, None),
    )
    request = RowsRequest((), "p", ([],), SpecConfig(cost_aware=False), prior=MADE_UP)
    assert rows_module.prefill(target, request).opts.prior == MADE_UP
