"""Input discovery, sharding and output-path mapping."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from hsd_cli.inputs import InputDoc, discover, parse_shard, shard


def touch(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"x")


def keys(docs: list[InputDoc]) -> list[str]:
    return [d.key for d in docs]


def test_folder_mirrors_layout_and_filters_extensions(tmp_path: Path) -> None:
    """Known extensions in any case, recursively; hidden files and other types are skipped."""
    touch(tmp_path / "in", "b.pdf", "sub/a.PNG", "sub/deep/c.tiff", "notes.txt", ".hidden.pdf",
          ".git/x.pdf", "d.JPEG")  # fmt: skip
    docs = discover([tmp_path / "in"])
    assert keys(docs) == ["b", "d", "sub/a", "sub/deep/c"]
    assert docs[2].markdown_path(Path("out")) == Path("out/sub/a.md")
    assert docs[2].report_dir(Path("out")) == Path("out/sub/a")


def test_file_input_maps_to_stem(tmp_path: Path) -> None:
    """A file goes to out/<stem>.md, wherever it lives."""
    touch(tmp_path, "deep/dir/paper.v2.pdf")
    (doc,) = discover([tmp_path / "deep/dir/paper.v2.pdf"])
    assert doc.key == "paper.v2" and doc.markdown_path(Path("o")) == Path("o/paper.v2.md")


def test_same_stem_from_two_places_never_clobbers(tmp_path: Path) -> None:
    """a/x.pdf and b/x.pdf: the path sorting first keeps x, the other gets x-2, in any order."""
    touch(tmp_path, "a/x.pdf", "b/x.pdf")
    forward = discover([tmp_path / "a/x.pdf", tmp_path / "b/x.pdf"])
    backward = discover([tmp_path / "b/x.pdf", tmp_path / "a/x.pdf"])
    assert [(d.path, d.key) for d in forward] == [(d.path, d.key) for d in backward]
    assert {d.path.parent.name: d.key for d in forward} == {"a": "x", "b": "x-2"}


def test_disambiguation_skips_keys_taken_by_real_files(tmp_path: Path) -> None:
    """x.pdf, x.png and a real x-2.pdf in one folder: the duplicate becomes x-3, not x-2."""
    touch(tmp_path / "in", "x.pdf", "x.png", "x-2.pdf")
    docs = discover([tmp_path / "in"])
    assert {d.path.name: d.key for d in docs} == {"x.pdf": "x", "x.png": "x-3", "x-2.pdf": "x-2"}


def test_collisions_ignore_case(tmp_path: Path) -> None:
    """X.pdf and x.pdf would overwrite each other on macOS: they get distinct keys."""
    touch(tmp_path, "a/X.pdf", "b/x.pdf")
    docs = discover([tmp_path / "a/X.pdf", tmp_path / "b/x.pdf"])
    assert sorted(d.key.casefold() for d in docs) == ["x", "x-2"]


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
        "empty": "folder has no pdf/png/jpg/jpeg/tif/tiff/webp files",
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
