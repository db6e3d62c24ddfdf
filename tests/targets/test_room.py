"""room.move_slots: a commit's slot moves, on views of a room, equal copying slot by slot."""

from __future__ import annotations

import pytest
import torch

from hsd_cli.targets.runtime.room import move_slots


def test_moves_copy_each_rows_slots_in_every_head_of_every_tensor():
    room = torch.randn(4, 3, 20, 8)  # rows past the batch's and slots past the cache's: a room
    keys, values = room[:3, :, :12], torch.randn(3, 3, 12, 8)
    want, spare = [keys.clone(), values.clone()], room[3].clone()
    moves = [(0, 9, 7), (0, 11, 8), (2, 10, 7)]  # (row, from, to)
    for t in want:
        for row, src, dst in moves:
            t[row, :, dst] = t[row, :, src].clone()
    move_slots([keys, values], torch.tensor(moves), lambda t: t)
    assert torch.equal(keys, want[0]) and torch.equal(values, want[1])
    assert torch.equal(room[3], spare)  # the room's row past the batch untouched


def test_a_slot_moved_onto_one_that_moves_on_reads_the_old_value():
    """Moves read every source before writing: 2 -> 1 and 3 -> 2 shift the tail down by one."""
    t = torch.arange(5.0).view(1, 1, 5, 1).repeat(1, 1, 1, 2)
    move_slots([t], torch.tensor([(0, 2, 1), (0, 3, 2)]), lambda x: x)
    assert t[0, 0, :, 0].tolist() == [0.0, 2.0, 3.0, 3.0, 4.0]  # not [0, 2, 2, ...]


def test_a_layout_with_split_slots_is_refused():
    t = torch.randn(2, 2, 6, 4).transpose(2, 3)  # a slot's values strided apart
    with pytest.raises(ValueError):
        move_slots([t], torch.tensor([(0, 1, 0)]), lambda x: x)
