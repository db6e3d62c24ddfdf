"""Atomic writes and the resume index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.errors import OutputError
from hsd_cli.report import store
from hsd_cli.report.json import page_to_json

OPTIONS = {"method": "hsd", "tau": 1.0, "window": (3, 1)}


def write_page(report_dir: Path, page: int, status: PageStatus = PageStatus.OK,
               options: dict[str, object] = OPTIONS) -> Path:  # fmt: skip
    result = PageResult("a.pdf", page, status, markdown=f"page {page}")
    path = store.page_report_path(report_dir, page)
    store.write_json(path, page_to_json(result, options))
    return path


def test_page_report_path() -> None:
    assert store.page_report_path(Path("out/a"), 3) == Path("out/a/page-0003.json")


def test_write_replaces_whole_file_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "x.md"
    store.write_text(path, "first version, long\n")
    store.write_text(path, "second\n")
    assert path.read_text() == "second\n"
    assert os.listdir(path.parent) == ["x.md"]


def test_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash between temp write and rename leaves the previous version intact."""
    path = tmp_path / "x.json"
    store.write_text(path, "old")

    def crash(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "replace", crash)
    with pytest.raises(OutputError, match="No space left"):
        store.write_text(path, "new")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["x.json"]


def test_unwritable_location_is_an_output_error(tmp_path: Path) -> None:
    """A path below a regular file cannot be created, even as root."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OutputError, match="cannot write"):
        store.ensure_writable(blocker / "out")


def test_ensure_writable_creates_the_folder_and_leaves_nothing(tmp_path: Path) -> None:
    store.ensure_writable(tmp_path / "new" / "out")
    assert os.listdir(tmp_path / "new" / "out") == []


def test_finished_pages(tmp_path: Path) -> None:
    """Finished = parses, ok/truncated, same options; failed, torn or stale reports are redone."""
    write_page(tmp_path, 1)
    write_page(tmp_path, 2, PageStatus.TRUNCATED)
    write_page(tmp_path, 3, PageStatus.FAILED)
    write_page(tmp_path, 4, options={**OPTIONS, "tau": 0.9})
    store.page_report_path(tmp_path, 5).write_text('{"schema_version": 1, "sour')  # torn
    done = store.finished_pages(tmp_path, [1, 2, 3, 4, 5, 6], OPTIONS)
    assert sorted(done) == [1, 2]
    assert done[1].markdown == "page 1"


def test_finished_pages_only_among_selected(tmp_path: Path) -> None:
    write_page(tmp_path, 1)
    write_page(tmp_path, 2)
    assert sorted(store.finished_pages(tmp_path, [2, 3], OPTIONS)) == [2]
    assert store.finished_pages(tmp_path / "missing", [1], OPTIONS) == {}


def test_stale_temps_are_removed(tmp_path: Path) -> None:
    (tmp_path / ".page-0001.json.abc.tmp").write_text("{")
    write_page(tmp_path, 1)
    store.remove_stale_temps(tmp_path)
    assert os.listdir(tmp_path) == ["page-0001.json"]


def test_number_lists_stay_on_one_line(tmp_path: Path) -> None:
    """accepted_hist may have thousands of entries; strings are never touched."""
    data = {"hist": [1, 0, 12], "text": "[\n 1,  2\n]", "window": [3, 1], "e": []}
    store.write_json(tmp_path / "x.json", data)
    text = (tmp_path / "x.json").read_text()
    assert '"hist": [1, 0, 12],' in text and '"window": [3, 1]' in text
    assert json.loads(text) == data
