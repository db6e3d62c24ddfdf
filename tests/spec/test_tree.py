"""Prefix tree: shared prefixes merge; the mask never lets a node see a sibling branch."""

import torch

from hsd_cli.spec.tree import ancestry_mask, build_tree, pack_trees


def test_shared_prefixes_merged():
    tree = build_tree(0, [[1, 2, 3], [1, 2, 4], [5]])
    assert tree.tokens == [0, 1, 2, 3, 4, 5]  # Not 8 nodes: [1, 2] is stored once
    assert tree.parent == [-1, 0, 1, 2, 2, 0]
    assert tree.depth == [0, 1, 2, 3, 3, 1]


def test_identical_candidates_give_one_path():
    tree = build_tree(7, [[1, 2], [1, 2]])
    assert tree.tokens == [7, 1, 2]


def test_mask_is_ancestry_only():
    tree = build_tree(0, [[1, 2, 3], [1, 2, 4], [5]])
    expected = torch.tensor(
        [
            # 0  1  2  3  4  5
            [1, 0, 0, 0, 0, 0],  # root
            [1, 1, 0, 0, 0, 0],  # 1
            [1, 1, 1, 0, 0, 0],  # 1 2
            [1, 1, 1, 1, 0, 0],  # 1 2 3
            [1, 1, 1, 0, 1, 0],  # 1 2 4: does not see its sibling 3
            [1, 0, 0, 0, 0, 1],  # 5: sees no node of the other branch
        ],
        dtype=torch.bool,
    )
    assert torch.equal(ancestry_mask(tree), expected)


def test_pack_pads_with_self_only_nodes():
    ids, anc, depth = pack_trees([build_tree(9, [[1, 2]]), build_tree(8, [])])
    assert ids.tolist() == [[9, 1, 2], [8, 8, 8]]
    assert depth.tolist() == [[0, 1, 2], [0, 0, 0]]
    assert torch.equal(anc[1], torch.eye(3, dtype=torch.bool))
    assert anc[0, 2].tolist() == [True, True, True]
