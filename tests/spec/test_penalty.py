"""The repetition penalty per tree node equals HF's processor applied to that node's own sequence."""

import random

import pytest
import torch
from transformers.generation.logits_process import RepetitionPenaltyLogitsProcessor

from hsd_cli.spec.penalty import SeenTokens, penalize, seen_matrix
from hsd_cli.spec.tree import build_tree, pack_trees

VOCAB = 40


def _seen(tokens):
    s = SeenTokens()
    s.update(tokens)
    return s


def _path(tree, node):
    """The draft tokens from the root (excluded) down to `node` (included)."""
    out = []
    while node > 0:
        out.append(tree.tokens[node])
        node = tree.parent[node]
    return out[::-1]


def test_penalty_covers_prompt_accepted_and_path_tokens():
    """Node i's context is the row's seen tokens plus its own path; siblings' tokens don't count."""
    tree = build_tree(0, [[1, 2], [3]])  # nodes: 0, 1, 2, 3 (DFS)
    ids, ancestry, _ = pack_trees([tree])
    logits = penalize(torch.full((1, 4, 6), 2.0), seen_matrix([_seen([0, 5])]), ids, ancestry, 2.0)
    assert logits[0, 3].tolist() == [1.0, 2.0, 2.0, 1.0, 2.0, 1.0]  # Not 1 and 2: a sibling branch
    assert logits[0, 2].tolist() == [1.0, 1.0, 1.0, 2.0, 2.0, 1.0]


@pytest.mark.parametrize("seed", range(20))
def test_every_node_gets_what_hf_gives_its_sequence(seed):
    """Random trees of several rows (padded to one width), seen tokens of other lengths, both signs."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    penalty = rng.choice([1.05, 1.3, 2.0])
    rows = rng.randint(1, 4)
    seen = [[rng.randrange(VOCAB) for _ in range(rng.randint(1, 12))] for _ in range(rows)]
    trees = []
    for r in range(rows):
        cands = [[rng.randrange(VOCAB) for _ in range(rng.randint(1, 6))] for _ in range(rng.randint(0, 4))]
        trees.append(build_tree(seen[r][-1], cands))
    ids, ancestry, _ = pack_trees(trees)
    logits = torch.randn(rows, ids.shape[1], VOCAB)
    hf = RepetitionPenaltyLogitsProcessor(penalty)
    want = logits.clone()
    for r, tree in enumerate(trees):
        for node in range(tree.num_nodes):
            sequence = torch.tensor([seen[r] + _path(tree, node)])
            want[r, node] = hf(sequence, logits[r, node][None].clone())[0]
    got = penalize(logits.clone(), seen_matrix([_seen(s) for s in seen]), ids, ancestry, penalty)
    for r, tree in enumerate(trees):  # padding nodes' logits are never read
        assert torch.equal(got[r, : tree.num_nodes], want[r, : tree.num_nodes])


def test_seen_tokens_grow_by_new_tokens_only():
    s = _seen([3, 1, 3])
    assert s.ids().tolist() == [3, 1]
    s.update([1, 7])
    assert s.ids().tolist() == [3, 1, 7]
    assert seen_matrix([s, _seen([9])]).tolist() == [[3, 1, 7], [9, 9, 9]]


def test_bf16_logits_are_penalized_in_float32():
    """generate casts scores to float32 before its processors; so does the core."""
    logits = torch.tensor([[[1.0, -3.0, 2.5]]], dtype=torch.bfloat16)
    tree = build_tree(0, [])
    ids, ancestry, _ = pack_trees([tree])
    got = penalize(logits, seen_matrix([_seen([0, 1])]), ids, ancestry, 1.3)
    assert got.dtype == torch.float32
    scores = torch.tensor([1.0, -3.0])  # tokens 0 and 1, in float32
    want = torch.cat((torch.where(scores < 0, scores * 1.3, scores / 1.3), torch.tensor([2.5])))
    assert torch.equal(got[0, 0], want)
