"""Input discovery, sharding and output-path mapping."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hsd_cli.pages.inputs import (
    _MAX_PART,
    InputDoc,
    _key_of,
    discover,
    parse_shard,
    shard,
)


def touch(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"x")


def keys(docs: list[InputDoc]) -> list[str]:
    return [d.key for d in docs]


def test_folder_mirrors_layout_and_filters_extensions(tmp_path: Path) -> None:
    """Known extensions in any case, recursively; hidden files and other types are skipped."""
    touch(tmp_path / "in", "b.pdf", "sub/a.PNG", "sub/deep/c.tiff", "notes.txt", ".hidden.pdf", ".git/x.pdf", "d.JPEG")
    touch(tmp_path / "in", "scans/e.jp2", "scans/f.pgm", "scans/g.bmp")
    docs = discover([tmp_path / "in"])
    assert keys(docs) == ["b", "d", "scans/e", "scans/f", "scans/g", "sub/a", "sub/deep/c"]
    assert docs[5].markdown_path(Path("out")) == Path("out/sub/a.md")
    assert docs[5].report_dir(Path("out")) == Path("out/sub/a")


def test_file_input_maps_to_stem(tmp_path: Path) -> None:
    """A file goes to out/<stem>.md, wherever it lives."""
    touch(tmp_path, "deep/dir/paper.v2.pdf")
    (doc,) = discover([tmp_path / "deep/dir/paper.v2.pdf"])
    assert doc.key == "paper.v2" and doc.markdown_path(Path("o")) == Path("o/paper.v2.md")


def own(path: Path) -> str:
    """The suffix a contested key gets: from the source's own resolved path."""
    return hashlib.sha256(os.fsencode(os.path.realpath(path))).hexdigest()[:8]


def test_same_stem_from_two_places_never_clobbers(tmp_path: Path) -> None:
    """a/x.pdf and b/x.pdf: each gets a suffix of its own, whatever the order."""
    touch(tmp_path, "a/x.pdf", "b/x.pdf")
    forward = discover([tmp_path / "a/x.pdf", tmp_path / "b/x.pdf"])
    backward = discover([tmp_path / "b/x.pdf", tmp_path / "a/x.pdf"])
    assert sorted((d.path, d.key) for d in forward) == sorted((d.path, d.key) for d in backward)
    assert {d.key for d in forward} == {f"x-{own(d.path)}" for d in forward}
    assert len({d.key for d in forward}) == 2


def test_keys_do_not_move_when_inputs_come_and_go(tmp_path: Path) -> None:
    """Issue 13.1: adding docs/2022/report.pdf to a run must not hand 2023's outputs to it."""
    touch(tmp_path, "docs/2023/report.pdf", "docs/2024/report.pdf", "docs/2022/report.pdf")
    two = [tmp_path / "docs/2023/report.pdf", tmp_path / "docs/2024/report.pdf"]
    before = {d.path: d.key for d in discover(two)}
    after = {d.path: d.key for d in discover([tmp_path / "docs/2022/report.pdf", *two])}
    assert all(after[p] == k for p, k in before.items()) and len(set(after.values())) == 3
    stdin = io.StringIO("".join(f"{p}\n" for p in two))
    assert {d.path: d.key for d in discover(["-"], stdin=stdin)} == before


def test_same_stem_in_one_folder(tmp_path: Path) -> None:
    """x.pdf, x.png and a real x-2.pdf in one folder: x-2 stays, the two x's get own suffixes."""
    touch(tmp_path / "in", "x.pdf", "x.png", "x-2.pdf")
    docs = {d.path.name: d.key for d in discover([tmp_path / "in"])}
    assert docs["x-2.pdf"] == "x-2" and docs["x.pdf"] != docs["x.png"]
    assert docs["x.pdf"] == f"x-{own(tmp_path / 'in/x.pdf')}"


def test_folder_and_file_inputs_collide_too(tmp_path: Path) -> None:
    """A top-level x.pdf in a folder input and a separate file input x.pdf: two outputs."""
    touch(tmp_path, "in/x.pdf", "other/x.pdf")
    docs = discover([tmp_path / "in", tmp_path / "other/x.pdf"])
    assert len({d.key for d in docs}) == 2


def test_duplicates_are_converted_once(tmp_path: Path) -> None:
    """The same file named twice, or a file and its folder, is one document."""
    touch(tmp_path, "in/x.pdf")
    docs = discover([tmp_path / "in/x.pdf", tmp_path / "in", tmp_path / "in/./x.pdf"])
    assert len(docs) == 1


def test_glob_is_case_insensitive_on_name_or_path(tmp_path: Path) -> None:
    """--glob matches the file name, or the relative path when the pattern has a slash."""
    touch(tmp_path / "in", "a.PDF", "s/b.pdf", "s/c.png", "t/d.pdf")
    assert keys(discover([tmp_path / "in"], glob="*.pdf")) == ["a", "s/b", "t/d"]
    assert keys(discover([tmp_path / "in"], glob="s/*")) == ["s/b", "s/c"]
    assert keys(discover([tmp_path / "in"], glob="**/*.png")) == ["s/c"]
    (empty,) = discover([tmp_path / "in"], glob="*.gif")
    assert empty.error == "folder has no files matching '*.gif'"


