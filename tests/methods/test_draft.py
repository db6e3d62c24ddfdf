"""`--method draft`: the drafts themselves as the page's Markdown."""

from __future__ import annotations

from pathlib import Path

from hsd_cli.datatypes import PageStatus
from hsd_cli.methods.draft import DraftConverter
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"


def test_draft_converter_page_result() -> None:
    """An ok PageResult naming the source used, with timing and Markdown."""
    converter = DraftConverter("auto")
    result = converter.convert(Preparer(PrepareConfig(dpi=72))(SAMPLES / "two_columns.pdf", 1))
    assert result.status is PageStatus.OK and result.method == "draft"
    assert result.draft_source == "text_layer" and result.page == 1 and result.t_draft > 0
    assert result.markdown.startswith("# Reading Order in Two Columns\n\nTwo-column layouts")
    assert result.markdown.index("left column first") < result.markdown.index("gaps between")
    assert converter.options_key()["draft_source"] == "auto"
