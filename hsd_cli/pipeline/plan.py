"""Plan a document: which of its pages to convert, and which an earlier run already finished.

One definition for every engine (local runner, Ray): a page is skipped when its report exists
and was made with the same options from the same source (see report/store.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hsd_cli.config import RunConfig
from hsd_cli.datatypes import PageResult
from hsd_cli.errors import InputError
from hsd_cli.pages.inputs import InputDoc
from hsd_cli.report import store


@dataclass(frozen=True, slots=True)
class DocPlan:
    """One document's work: the pages to convert and those finished in an earlier run."""

    doc: InputDoc
    pages: tuple[int, ...] = ()
    done: dict[int, PageResult] = field(default_factory=dict)
    error: str = ""
    skipped: str = ""  # why there is nothing to do (no page of the document in --pages)
    options: dict[str, object] = field(default_factory=dict)  # the run's, plus the source identity
    kept: dict[int, PageResult] = field(default_factory=dict)  # finished pages outside --pages

    @property
    def todo(self) -> list[int]:
        return [p for p in self.pages if p not in self.done] if not self.error else []


def plan_document(doc: InputDoc, cfg: RunConfig, options: dict[str, object]) -> DocPlan:
    """The plan of `doc` under the run's `options`; a document that cannot be opened has `error`."""
    try:
        n, pages = select_pages(doc, cfg)
        options = {**options, "source": store.source_identity(doc.path)}
    except InputError as e:
        return DocPlan(doc, error=str(e))
    if not pages:
        return DocPlan(doc, skipped=f"no page in --pages {cfg.pages}; it has {n}")
    report_dir = doc.report_dir(cfg.out_dir)
    finished = store.finished_pages(report_dir, list(range(1, n + 1)), options)
    done = {} if cfg.force else {p: finished[p] for p in pages if p in finished}
    kept = {p: r for p, r in finished.items() if p not in pages}
    return DocPlan(doc, tuple(pages), done, options=options, kept=kept)


def select_pages(doc: InputDoc, cfg: RunConfig) -> tuple[int, list[int]]:
    """The page count and the 1-based pages to convert: those of --pages the document has
    (--pages 1-2 suits a one-page document too), then the first --max-pages of those."""
    from hsd_cli.pages.render import count_pages, parse_page_spec

    if doc.error:
        raise InputError(doc.error)
    n = count_pages(doc.path, cfg.password)
    if n < 1:
        raise InputError("document has no pages")
    selected = [i + 1 for i in parse_page_spec(cfg.pages, n, clip=True)]  # syntax: checked by the CLI
    return n, selected[: cfg.max_pages] if cfg.max_pages else selected
