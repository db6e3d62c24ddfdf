"""benchmarks/dashboard.py: RESULTS.md's tables are what the committed JSON under benchmarks/results/ gives."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))  # the scripts import their siblings by name

import dashboard  # noqa: E402
from dashboard_format import short_command  # noqa: E402
from gpu import PAGES  # noqa: E402

RESULTS_MD = REPO / "benchmarks" / "RESULTS.md"
ABSOLUTE_PATH = re.compile(r"""(?:^|[\s"'=(:])/[A-Za-z_.-]+/""")  # a machine's path; placeholders instead


def test_every_table_is_regenerated_identically_from_its_json():
    """A figure edited by hand, or a JSON rerun without `python benchmarks/dashboard.py`, fails here."""
    text = RESULTS_MD.read_text(encoding="utf-8")
    assert dashboard.rewrite(text) == text


def test_every_results_json_feeds_a_table():
    """One current JSON per result: none lies in results/ without a table, no table lacks its JSON."""
    read = {f for _, files in dashboard.BLOCKS.values() for f in files}
    assert read == {p.name for p in (REPO / "benchmarks" / "results").glob("*.json")}


def test_the_dashboard_is_one_screen_without_machine_paths():
    text = RESULTS_MD.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 215
    for path in [RESULTS_MD, *sorted((REPO / "benchmarks" / "results").glob("*.json"))]:
        body = path.read_text(encoding="utf-8")
        assert not ABSOLUTE_PATH.search(body), path.name  # written CORPUS, HY_TOK, ... instead
        assert not re.search(r"--json [^-\s]", body), path.name  # hsd bench writes JSON with --out-json


def test_a_block_keeps_the_prose_around_it(tmp_path):
    """Only the lines after a marker, up to the table's end, are rewritten; a stale one is replaced."""
    (tmp_path / "ray-cpu-draft.json").write_text((REPO / "benchmarks/results/ray-cpu-draft.json").read_text())
    text = "Intro.\n\nRay, before. <!-- table:ray -->\nold line\n\n| a |\n|---|\n| 1 |\n\nAfter.\n"
    blocks = {"ray": dashboard.BLOCKS["ray-throughput"]}
    new = dashboard.rewrite(text, tmp_path, blocks)
    assert new.startswith("Intro.\n\nRay, before. <!-- table:ray -->\nCode `") and new.endswith("|\n\nAfter.\n")
    assert "old line" not in new and "| `ray` | 46 | 45 |" in new
    assert dashboard.rewrite(new, tmp_path, blocks) == new


def test_an_unknown_block_is_an_error():
    with pytest.raises(KeyError, match="unknown"):
        dashboard.rewrite(RESULTS_MD.read_text() + "\nMore. <!-- table:bogus -->\n")


def test_commands_over_gpu_py_pages_name_the_call_that_lists_them():
    pages = " ".join(f"CORPUS/{p}" for p in PAGES[:10])
    assert short_command(f"hsd bench {pages} --model HY_TOK") == (
        "hsd bench $(python benchmarks/gpu.py --list-pages --pages 10) --model HY_TOK"
    )
    other = f"hsd bench CORPUS/{PAGES[0]} CORPUS/docling/other.pdf --model M"
    assert short_command(other) == other  # not the first N of PAGES: written out
