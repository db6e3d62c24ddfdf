"""A table's lines grouped into rows, as if the table stood upright.

OCR pads its boxes: on a tightly set scan a row's boxes overlap the next row's by half their
height, and rows chained by overlaps (geometry.split_rows) run into one; rows here are lines whose
centres stand near each other. On a turned scan a row's cells stand higher or lower the further
right they are: heights are compared along the table's own slope, found from its cells.
"""

from __future__ import annotations

from statistics import mean, median

import numpy as np

from hsd_cli.datatypes import TextSpan

# Lines of one row have centres within this share of a line's height of each other.
ROW_CENTRED = 0.35
# A table's turn: from pairs of lines this many line heights apart side by side whose centres
# differ by at most NEARLY heights, MIN_PAIRS of them; under MIN_TURN (0.6 degrees) it stands upright.
WIDE_RUN, NEARLY, MIN_PAIRS, MIN_TURN = 5.0, 0.6, 4, 0.01
# Or the slope, of those up to MAX_TURN (3.4 degrees) in steps of TURN_STEP, that sets SURER times
# as many of them level to LEVEL heights.
MAX_TURN, TURN_STEP, LEVEL, SURER = 0.06, 0.0025, 0.2, 1.5


def table_rows(lines: list[TextSpan]) -> list[list[TextSpan]]:
    """Lines by row, a line joining the row whose centre height its own centre is near.

    OCR pads its boxes: on a tightly set scan a row's boxes overlap the next row's by half their
    height, and rows chained by overlaps (geometry.split_rows) run into one. On a turned scan a
    row's cells stand higher or lower the further right they are: heights are compared as if
    the table were upright (its slope from the cells level with each other).
    """
    if not lines:
        return []
    height = median(s.bbox[3] - s.bbox[1] for s in lines)
    tolerance = ROW_CENTRED * height
    turn = _slope(lines, height)

    def upright(line: TextSpan) -> float:  # its centre's height with the table turned upright
        return centre(line) - turn * line.bbox[0]

    rows: list[list[TextSpan]] = []
    for line in sorted(lines, key=upright):
        if rows and abs(upright(line) - mean(map(upright, rows[-1]))) <= tolerance:
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def _slope(lines: list[TextSpan], height: float) -> float:
    """The table's turn: the median rise over run of pairs of lines far apart side by side and
    nearly level; 0 when under MIN_TURN (an upright table) or too few pairs tell it.

    Rows of a low-resolution scan stand under a padded box's height apart: a label is then as
    nearly level with the next row's figures as with its own and the median comes out at half
    the turn. Where another slope sets SURER times as many pairs level (to LEVEL heights), the
    median of those pairs is the turn."""
    x = np.array([s.bbox[0] for s in lines], dtype=float)
    y = np.array([centre(s) for s in lines], dtype=float)
    run, rise = x[None, :] - x[:, None], y[None, :] - y[:, None]  # every pair (a, b): b's less a's
    wide = run > WIDE_RUN * height
    run, rise = run[wide], rise[wide]
    nearly = np.abs(rise) <= NEARLY * height
    if nearly.sum() < MIN_PAIRS:
        return 0.0
    turn = float(np.median(rise[nearly] / run[nearly]))
    turns = np.arange(-MAX_TURN, MAX_TURN + TURN_STEP / 2, TURN_STEP)
    level = (np.abs(rise[None, :] - turns[:, None] * run[None, :]) <= LEVEL * height).sum(axis=1)
    best = int(np.argmax(level))
    if level[best] >= SURER * (np.abs(rise - turn * run) <= LEVEL * height).sum():
        chosen = np.abs(rise - turns[best] * run) <= LEVEL * height
        turn = float(np.median(rise[chosen] / run[chosen]))
    return turn if abs(turn) >= MIN_TURN else 0.0


def centre(line: TextSpan) -> float:
    return (line.bbox[1] + line.bbox[3]) / 2
