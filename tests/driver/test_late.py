"""No page waits for its drafts. With drafting slowed on purpose (made-up delays, counted in forward
passes: a fake clock) and the oracle target (each page writes a known text), every page starts
decoding as soon as the batch has room, before its drafts arrive; they join it mid-decode; the run
takes no more forward passes than `ar`'s (pages per pass >= ar's), and exactly ar's when the drafts
never come; every page's tokens are ar's."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import lined_image

from hsd_cli.bench.oracle import OracleTarget, image_key
from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import PageImage, PreparedPage, Region, RegionKind
from hsd_cli.driver.choose import converter_with

SPEC = SpecConfig(max_new_tokens=40)
BATCH = 2
NEVER = 10**6
DELAYS = (2, 5, 9, 14, NEVER)  # per page: forward passes from the batch reading it to its drafts


class Clocked(OracleTarget):
    """The oracle target, noting the forward pass (`clock`) at which each page was prefilled."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.clock = lambda: 0
        self.started: dict[bytes, int] = {}

    def prefill(self, images, prompt):
        for image in images:
            self.started[image_key(image)] = self.clock()
        return super().prefill(images, prompt)


class SlowDrafts:
    """datatypes.LateDrafts: the drafted page, `delay` forward passes after the batch read the page."""

    def __init__(self, drafted: PreparedPage, clock, delay: int) -> None:
        self.drafted, self.clock = drafted, clock
        self.read = clock()
        self.at = self.read + delay
        self.dropped = False

    def poll(self) -> PreparedPage | None:
        return self.drafted if self.clock() >= self.at else None

    def wait(self) -> PreparedPage:
        raise AssertionError("a page waited for its drafts")

    def drop(self) -> None:
        self.dropped = True


@pytest.fixture(scope="module")
def setup(tiny_target):
    """The oracle target and the pages drafted: each page's text is its draft and its output."""
    target = Clocked(tiny_target("qwen2_5_vl"))
    pages = []
    for i in range(len(DELAYS)):
        image = lined_image(300 + 20 * i, f"Page {i} line")
        text = " ".join(f"Page {i} line {j} of the page." for j in range(4))
        target.expect(image, target.encode(text)[: SPEC.max_new_tokens - 4])
        region = Region((10, 10, 290, 230), RegionKind.TEXT, 0, text, source="text_layer")
        page = PageImage(Path(f"doc{i}.png"), 0, image, 72)
        pages.append(PreparedPage(page, (region,), "text_layer", t_render=0.01, t_draft=0.3))
    return target, pages


def _run(target, pages, method: str, delays=None) -> tuple[dict, int, list[SlowDrafts]]:
    """Each page's (result, decode), the run's forward passes, the pages' late drafts."""
    cfg = RunConfig(inputs=(), out_dir=Path("."), method=method, spec=SPEC, batch_pages=BATCH)
    conv = converter_with(target, cfg)
    target.clock = lambda: len(conv.last_batcher.rows_per_step) if conv.last_batcher else 0
    lates: list[SlowDrafts] = []

    def items():  # read by the batch as it has room
        for i, drafted in enumerate(pages):
            if delays is None:
                yield i, PreparedPage(drafted.page, t_render=drafted.t_render)
                continue
            lates.append(SlowDrafts(drafted, target.clock, delays[i]))
            yield i, PreparedPage(drafted.page, t_render=drafted.t_render, later=lates[-1])

    out = dict(conv.verify_many(items()))
    return out, len(conv.last_batcher.rows_per_step), lates


def test_no_page_waits_for_slow_drafts(setup):
    """Every page is prefilled in the pass gap the batch read it in, before its drafts arrive;
    drafts that came join it (`page`, the text layer's drafts), the rest leave it an `ar` page."""
    target, pages = setup
    ar, ar_passes, _ = _run(target, pages, "ar")
    got, passes, lates = _run(target, pages, "auto", DELAYS)
    assert [got[i][1].tokens for i in range(len(pages))] == [ar[i][1].tokens for i in range(len(pages))]
    for page, late in zip(pages, lates, strict=True):
        started = target.started[image_key(page.page.image)]
        assert started == late.read < late.at  # it did not wait: it started before its drafts came
    assert passes <= ar_passes  # pages per forward pass >= ar's
    results = [got[i][0] for i in range(len(pages))]
    joined = [r.method == "page" and r.draft_source == "text_layer" for r in results]
    assert joined[0] and results[0].accepted_hist and max(results[0].accepted_hist) > 1  # drafts accepted
    assert results[-1].method == "ar" and results[-1].draft_source == "" and lates[-1].dropped
    assert [late.dropped for late in lates] == [not j for j in joined]


def test_drafts_that_never_come_cost_nothing(setup):
    """With no page's drafts made in time, the run is `ar`'s, forward pass for forward pass."""
    target, pages = setup
    ar, ar_passes, _ = _run(target, pages, "ar")
    got, passes, lates = _run(target, pages, "auto", [NEVER] * len(pages))
    assert passes == ar_passes
    assert [got[i][1].tokens for i in range(len(pages))] == [ar[i][1].tokens for i in range(len(pages))]
    assert all(got[i][0].method == "ar" for i in got) and all(late.dropped for late in lates)
