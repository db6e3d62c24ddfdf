"""Atomic writes and the resume index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.errors import InputError, OutputError
from hsd_cli.report import store
from hsd_cli.report.json import page_to_json

OPTIONS = {"method": "hsd", "tau": 1.0, "window": (3, 1)}


def write_page(
    report_dir: Path, page: int, status: PageStatus = PageStatus.OK, options: dict[str, object] = OPTIONS
) -> Path:
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
    """Issue 13.11: a kill -9 leaves .<doc>.md.XXXXXXXX.tmp beside the Markdown; only the
    document's own temps go (out/a/ also holds documents a/b's Markdown, maybe mid-write)."""
    report_dir = tmp_path / "a"
    write_page(report_dir, 1)
    for name in (".page-0001.json.abcd1234.tmp", ".summary.json.k_3x9z0q.tmp", ".b.md.zzzzzzzz.tmp"):
        (report_dir / name).write_text("{")
    (tmp_path / ".a.md.q1w2e3r4.tmp").write_text("x")
    (tmp_path / ".a.md.x.md.q1w2e3r4.tmp").write_text("x")  # document "a.md.x"'s temp
    store.remove_stale_temps(report_dir, tmp_path / "a.md")
    assert sorted(os.listdir(report_dir)) == [".b.md.zzzzzzzz.tmp", "page-0001.json"]
    assert sorted(os.listdir(tmp_path)) == [".a.md.x.md.q1w2e3r4.tmp", "a"]


def test_files_get_modes_from_the_umask(tmp_path: Path) -> None:
    """Issue 13.9: mkstemp's 0600 is not what the user's umask asks for."""
    for mask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
        old = os.umask(mask)
        try:
            store.write_text(tmp_path / "f.md", "x")
        finally:
            os.umask(old)
        assert (tmp_path / "f.md").stat().st_mode & 0o777 == mode


_HOLD = """
import sys, time
from pathlib import Path
from hsd_cli.report import store
with store.document_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_document_lock_makes_a_second_process_wait(tmp_path: Path) -> None:
    """Issue 13.6: a second run waits for the document a first run holds, then gets it."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    first = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path / "d"), "30"], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert first.stdout.readline() == "held\n"
        blocked, done = threading.Event(), threading.Event()

        def take() -> None:
            with store.document_lock(tmp_path / "d", on_wait=blocked.set):
                done.set()

        taker = threading.Thread(target=take, daemon=True)
        taker.start()
        # Wait for the event, not a fixed time: a loaded machine may start the thread late.
        assert blocked.wait(30) and not done.is_set()  # blocked while the other holds it
        first.kill()  # even kill -9 releases it
        assert done.wait(30)
    finally:
        first.kill()
        first.wait()


def test_source_identity_changes_with_content(tmp_path: Path) -> None:
    """Issue 13.7: resume keys on the source's path, size and content."""
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1 one")
    first = store.source_identity(tmp_path / "a.pdf")
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1 two")
    second = store.source_identity(tmp_path / "a.pdf")
    assert first["path"] == second["path"] and first["size"] == second["size"]
    assert first["sha256"] != second["sha256"]
    with pytest.raises(InputError, match="cannot read"):
        store.source_identity(tmp_path / "missing.pdf")


def test_number_lists_stay_on_one_line(tmp_path: Path) -> None:
    """accepted_hist may have thousands of entries; strings are never touched."""
    data = {"hist": [1, 0, 12], "text": "[\n 1,  2\n]", "window": [3, 1], "e": []}
    store.write_json(tmp_path / "x.json", data)
    text = (tmp_path / "x.json").read_text()
    assert '"hist": [1, 0, 12],' in text and '"window": [3, 1]' in text
    assert json.loads(text) == data


def test_non_utf8_text_is_written_escaped(tmp_path: Path) -> None:
    """Issue 13.3: a lone surrogate (a non-UTF-8 name echoed in text) never fails a write."""
    name = os.fsdecode(b"x\xff.pdf")
    store.write_text(tmp_path / "a.md", f"# {name}\n")
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == "# x\\xff.pdf\n"
    store.write_json(tmp_path / "a.json", {"markdown": name, "other": "é"})
    assert json.loads((tmp_path / "a.json").read_bytes().decode("utf-8")) == {"markdown": name, "other": "é"}
