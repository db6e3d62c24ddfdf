"""Full-size architectures built on the meta device match the published parameter counts."""

from __future__ import annotations

import pytest

from hsd_cli.targets.runtime.registry import (
    FAMILIES,
    count_params,
    list_models,
    published_size,
)
from hsd_cli.targets.runtime.sizes import FULL_SIZE

CHECKPOINTS = [(family, hub_id) for family, _ in FAMILIES.values() for hub_id in family.hub_ids]


@pytest.mark.parametrize("family, hub_id", CHECKPOINTS, ids=[hub_id for _, hub_id in CHECKPOINTS])
def test_count_is_within_10_percent_of_published(family, hub_id):
    """Meta-device parameter count vs the published size (e.g. Qwen2.5-VL-3B: 3.755B vs 3.75B)."""
    published = float(published_size(family, hub_id).removesuffix("B")) * 1e9
    assert count_params(hub_id, family.model_type) == pytest.approx(published, rel=0.10)


def test_every_supported_checkpoint_has_full_size_numbers():
    """`hsd models --sizes` has a number for each listed hub id, and no numbers for unlisted ones."""
    assert set(FULL_SIZE) == {hub_id for _, hub_id in CHECKPOINTS}


def test_unknown_checkpoint_has_no_size():
    assert count_params("someone/unknown-ocr", "qwen2_vl") is None


def test_models_lists_every_checkpoint_with_its_own_published_size():
    """One row per hub id; a family's sizes are split per checkpoint ("3.75B / 8.29B" -> two rows)."""
    rows = {m.hub_id: m for m in list_models()}
    assert set(rows) == {hub_id for _, hub_id in CHECKPOINTS}
    assert rows["Qwen/Qwen2.5-VL-7B-Instruct"].published_params == "8.29B"
    assert all(isinstance(m.cached, bool) and m.params is None for m in rows.values())
