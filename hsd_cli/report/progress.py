"""What a run shows on stderr while it works: rich bars on a terminal, one line per document
elsewhere (CI logs, `2> log`), and error / warning lines in both cases."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from hsd_cli.datatypes import PageResult
from hsd_cli.metrics import aal
from hsd_cli.report.summary import DocStatus, DocSummary


@dataclass(frozen=True, slots=True)
class Line:
    """A message about a page: level "error" or "warning"; `trace` is a traceback (--debug).

    The verify stage writes them (pipeline/verify.py), `RunProgress.show` prints them.
    """

    level: str
    text: str
    trace: str = ""


class RunProgress:
    """Progress on stderr (documents, pages, tokens/s, AAL); error lines print above the bars."""

    def __init__(self, num_docs: int, err: TextIO, quiet: bool) -> None:
        self.err, self.quiet = err, quiet
        self.num_docs, self.done_docs = num_docs, 0
        self.tokens, self.seconds = 0, 0.0
        self.accepted, self.seq_steps, self.pages_done = 0, 0, 0
        self.stream, self.t_start = False, time.perf_counter()
        self.lines = not quiet and not err.isatty()  # no terminal: a line per document instead
        self.bar: Progress | None = None
        if not quiet and err.isatty():
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                console=Console(file=err),
            )
            self.docs = self.bar.add_task("documents", total=num_docs, rate="")
            self.pages = self.bar.add_task("pages", total=0, rate="")

    def __enter__(self) -> RunProgress:
        if self.bar:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar:
            self.bar.stop()

    def error(self, line: str, exc: BaseException | None = None, trace: str = "") -> None:
        text = f"hsd: error: {line}"
        if exc is not None:
            trace = "".join(traceback.format_exception(exc)).rstrip()
        self._print(f"{text}\n{trace}" if trace else text)

    def show(self, line: Line, debug: bool = False) -> None:
        """A page's message from the verify stage; its traceback too with --debug."""
        if line.level == "error":
            self.error(line.text, trace=line.trace if debug else "")
        else:
            self.warn(line.text)

    def warn(self, line: str) -> None:
        self._print(f"hsd: warning: {line}")

    def note(self, line: str) -> None:
        """Progress news (not an error): silent with --quiet."""
        if not self.quiet:
            self._print(f"hsd: {line}")

    def start_pages(self, total: int, done: int) -> None:
        """One bar for the pages of every document (engines that work on many at once)."""
        self.stream, self.pages_done, self.t_start = True, done, time.perf_counter()
        if self.bar:
            self.bar.reset(self.pages, total=total, completed=done, description="pages", rate="")

    def start_doc(self, name: str, total: int, done: int) -> None:
        if self.bar and not self.stream:
            short = name if len(name) <= 40 else "..." + name[-37:]
            self.bar.reset(self.pages, total=total, completed=done, description=short, rate="")

    def page_done(self, result: PageResult) -> None:
        self.tokens += result.tokens
        self.seconds += result.t_total
        self.accepted += result.accepted
        self.seq_steps += result.seq_steps
        self.pages_done += 1
        if self.bar:
            self.bar.update(self.pages, advance=1, rate=self.rate(result))

    def rate(self, result: PageResult) -> str:
        """tok/s and AAL of the model (nothing without one: "0.0 tok/s" would be noise); with
        start_pages, pages/s over the run and AAL over its pages, since many verify at once."""
        if self.stream:
            pace = self.pages_done / max(time.perf_counter() - self.t_start, 1e-9)
            mean = f"  AAL {aal(self.accepted, self.seq_steps):.2f}" if self.tokens else ""
            return f"{pace:.2f} pages/s{mean}"
        speed = self.tokens / self.seconds if self.seconds > 0 else 0.0
        return f"{speed:.1f} tok/s  AAL {result.aal:.2f}" if self.tokens else ""

    def doc_done(self, name: str, summary: DocSummary) -> None:
        """Advance the bar, or print the document's line; a failed one has its error lines already."""
        self.done_docs += 1
        if self.bar:
            self.bar.advance(self.docs)
        elif self.lines and summary.status is not DocStatus.FAILED:
            self.note(f"[{self.done_docs}/{self.num_docs}] {name}: {_outcome(summary)}")

    def _print(self, text: str) -> None:
        if self.bar:
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=self.err, flush=True)


def _outcome(s: DocSummary) -> str:
    if s.status is DocStatus.SKIPPED:
        return f"skipped ({s.error})"
    resumed = f", {s.resumed} resumed" if s.resumed else ""
    tokens = f", {s.totals.tokens} tokens, AAL {s.totals.aal:.2f}" if s.totals.tokens else ""
    return f"{s.status.value} ({s.pages} page{'s' * (s.pages != 1)}{resumed}{tokens}, {s.totals.t_total:.1f} s)"
