"""Running headers and footers found by repetition across a document's pages."""

from __future__ import annotations

import pymupdf

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.drafts import page_markdown
from hsd_cli.drafts.running import RunningLines, find_running, relabel
from hsd_cli.pages.bands import BandLine
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer

H = 1000
HEADER = "Journal of Examples, Vol. 7"
NOTES = ("On cats", "On dogs", "On owls", "On bees")


def band_pages(n: int) -> list[list[BandLine]]:
    """`n` pages with a running header, a numbered footer, and a first line that differs."""
    return [
        [BandLine(0.02, 0.04, HEADER), BandLine(0.95, 0.97, f"Page {k + 1} of {n}"), BandLine(0.1, 0.11, NOTES[k])]
        for k in range(n)
    ]


def region(text: str, y0: float) -> Region:
    return Region((100, y0, 600, y0 + 20), RegionKind.TEXT, 0, text)


def test_repeated_band_lines_are_running_and_one_offs_are_not() -> None:
    running = find_running(band_pages(4))
    assert running.keys == {(RegionKind.HEADER, "journal of examples, vol. #"), (RegionKind.FOOTER, "page # of #")}
    assert find_running(band_pages(2)).keys == running.keys  # two pages are enough
    assert find_running(band_pages(1)).keys == frozenset()


def test_only_regions_made_of_running_lines_are_relabelled() -> None:
    """Nothing of the body is lost: a band region with other words, or one mid-page, stays."""
    running = find_running(band_pages(4))
    regions = [
        region(HEADER.replace("7", "8"), 20),
        region("Page 9 of 12", 960),
        region(f"{HEADER} announces its first issue", 20),  # body words beside the running line
        region(HEADER, 500),  # mid-page: a quotation of the title, not furniture
    ]
    kinds = [r.kind for r in relabel(regions, running, H)]
    assert kinds == [RegionKind.HEADER, RegionKind.FOOTER, RegionKind.TEXT, RegionKind.TEXT]
    assert relabel(regions, RunningLines(), H) == regions


def test_preparer_drops_a_running_header_of_a_pdf(tmp_path) -> None:
    """A header repeated on every page leaves the page's Markdown; the body is whole."""
    doc = pymupdf.open()
    for k in range(4):
        page = doc.new_page(width=400, height=600)
        # At body size and below the top 6%: no single-page rule takes it for furniture.
        page.insert_text((40, 60), "Annual Report of the Society", fontsize=11)
        page.insert_text((40, 200), f"Body paragraph number {k} says what happened this year.", fontsize=11)
    path = tmp_path / "report.pdf"
    doc.save(path)
    prepared = Preparer(PrepareConfig(dpi=72, drafts="text"))(path, 2)
    markdown = page_markdown(list(prepared.regions))
    assert "Annual Report" not in markdown
    assert "Body paragraph number 1 says what happened this year." in markdown
