"""On OCR'd pages the valid text layer wins where it has lines; broken lines stay with OCR."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.overlay import prefer_text_layer, valid_lines


def test_layer_line_replaces_the_ocr_line_it_covers() -> None:
    ocr = [TextSpan((10, 10, 300, 40), "THEPOWER OFSTORYTELLING"), TextSpan((10, 100, 200, 130), "THEVISION")]
    layer = valid_lines((TextSpan((5, 8, 310, 42), "THE POWER OF STORYTELLING"),))
    texts = sorted(s.text for s in prefer_text_layer(ocr, layer))
    assert texts == ["THE POWER OF STORYTELLING", "THEVISION"]  # OCR keeps what the layer lacks


def test_broken_layer_lines_are_not_trusted_and_boxes_scale() -> None:
    spans = (TextSpan((0, 0, 10, 10), "\ufffd\ufffd\ufffdx"), TextSpan((0, 20, 10, 30), "ok"))
    lines = valid_lines(spans, scale=2.0)
    assert [(s.text, s.bbox) for s in lines] == [("ok", (0.0, 40.0, 20.0, 60.0))]
    ocr = [TextSpan((0, 0, 20, 20), "read by OCR")]
    assert [s.text for s in prefer_text_layer(ocr, lines)] == ["read by OCR", "ok"]
