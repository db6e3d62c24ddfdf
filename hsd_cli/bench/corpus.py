"""Which corpus document an input is (manifest.json), its kind and its ground-truth Markdown."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hsd_cli.datatypes import PageImage
from hsd_cli.drafts.text_layer import has_text_layer
from hsd_cli.pages.inputs import IMAGE_EXTENSIONS

KINDS = ("born-digital", "scanned", "image")


@dataclass(frozen=True, slots=True)
class CorpusDoc:
    """A document listed in a corpus manifest."""

    id: str
    kind: str  # one of KINDS
    markdown_gt: Path | None  # the ground-truth Markdown (whole document), None if unusable
    pages: int


def corpus_doc(path: Path) -> CorpusDoc | None:
    """The manifest entry of `path`, found in a manifest.json of one of its parent folders."""
    path = path.resolve()
    for root in path.parents:
        items = _manifest(root)
        if items is not None:
            item = items.get(path.relative_to(root).as_posix())
            return None if item is None else _doc(root, item)
    return None


def page_kind(page: PageImage, doc: CorpusDoc | None) -> str:
    """born-digital / scanned / image: the manifest's word, else the page's text layer."""
    if doc is not None:
        return doc.kind
    if page.source.suffix.lower() in IMAGE_EXTENSIONS:
        return "image"
    return "born-digital" if has_text_layer(page) else "scanned"


@lru_cache(maxsize=8)
def _manifest(root: Path) -> dict[str, dict] | None:
    file = root / "manifest.json"
    if not file.is_file():
        return None
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        return {item["file"]: item for item in data["items"]}
    except (ValueError, KeyError, TypeError):
        return None


def _doc(root: Path, item: dict) -> CorpusDoc:
    kind = item.get("kind", "")
    word = "image" if kind.startswith("page image") else "scanned" if kind.startswith("scanned") else "born-digital"
    # Whole-document Markdown only: olmOCR-bench unit tests are no transcription.
    md = [g["file"] for g in item.get("ground_truth", []) if g["file"].endswith(".md")]
    return CorpusDoc(item["id"], word, root / md[0] if md else None, int(item.get("pages", 1)))
