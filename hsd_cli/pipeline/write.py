"""The write stage of a document, one definition for every engine: page reports as results
come, the Markdown, summary.json, all atomic (report/store.py) and under the document's lock.

The local runner writes a document's pages in order and rewrites its Markdown after each page;
the Ray driver writes pages as they stream back from the workers, in any order, and the
Markdown once the document is finished. Either way the Markdown holds every finished page, also
those outside this run's --pages, and the final file is the same.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from PIL import Image

from hsd_cli.config import RunConfig
from hsd_cli.datatypes import PageResult
from hsd_cli.errors import OutputError
from hsd_cli.pages.inputs import InputDoc
from hsd_cli.pipeline.plan import DocPlan
from hsd_cli.report import store
from hsd_cli.report.document import document_to_json
from hsd_cli.report.figures import save_figures
from hsd_cli.report.json import doc_summary_to_json, page_to_json
from hsd_cli.report.markdown import render_document
from hsd_cli.report.summary import DocSummary, failed_document, summarize_document


class DocumentWriter:
    """Writes one planned document; use inside `locked()`."""

    def __init__(self, plan: DocPlan, cfg: RunConfig, markdown_each_page: bool = True) -> None:
        self.plan, self.cfg, self.markdown_each_page = plan, cfg, markdown_each_page
        self.report_dir = plan.doc.report_dir(cfg.out_dir)
        self.markdown = plan.doc.markdown_path(cfg.out_dir)
        self.json = plan.doc.json_path(cfg.out_dir)
        self.results: dict[int, PageResult] = dict(plan.done)
        self.converted = 0
        self._fresh: dict[int, PageResult] = {}

    @contextmanager
    def locked(self, on_wait: Callable[[], None] | None = None) -> Iterator[DocumentWriter]:
        """Hold the document's lock; pages another run finished while we waited are taken as
        they are (see `take_fresh`)."""
        waited = [False]

        def wait() -> None:
            waited[0] = True
            if on_wait is not None:
                on_wait()

        with store.document_lock(self.report_dir, wait):
            store.remove_stale_temps(self.report_dir, self.markdown, self.json)  # ours alone: we hold the lock
            if waited[0] and not self.cfg.force:
                self._fresh = store.finished_pages(self.report_dir, self.plan.todo, self.plan.options)
            yield self

    def take_fresh(self, page: int) -> bool:
        """True when another run finished `page` while this one waited: its result is kept."""
        if page not in self._fresh:
            return False
        self.results[page] = self._fresh[page]
        return True

    def write(self, result: PageResult, image: Image.Image | None = None) -> None:
        """Record one converted page: its figure crops (--images, from the page `image`), its
        report, and the document outputs when written per page."""
        if self.cfg.images:  # crops first: a page report means its figures are there
            result = save_figures(result, image, self.report_dir, PurePosixPath(self.plan.doc.key).name)
        self.results[result.page], self.converted = result, self.converted + 1
        store.write_json(store.page_report_path(self.report_dir, result.page), page_to_json(result, self.plan.options))
        if self.markdown_each_page:
            self._write_markdown()

    def finish(self) -> DocSummary:
        """The Markdown (when not yet written) and summary.json; the document's summary."""
        if self.results and (not self.converted or not self.markdown_each_page):
            self._write_markdown()
        plan, doc = self.plan, self.plan.doc
        resumed = len(self.results) - self.converted
        summary = summarize_document(str(doc.path), doc.key, len(plan.pages), self.results.values(), resumed)
        store.write_json(self.report_dir / "summary.json", doc_summary_to_json(summary, plan.options))
        return summary

    def _write_markdown(self) -> None:
        """The document's Markdown and/or JSON (--format), from every finished page."""
        pages = {**self.plan.kept, **self.results}.values()
        if "md" in self.cfg.formats:
            store.write_text(self.markdown, render_document(pages))
        if "json" in self.cfg.formats:
            name = self.markdown.name if "md" in self.cfg.formats else None
            store.write_json(self.json, document_to_json(str(self.plan.doc.path), name, pages))


def write_failed_document(doc: InputDoc, error: str, out_dir: Path, options: dict[str, object]) -> DocSummary:
    """A summary.json for a document that failed as a whole, when the file exists (a missing
    one gets no folder)."""
    summary = failed_document(str(doc.path), doc.key, error)
    if not doc.error:
        with contextlib.suppress(OutputError):  # the folder itself may be what failed
            store.write_json(doc.report_dir(out_dir) / "summary.json", doc_summary_to_json(summary, options))
    return summary
