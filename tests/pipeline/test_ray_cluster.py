"""pipeline/ray/cluster.py: a local Ray instance's workers run at the user's niceness, a cluster's as set."""

from __future__ import annotations

import pytest

from hsd_cli.errors import HsdError
from hsd_cli.pipeline.ray import cluster


class FakeRay:
    """Records the niceness the workers would be started with."""

    def __init__(self, fail: bool = False) -> None:
        self.fail, self.niceness, self.down = fail, None, False

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs) -> None:
        import os

        self.niceness = os.environ.get(cluster.NICENESS)
        if self.fail:
            raise ConnectionError("no cluster there\nmore")

    def shutdown(self) -> None:
        self.down = True


def test_a_local_instance_starts_its_workers_at_niceness_0(monkeypatch):
    monkeypatch.delenv(cluster.NICENESS, raising=False)
    ray = FakeRay()
    with cluster.connected(ray, None):
        pass
    assert ray.niceness == "0" and ray.down


def test_the_user_s_niceness_and_a_cluster_s_own_are_kept(monkeypatch):
    monkeypatch.setenv(cluster.NICENESS, "10")
    ray = FakeRay()
    with cluster.connected(ray, None):
        pass
    assert ray.niceness == "10"
    monkeypatch.delenv(cluster.NICENESS)
    ray = FakeRay()
    with cluster.connected(ray, "10.0.0.1:6379"):
        pass
    assert ray.niceness is None


def test_a_cluster_that_cannot_be_joined_is_one_line():
    with pytest.raises(HsdError) as raised, cluster.connected(FakeRay(fail=True), "x:1"):
        pass
    assert str(raised.value).startswith("cannot start or join the Ray cluster at x:1:")
    assert "\n" not in str(raised.value)
