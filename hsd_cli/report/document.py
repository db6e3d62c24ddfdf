"""`--format json`: one document's pages and blocks as out/<key>.json (docs/hsd-document.schema.json).

Blocks come in reading order with their kind, bbox in page points (1/72 inch) and in pixels of
the page image rendered at the page's dpi, and their final text (blocks.py says where it comes from).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hsd_cli.datatypes import Block, PageResult
from hsd_cli.pages.inputs import printable

DOCUMENT_SCHEMA_VERSION = 1


def document_to_json(source: str, markdown: str | None, results: Iterable[PageResult]) -> dict[str, Any]:
    """The document: its pages in page order, each with its size and blocks."""
    pages = [page_json(r) for r in sorted(results, key=lambda r: r.page)]
    return {
        "schema_version": DOCUMENT_SCHEMA_VERSION,
        "source": printable(source),
        "markdown": markdown,
        "pages": pages,
    }


def page_json(r: PageResult) -> dict[str, Any]:
    scale = 72.0 / r.dpi if r.dpi else None
    return {
        "page": r.page,
        "status": r.status.value,
        "method": r.method,
        "dpi": r.dpi or None,
        "size_px": [r.width, r.height] if r.width else None,
        "size_pt": [_pt(r.width, scale), _pt(r.height, scale)] if r.width and scale else None,
        "coverage": dict(r.coverage),
        "blocks": [block_json(b, scale) for b in r.blocks],
    }


def block_json(b: Block, scale: float | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": b.kind,
        "order": b.order,
        "bbox_pt": [_pt(v, scale) for v in b.bbox] if scale else None,
        "bbox_px": [round(v, 2) for v in b.bbox],
        "text": b.text,
        "source": b.source,
        "tokens": b.tokens,
        "from_draft": b.from_draft,
    }
    if b.html is not None:
        data["html"] = b.html
    if b.caption:
        data["caption"] = b.caption
    if b.image:
        data["image"] = b.image
    return data


def _pt(px: float, scale: float) -> float:
    return round(px * scale, 2)
