"""The stages of a page, one definition for every engine: prepare -> verify -> write.

`prepare` is CPU work (open, render, text layer, layout, OCR): every second of it is `t_render`
or `t_draft`, and a method that uses no drafts (`ar`) pays for rendering only. Rendering (what
the prefill needs) and drafting are two steps: beside a model with drafting workers, a page may
start once rendered and its drafts follow (pipeline/drafting.py). `verify` is the converter's
`convert(prepared)` (the model). `write` lives in the runner. The local runner, its background
workers (pipeline/workers.py) and `hsd bench` all call these same functions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from hsd_cli.config import AUTO_SOURCE
from hsd_cli.datatypes import PageImage, PreparedPage, Region
from hsd_cli.drafts.base import DraftSource


@dataclass(frozen=True, slots=True)
class PrepareConfig:
    """What `prepare` needs; picklable, so worker processes rebuild the same preparer."""

    dpi: int = 144
    password: str | None = None
    drafts: str | None = AUTO_SOURCE  # --draft-source (config.draft_source_choices); None: no drafts
    ocr_threads: int | None = None  # the OCR engines' threads; None: every CPU the process may use
    draft_delay: float = 0.0  # seconds added to each page's drafting (HSD_DRAFT_DELAY: a testing knob)
    draft_device: str | None = None  # where drafting's models run (torch_engines.follow_target)


class Preparer:
    """prepare(path, page): render one page and make its drafts; draft engines load once."""

    def __init__(self, cfg: PrepareConfig) -> None:
        self.cfg = cfg
        self._sources = None
        self._running: tuple[Path, object] | None = None  # (document, its RunningLines)

    def __call__(self, path: Path, page: int) -> PreparedPage:
        from hsd_cli.pages.damage import page_damage, take_warnings
        from hsd_cli.pages.render import open_document, render_page

        t0 = time.perf_counter()
        take_warnings()  # what MuPDF said before is another page's
        with open_document(path, self.cfg.password) as doc:
            opened = take_warnings()
            image = render_page(doc, page - 1, self.cfg.dpi)
            # Drawing the page reads all of it; drafting may read other pages (running headers).
            damage = page_damage(doc.pdf is not None and doc.pdf.is_repaired, opened, take_warnings())
            t_render = time.perf_counter() - t0
            prepared = PreparedPage(image, t_render=t_render)
            if self.cfg.drafts is not None:
                prepared = self._drafted(doc, image, t_render)
            return replace(prepared, damage=damage)

    def _drafted(self, doc, image: PageImage, t_render: float) -> PreparedPage:
        from hsd_cli.drafts.validity import unreadable_layer
        from hsd_cli.pages import partial

        t1 = time.perf_counter()
        try:
            image, regions, source = self._draft(doc, image)
        except Exception as e:  # noqa: BLE001 - a draft crash costs the drafts, not the page
            error = f"{type(e).__name__}: {e}".splitlines()[0][:200]
            return PreparedPage(image, (), "", t_render, time.perf_counter() - t1, error)
        # A text layer `auto` or a layer source could have drafted from, unreadable: OCR drafts, or none.
        note = unreadable_layer(image.text_spans) if self.cfg.drafts == AUTO_SOURCE or source.exact else ""
        time.sleep(self.cfg.draft_delay)  # drafting slowed on purpose (tests of pages not waiting)
        t_draft = time.perf_counter() - t1
        note = partial.notes(note, image.unread)  # and what of the page's own analysis failed
        return PreparedPage(image, tuple(regions), source.name, t_render, t_draft, draft_note=note)

    def _draft(self, doc, image: PageImage) -> tuple[PageImage, list[Region], DraftSource]:
        from hsd_cli.drafts import running, side_folios
        from hsd_cli.pages.render import text_turn

        turn = text_turn(doc, image)
        image, found, source = self._read_turned(doc, image, turn) if turn else self._read(doc, image)
        regions = side_folios.relabel(running.relabel(found, self._running_lines(doc), image.image.height))
        return image, regions, source

    def _read(self, doc, image: PageImage) -> tuple[PageImage, list[Region], DraftSource]:
        from hsd_cli.drafts import AutoSource
        from hsd_cli.pages.render import with_layout, with_text_layer

        if self._sources is None:
            self._sources = AutoSource(self.cfg.drafts, self.cfg.ocr_threads, self.cfg.draft_device)
        image = with_text_layer(doc, image)
        source = self._sources.select(image)
        if source.wants_layout:  # layout analysis only where its drafts use it
            image = with_layout(doc, image, self.cfg.ocr_threads)
        found = _ocr_regions(doc, image, source) if source.wants_ocr_render else source.regions(image)
        if source.exact and self.cfg.drafts == AUTO_SOURCE and doc.pdf is not None:
            found = self._with_ink_text(doc, image, found)
        return image, found, source

    def _with_ink_text(self, doc, image: PageImage, found: list[Region]) -> list[Region]:
        """Text-layer drafts with the text in no layer read by OCR (the source that reads any page
        image): a letter scanned into an exhibit, a scan under a watermark, type in outlines."""
        from hsd_cli.drafts.ink_reading import with_ink_text
        from hsd_cli.pages.ink_text import ink_text

        areas = ink_text(doc.pdf_page(image.index), image)
        if not areas:
            return found
        ocr = next(s for s in self._sources.sources.values() if s.wants_ocr_render)
        return with_ink_text(found, image, areas, ocr.regions)

    def _read_turned(self, doc, image: PageImage, turn: int) -> tuple[PageImage, list[Region], DraftSource]:
        """Drafts of a sideways page, read turned upright; boxes back on the page as shown."""
        from hsd_cli.pages.geometry import unrotate_box
        from hsd_cli.pages.render import turned

        view_doc, view = turned(doc, image, turn)
        with view_doc:
            view, found, source = self._read(view_doc, view)
        angle, size = -turn % 360, image.image.size  # PIL's turn (counter-clockwise) back
        found = [replace(r, bbox=unrotate_box(r.bbox, angle, size)) for r in found]
        spans = tuple(replace(s, bbox=unrotate_box(s.bbox, angle, size)) for s in view.text_spans)
        return replace(image, text_spans=spans), found, source

    def _running_lines(self, doc):
        """The document's running headers and footers, found once per document."""
        from hsd_cli.drafts import running
        from hsd_cli.pages.pdftext import band_lines

        if self._running is None or self._running[0] != doc.path:
            found = running.find_running(band_lines(doc.pdf)) if doc.pdf is not None else running.RunningLines()
            self._running = (doc.path, found)
        return self._running[1]


def _ocr_regions(doc, page: PageImage, source) -> list[Region]:
    """OCR regions read from a render at the page's own OCR resolution, in `page`'s pixels."""
    from hsd_cli.pages.render import render_for_ocr

    ocr_page = render_for_ocr(doc, page)
    regions = source.regions(ocr_page)
    if ocr_page is page:
        return regions
    k = page.dpi / ocr_page.dpi
    return [replace(r, bbox=tuple(v * k for v in r.bbox)) for r in regions]


def strip_layer(prepared: PreparedPage) -> PreparedPage:
    """The prepared page without its text spans and layout (what crosses a process boundary)."""
    return replace(prepared, page=replace(prepared.page, text_spans=(), layout=()))
