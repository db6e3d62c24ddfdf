"""Damaged inputs built from the sample documents: PDFs cut short, a text layer whose font maps
its glyphs to the wrong letters (tests/pages, tests/pipeline)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"


def cut_short(name: str, size: int, out: Path) -> Path:
    """The sample `name` cut after `size` bytes, as a download that stopped, written to `out`."""
    out.write_bytes((SAMPLES / name).read_bytes()[:size])
    return out


def garbage_layer_pdf(lines: int = 6) -> bytes:
    """A page set in an 8-bit font of full-width glyphs with no Unicode map, as CJK subset fonts
    are: MuPDF reads its codes as Latin letters, while every glyph is one em wide (a square)."""
    doc = pymupdf.open()
    page = doc.new_page()
    codes = range(0x21, 0x7F)
    procs = {}
    for code in codes:  # each glyph a filled square one em wide, named as no Unicode letter
        procs[code] = doc.get_new_xref()
        doc.update_object(procs[code], "<<>>")
        doc.update_stream(procs[code], b"1000 0 0 0 1000 1000 d1 100 100 800 800 re f")
    names = " ".join(f"/g{c} {x} 0 R" for c, x in procs.items())
    diffs = " ".join(f"{c} /g{c}" for c in codes)
    font = doc.get_new_xref()
    doc.update_object(
        font,
        f"<</Type/Font/Subtype/Type3/FontBBox[0 0 1000 1000]/FontMatrix[0.001 0 0 0.001 0 0]"
        f"/CharProcs<<{names}>>/Encoding<</Type/Encoding/Differences[{diffs}]>>"
        f"/FirstChar {codes[0]}/LastChar {codes[-1]}/Widths[{' '.join('1000' for _ in codes)}]>>",
    )
    doc.xref_set_key(page.xref, "Resources", f"<</Font<</F1 {font} 0 R>>>>")
    shown = []
    for i in range(lines):
        text = bytes(0x21 + (7 * i + k) % len(codes) for k in range(30))
        text = text.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
        shown.append(b"BT /F1 12 Tf 72 %d Td (%s) Tj ET" % (720 - 18 * i, text))
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, b"\n".join(shown))
    doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    return doc.tobytes()
