"""The pages a benchmark runs on: rendered once, with their kind and (oracle) reference text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hsd_cli.bench.corpus import CorpusDoc, corpus_doc, page_kind
from hsd_cli.bench.reference import page_references
from hsd_cli.bench.restyle import restyle
from hsd_cli.datatypes import PageImage
from hsd_cli.drafts.markup import DraftStyle
from hsd_cli.errors import InputError
from hsd_cli.pages.inputs import discover
from hsd_cli.pages.render import count_pages, iter_pages, parse_page_spec

ALL_PAGES = 10**6  # open ranges ("5-") are resolved against this, then clipped to the document


@dataclass(frozen=True, slots=True)
class BenchPage:
    page: PageImage
    kind: str  # born-digital / scanned / image
    reference: str | None = None  # oracle mode: the page's ground truth in the target's markup


def collect_pages(
    inputs: tuple[Path, ...],
    pages: str | None,
    max_pages: int | None,
    dpi: int,
    style: DraftStyle | None,
) -> tuple[list[BenchPage], list[str]]:
    """Render the selected pages; with a `style` (oracle mode) only pages with ground truth.

    Returns the pages and one line per skipped document or page saying why.
    """
    out: list[BenchPage] = []
    skipped: list[str] = []
    for doc in discover(inputs):
        try:
            out += _document_pages(doc.path, pages, max_pages, dpi, style, skipped)
        except (InputError, ValueError) as exc:
            skipped.append(f"{doc.path}: {exc}")
    return out, skipped


def _document_pages(path: Path, pages, max_pages, dpi, style, skipped: list[str]) -> list[BenchPage]:
    info = corpus_doc(path)
    if style is not None and info is None:
        skipped.append(f"{path}: not listed in a corpus manifest.json (oracle mode needs ground truth)")
        return []
    if style is not None and info.markdown_gt is None:
        skipped.append(f"{path}: no Markdown ground truth (oracle mode needs a transcription)")
        return []
    n = count_pages(path)
    chosen = [i for i in parse_page_spec(pages, ALL_PAGES) if i < n][:max_pages]
    refs = _references(path, info, n, style) if style is not None else [None] * n
    out = []
    spec = ",".join(str(i + 1) for i in chosen)
    for page in iter_pages(path, pages=spec, dpi=dpi) if chosen else []:
        ref = refs[page.index]
        if style is not None and not (ref or "").strip():
            skipped.append(f"{path} page {page.number}: no ground truth text on this page")
            continue
        out.append(BenchPage(page, page_kind(page, info), ref))
    return out


def _references(path: Path, info: CorpusDoc, n: int, style: DraftStyle) -> list[str]:
    markdown = info.markdown_gt.read_text(encoding="utf-8")
    pdf = path if path.suffix.lower() == ".pdf" else None
    return [restyle(text, style) for text in page_references(pdf, markdown, n)]
