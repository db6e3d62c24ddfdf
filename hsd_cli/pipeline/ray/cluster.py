"""The Ray cluster for one run: joined or started, and its own log lines kept out of the user's way."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TextIO

from hsd_cli.errors import HsdError
from hsd_cli.pipeline.verify import cause

NICENESS = "RAY_worker_niceness"  # Ray's own setting, read by the worker processes it starts


@contextmanager
def ray_log(err: TextIO, debug: bool) -> Iterator[TextIO]:
    """While Ray runs, its own log lines (worker deaths and retries, warnings) go to a file,
    named with --debug: the user reads one line per problem, from us. Yields our stderr."""
    if debug or err is not sys.__stderr__:  # tests and callers with their own stream: as is
        yield err
        return
    sys.stderr.flush()
    log = tempfile.NamedTemporaryFile("w", prefix="hsd-ray-", suffix=".log", delete=False)  # noqa: SIM115
    ours = os.fdopen(os.dup(2), "w", buffering=1, encoding=getattr(err, "encoding", None), errors="backslashreplace")
    saved = os.dup(2)
    os.dup2(log.fileno(), 2)
    try:
        with contextlib.redirect_stdout(log):  # Ray prints worker deaths to sys.stdout
            yield ours
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        ours.close()
        log.close()


@contextmanager
def connected(ray: ModuleType, address: str | None) -> Iterator[None]:
    """Join the cluster at `address`, or start a local instance (none when Ray is up already)."""
    if ray.is_initialized():
        yield
        return
    if not address:
        # A local instance's workers are this run's own work: at Ray's default niceness (15) they
        # all but stop beside any other load on the machine. A value the user set is kept.
        os.environ.setdefault(NICENESS, "0")
    try:
        ray.init(
            address=address or "local",
            log_to_driver=False,
            include_dashboard=False,
            logging_level=logging.ERROR,
            configure_logging=True,
        )
    except Exception as e:  # ConnectionError, ValueError, RuntimeError: one line
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise HsdError(f"cannot start or join {where}: {cause(e).splitlines()[0][:200]}") from None
    try:
        yield
    finally:
        ray.shutdown()
