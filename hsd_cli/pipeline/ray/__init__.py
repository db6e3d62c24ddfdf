"""`hsd convert --engine ray`: the same pages, stages and outputs as the local runner, spread
over a Ray cluster (many GPUs, many machines). Ray is an optional extra: `pip install "hsd-cli[ray]"`.

- stages.py: the Ray Data stages (prepare on CPU tasks, verify on actors holding one target each)
- engine.py: the driver: plan (resume), run the dataset, write pages as they stream back;
  its converter (driver/choose.py, as the actors') says what it needs without loading a model
- cluster.py: joining or starting the cluster, and Ray's own log lines kept in a file
"""

from __future__ import annotations

from types import ModuleType

from hsd_cli.errors import UsageError

INSTALL = 'pip install "hsd-cli[ray]"'


def import_ray() -> ModuleType:
    """The ray module, or one usage error line saying how to install it."""
    try:
        import ray
        import ray.data  # the pipeline needs Ray Data, not only Ray core
    except ImportError as e:
        raise UsageError(f"--engine ray needs Ray Data, which is not installed ({e.name or e}): {INSTALL}") from None
    return ray
