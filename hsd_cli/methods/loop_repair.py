"""--on-loop draft: a looping row's tail becomes its drafts' rest (spec/loop.py), credited to
the drafts it was copied from."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.spec.align import MODEL, Origin
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.loop import repair_loop
from hsd_cli.spec.stop import StopReason


def loop_repair(
    row: RowResult, drafts: list[list[int]], spec: SpecConfig, ordered: bool, sep: list[int] | None = None
) -> tuple[list[int], list[Origin], bool]:
    """The row's tokens and origins, and whether its loop was repaired."""
    if spec.on_loop != "draft" or row.stop is not StopReason.REPEAT:
        return row.tokens, row.origins, False
    fixed = repair_loop(row.tokens, drafts, spec.repeat_guard, ordered=ordered, sep=sep or ())
    if fixed is None:
        return row.tokens, row.origins, False
    origins = row.origins[: fixed.loop.keep]
    if (a := fixed.anchor) is not None:
        origins += [(a.draft, j) for j in range(a.pos, len(drafts[a.draft]))]
        for d in range(a.draft + 1, len(drafts)) if ordered else ():
            if drafts[d]:
                origins += [MODEL] * len(sep or ()) + [(d, j) for j in range(len(drafts[d]))]
    return fixed.tokens, origins, True
