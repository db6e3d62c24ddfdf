"""Progress on stderr: bars on a terminal, a line per document elsewhere, nothing with --quiet."""

from __future__ import annotations

import io

from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.report.progress import RunProgress
from hsd_cli.report.summary import skipped_document, summarize_document


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_draft_pages_show_no_token_rate() -> None:
    """Issue 13.12: without model tokens the bar shows no "0.0 tok/s AAL 0.00"."""
    with RunProgress(1, Terminal(), quiet=False) as progress:
        progress.start_doc("a.pdf", 2, 0)
        progress.page_done(PageResult("a.pdf", 1, PageStatus.OK, t_total=0.5))
        assert progress.bar.tasks[progress.pages].fields["rate"] == ""
        progress.page_done(PageResult("a.pdf", 2, PageStatus.OK, tokens=20, accepted_hist=[2, 2], t_total=0.5))
        assert progress.bar.tasks[progress.pages].fields["rate"] == "20.0 tok/s  AAL 2.00"


def test_lines_outside_a_terminal_and_silence_when_quiet() -> None:
    ok = summarize_document("a.pdf", "a", 1, [PageResult("a.pdf", 1, PageStatus.OK, t_total=0.25)])
    skipped = skipped_document("b.pdf", "b", "no page in --pages 9; it has 3")
    err = io.StringIO()
    with RunProgress(2, err, quiet=False) as progress:
        progress.doc_done("a.pdf", ok)
        progress.doc_done("b.pdf", skipped)
    assert err.getvalue().splitlines() == [
        "hsd: [1/2] a.pdf: ok (1 page, 0.2 s)",
        "hsd: [2/2] b.pdf: skipped (no page in --pages 9; it has 3)",
    ]
    quiet = io.StringIO()
    with RunProgress(1, quiet, quiet=True) as progress:
        progress.doc_done("a.pdf", ok)
        progress.note("waiting")
        progress.error("x.pdf: bad")
    assert quiet.getvalue() == "hsd: error: x.pdf: bad\n"
