"""Prefix tree: shared prefixes merge; pruning keeps DFS order; the mask never lets a node see a sibling branch."""

import torch

from hsd_cli.spec.budget import node_probs
from hsd_cli.spec.tree import build_tree, build_trie, linearize, pack_trees, root_tree


def test_shared_prefixes_merged():
    tree = linearize(build_trie(0, [[1, 2, 3], [1, 2, 4], [5]]))
    assert tree.tokens == [0, 1, 2, 3, 4, 5]  # Not 8 nodes: [1, 2] is stored once
    assert tree.parent == [-1, 0, 1, 2, 2, 0]
    assert tree.depth == [0, 1, 2, 3, 3, 1]
    assert tree.count == [3, 2, 2, 1, 1, 1]
    assert tree.size == [6, 4, 3, 1, 1, 1]


def test_identical_candidates_give_one_path():
    tree = linearize(build_trie(7, [[1, 2], [1, 2]]))
    assert tree.tokens == [7, 1, 2] and tree.count == [2, 2, 2]


def test_build_tree_is_the_linearized_trie():
    """build_tree (the cost model's probe trees) is the loop's build_trie + linearize."""
    cands = [[1, 2, 3], [5], [1, 4]]
    a, b = build_tree(0, cands), linearize(build_trie(0, cands))
    assert (a.tokens, a.parent, a.size) == (b.tokens, b.parent, b.size)
    assert (a.tokens, a.parent, a.size) == ([0, 1, 2, 3, 4, 5], [-1, 0, 1, 2, 1, 0], [6, 4, 2, 1, 1, 1])


def test_origins_follow_the_first_candidate_through_a_node():
    trie = build_trie(0, [[1, 2], [1, 3]], origins=[(4, 10), (6, 20)])
    # node 1 was made by the first candidate
    assert linearize(trie).origin == [(-1, -1), (4, 10), (4, 11), (6, 21)]
    assert linearize(build_trie(0, [[1]])).origin == []  # no origins given: none kept


def test_linearize_keeps_only_chosen_nodes_in_dfs_order():
    trie = build_trie(0, [[5, 6], [1, 2, 3]])  # insertion order: 0, 5, 6, 1, 2, 3
    tree = linearize(trie, keep={0, 1, 3, 4})  # tokens 5, 1, 2: drop 6 and 3
    assert tree.tokens == [0, 5, 1, 2] and tree.parent == [-1, 0, 0, 2] and tree.size == [4, 1, 2, 1]
    assert tree.children == [{5: 1, 1: 2}, {}, {2: 3}, {}]


def test_mask_is_ancestry_only():
    _, anc, _ = pack_trees([linearize(build_trie(0, [[1, 2, 3], [1, 2, 4], [5]]))])
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
    assert torch.equal(anc[0], expected)


def test_pack_pads_with_self_only_nodes():
    ids, anc, depth = pack_trees([linearize(build_trie(9, [[1, 2]])), linearize(build_trie(8, []))])
    assert ids.tolist() == [[9, 1, 2], [8, 8, 8]]
    assert depth.tolist() == [[0, 1, 2], [0, 0, 0]]
    assert torch.equal(anc[1], torch.eye(3, dtype=torch.bool))
    assert anc[0, 2].tolist() == [True, True, True]


def test_the_lead_candidate_weighs_more_in_the_acceptance_estimate():
    """The likeliest candidate (first) counts `lead` times: its branch is kept first under a node budget."""
    trie = build_trie(0, [[1, 2, 3], [4, 5], [6, 7]], lead=3.0)
    probs = node_probs(trie, p_first=0.6, p_cont=0.9)
    first, second = trie.child(0, 1), trie.child(0, 4)
    assert probs[first] == 0.6 * 3 / 5 and probs[second] == 0.6 / 5
    depth3 = trie.child(trie.child(first, 2), 3)
    assert probs[depth3] > probs[second]  # Not breadth first: the lead's third token before another's first


def test_a_tails_nodes_branch_when_a_later_candidate_leaves_them():
    """Nodes of a candidate's new tail keep no children map until a second child comes."""
    trie = build_trie(0, [[1, 2, 3], [1, 2, 4], [1, 5], [1, 2, 3, 6]])
    assert trie.tokens == [0, 1, 2, 3, 4, 5, 6] and trie.parent == [-1, 0, 1, 2, 2, 1, 3]
    assert [trie.child(2, t) for t in (3, 4, 5)] == [3, 4, None]  # Not [3, None, None]: node 2 branched
    assert trie.child(3, 6) == 6 and trie.child(4, 6) is None  # node 6 hangs under 3, not 4 (its index neighbour)
    assert trie.count == [4, 4, 3, 2, 1, 1, 1]


def test_a_row_without_candidates_is_its_root_as_the_trie_would_make_it():
    """propose's short cut for rows with nothing to propose (`ar`'s, drafts still to come)."""
    for token, origins in ((7, []), (0, None), (151643, [])):
        assert root_tree(token) == linearize(build_trie(token, [], origins, 3.0))
        assert root_tree(token) == linearize(build_trie(token, [], origins, 3.0), {0})
    assert node_probs(build_trie(7, []), 0.5, 0.5) == [1.0]  # propose's ROOT