def test_stdin_lists_paths(tmp_path: Path) -> None:
    """`-` reads newline-separated paths (blank lines ignored), files or folders."""
    touch(tmp_path, "a.pdf", "f/b.png")
    stdin = io.StringIO(f"{tmp_path / 'a.pdf'}\n\n  {tmp_path / 'f'}  \n")
    assert keys(discover(["-"], stdin=stdin)) == ["a", "b"]


def test_missing_path_and_empty_folder_are_values(tmp_path: Path) -> None:
    """Nothing raises: the documents carry an error for the runner to report."""
    (tmp_path / "empty").mkdir()
    docs = discover([tmp_path / "nope.pdf", tmp_path / "empty"])
    assert {d.key: d.error for d in docs} == {
        "empty": "folder has no PDF or image files",
        "nope": "no such file or directory",
    }


def test_output_folder_inside_input_is_skipped(tmp_path: Path) -> None:
    """Converting docs/ into docs/out/ must not pick up its own outputs."""
    touch(tmp_path / "docs", "a.pdf", "out/a.pdf")
    assert keys(discover([tmp_path / "docs"], exclude=tmp_path / "docs/out")) == ["a"]


def test_shards_partition_and_do_not_depend_on_order(tmp_path: Path) -> None:
    """Every document lands in exactly one shard, the same one whatever the listing order."""
    names = [f"d{i:02d}.pdf" for i in range(40)]
    touch(tmp_path, *names)
    docs = discover([tmp_path / n for n in names])
    parts = [shard(docs, i, 4) for i in range(1, 5)]
    assert sorted(k for p in parts for k in keys(p)) == sorted(keys(docs))
    assert all(parts)  # 40 documents: no shard empty
    fewer = discover([tmp_path / n for n in reversed(names[:30])])
    assert set(keys(shard(fewer, 2, 4))) <= set(keys(parts[1]))  # stable when the set changes


def test_parse_shard() -> None:
    """i/N with 1 <= i <= N; anything else names the expected form."""
    assert parse_shard("2/8") == (2, 8)
    for bad in ("0/2", "3/2", "2", "a/b", "1/2/3"):
        with pytest.raises(ValueError, match="shard"):
            parse_shard(bad)


def assert_safe(key: str) -> None:
    """Every part non-empty, not hidden (so not . or ..), printable, short, not a report name."""
    out = Path("/out")
    assert os.path.normpath(out / key).startswith("/out/")
    for part in key.split("/"):
        assert part and not part.startswith(".") and part.isprintable(), key
        assert len(part.encode("utf-8")) <= _MAX_PART
        assert not part.casefold().endswith((".json", ".md")), key


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.binary(min_size=1, max_size=300).filter(lambda b: b"/" not in b and b"\0" not in b), min_size=1, max_size=3
    )
)
def test_no_name_escapes_the_output_folder(parts: list[bytes]) -> None:
    """Issue 13.2/3: any bytes as file and folder names give a key below out/."""
    rel = "/".join(os.fsdecode(p) for p in parts)
    assert_safe(_key_of(rel))


def test_hostile_names(tmp_path: Path) -> None:
    """...pdf (stem ".."), .pdf, a non-UTF-8 name, a 240-character stem, report-like names."""
    names = [b"...pdf", b".pdf", b"x\xff.pdf", b"a" * 240 + b".pdf", b"summary.json.pdf", b"x.md.pdf", b"tab\there.pdf"]
    for raw in names:
        (tmp_path / "in").mkdir(exist_ok=True)
        (tmp_path / "in" / os.fsdecode(raw)).write_bytes(b"x")
    given_directly = discover([tmp_path / "in" / os.fsdecode(raw) for raw in names])
    in_folder = discover([tmp_path / "in"], glob="*")
    for doc in [*given_directly, *in_folder]:
        assert_safe(doc.key)
        assert doc.error == "" and doc.name.isprintable()
    assert len({d.key for d in in_folder}) == len(names) - 2  # a walk skips hidden files
    assert len({d.key for d in given_directly}) == len(names)
    assert discover([tmp_path / "in" / "x\udcff.pdf"])[0].name.endswith("x\\xff.pdf")


def test_non_utf8_paths_on_stdin(tmp_path: Path) -> None:
    """Issue 13.3: stdin is read as bytes; a bad name is one document, not a crash."""
    (tmp_path / os.fsdecode(b"x\xff.pdf")).write_bytes(b"x")
    touch(tmp_path, "ok.pdf")
    raw = b"%s\n%s\n" % (os.fsencode(tmp_path / os.fsdecode(b"x\xff.pdf")), os.fsencode(tmp_path / "ok.pdf"))
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    docs = discover(["-"], stdin=stdin)
    assert len(docs) == 2 and all(d.error == "" for d in docs)
    nul = io.TextIOWrapper(io.BytesIO(raw.replace(b"\n", b"\0")), encoding="utf-8")
    assert [d.path for d in discover(["-"], stdin=nul)] == [d.path for d in docs]


def test_symlink_loop_is_one_bad_document(tmp_path: Path) -> None:
    """Issue 13.4: a self-looping symlink in a folder is a document with an error."""
    touch(tmp_path / "in", "good.pdf")
    (tmp_path / "in" / "loop.pdf").symlink_to("loop.pdf")
    docs = {d.key: d.error for d in discover([tmp_path / "in"])}
    assert docs == {"good": "", "loop": ""}  # the walk lists it; opening it names the loop
    (loop,) = discover([tmp_path / "in" / "loop.pdf"])
    assert "symbolic links" in loop.error
