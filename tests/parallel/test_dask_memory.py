"""The Dask backend's per-worker memory limit reaches the LocalCluster's workers; its refusals.

Under CI (``CI`` set) dask must be installed and these tests run; elsewhere they are skipped only when dask is
missing.
"""

from __future__ import annotations

import os

import pytest

from llm_power_verified.errors import ArgumentError
from llm_power_verified.parallel import DaskBackend

if not os.environ.get("CI"):
    pytest.importorskip("dask.distributed")


def test_memory_limit_is_each_workers_limit():
    with DaskBackend(workers=2, memory_limit=2**30) as backend:
        workers = backend.client.scheduler_info()["workers"].values()
        assert [worker["memory_limit"] for worker in workers] == [2**30, 2**30]
        assert list(backend.map(pow, [(2, 10), (3, 2)])) == [1024, 9]


@pytest.mark.parametrize("limit", [0, -5, 1.5e9, True, "2GB"])
def test_memory_limit_is_a_positive_whole_number_of_bytes(limit):
    with pytest.raises(ArgumentError, match="memory_limit must be a positive whole number of bytes"):
        DaskBackend(workers=1, memory_limit=limit)


def test_memory_limit_is_not_for_an_existing_cluster():
    with pytest.raises(ArgumentError, match="not both"):
        DaskBackend(scheduler="tcp://127.0.0.1:1", memory_limit=2**30)
