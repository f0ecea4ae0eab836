"""Three backends with one interface: ``Backend.map`` (function, tasks, shared) -> results in task order.

* :class:`LocalBackend`: a loop in this process (the default everywhere).
* :class:`JoblibBackend`: a pool of local threads (``"threads"``: NumPy
  releases the GIL in its array arithmetic) or processes (``"joblib"``,
  joblib's loky).
* :class:`DaskBackend`: a ``dask.distributed`` cluster, either an existing one
  (``scheduler="tcp://host:8786"``, the address ``dask scheduler`` prints) or a
  LocalCluster of ``workers`` single-threaded processes started for the run.
  The scheduler's HTTP server takes a free port (``:0``: a second cluster on
  the machine never collides with the first, and nothing is printed).
  The shared data is scattered to every worker once (``broadcast=True``);
  at most two tasks per worker are in flight, so results arrive in order
  without the client holding more than a few at a time.

A remote cluster's workers need this package installed at the client's
version (they import the mapped function by name).

Local workers are bounded: at most :func:`max_local_workers`, the number of
CPUs this process may use or 4, whichever is larger (more processes than
CPUs only add memory; 4 keeps a small parallel run possible on a one-CPU
machine).  More is refused in one line with the figure and the range, so
that ``--workers 1000`` never starts a thousand processes.
"""

from __future__ import annotations

import collections
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError

__all__ = ["BACKENDS", "Backend", "DaskBackend", "JoblibBackend", "LocalBackend", "backend_for", "max_local_workers"]

BACKENDS = ("local", "threads", "joblib", "dask")


class Backend:
    """Maps ``function(*shared, *task)`` over ``tasks``; results in task order.  A context manager."""

    name = "local"
    workers = 1

    @docfill("map_function", "tasks", "shared")
    def map(self, function: Callable, tasks: Iterable[Sequence[Any]], shared: Sequence[Any] = ()) -> Iterator[Any]:
        """Map ``function`` over ``tasks``; the results come in task order, as each is ready.

        Parameters
        ----------
        %(map_function)s
        %(tasks)s
        %(shared)s

        Yields
        ------
        object
            ``function(*shared, *task)`` for each task, in task order.

        Examples
        --------
        >>> from llm_power_verified.parallel import LocalBackend
        >>> list(LocalBackend().map(pow, [(3,), (4,)], shared=(2,)))
        [8, 16]
        """
        raise NotImplementedError  # pragma: no cover

    def close(self) -> None:
        """Release what the backend started (nothing for the local loop)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(workers={self.workers})"


class LocalBackend(Backend):
    """A loop in this process."""

    @docfill("map_function", "tasks", "shared")
    def map(self, function: Callable, tasks: Iterable[Sequence[Any]], shared: Sequence[Any] = ()) -> Iterator[Any]:
        """Call ``function`` task after task, in this process.

        Parameters
        ----------
        %(map_function)s
        %(tasks)s
        %(shared)s

        Yields
        ------
        object
            ``function(*shared, *task)`` for each task, in task order.

        Examples
        --------
        >>> list(LocalBackend().map(pow, [(2, 3), (3, 2)]))
        [8, 9]
        """
        for task in tasks:
            yield function(*shared, *task)


class JoblibBackend(Backend):
    """``workers`` local threads (``prefer="threads"``) or processes (``prefer="processes"``) through joblib.

    Parameters
    ----------
    workers : int, default 2
        Number of threads or processes, from 1 to :func:`max_local_workers`.
    prefer : {"processes", "threads"}, default "processes"
        Processes (joblib's loky; the backend's name is "joblib") or threads (its name is "threads").

    Raises
    ------
    llm_power_verified.errors.ArgumentError
        For ``workers`` outside 1 to :func:`max_local_workers`, or another ``prefer``.
    """

    def __init__(self, workers: int = 2, prefer: str = "processes") -> None:
        self.workers = _check_workers(workers)
        if prefer not in ("threads", "processes"):
            raise ArgumentError(f"prefer must be 'threads' or 'processes'; got {prefer!r}")
        self.prefer = prefer
        self.name = "threads" if prefer == "threads" else "joblib"

    @docfill("map_function", "tasks", "shared")
    def map(self, function: Callable, tasks: Iterable[Sequence[Any]], shared: Sequence[Any] = ()) -> Iterator[Any]:
        """Map ``function`` over ``tasks`` in the pool (joblib's generator output: results in task order).

        Parameters
        ----------
        %(map_function)s
        %(tasks)s
        %(shared)s

        Yields
        ------
        object
            ``function(*shared, *task)`` for each task, in task order.

        Examples
        --------
        >>> with JoblibBackend(2, prefer="threads") as backend:
        ...     list(backend.map(pow, [(3,), (4,)], shared=(2,)))
        [8, 16]
        """
        # Lazy: joblib costs 0.1 s at import and only a parallel run needs it.
        import joblib

        parallel = joblib.Parallel(n_jobs=self.workers, prefer=self.prefer, return_as="generator")
        yield from parallel(joblib.delayed(function)(*shared, *task) for task in tasks)


class DaskBackend(Backend):
    """A ``dask.distributed`` cluster (extra ``dask``): an existing scheduler, or a LocalCluster started here.

    Parameters
    ----------
    scheduler : str, optional
        The address of an existing cluster's scheduler (``tcp://host:8786``, as ``dask scheduler`` prints it).
    workers : int, optional
        Without ``scheduler``: the single-threaded worker processes of the LocalCluster started here, from 1 to
        :func:`max_local_workers` (default 2).  Not with ``scheduler``.
    memory_limit : int, optional
        Without ``scheduler``: each LocalCluster worker's memory limit in bytes (Dask's ``memory_limit``: the worker
        spills, pauses and at 95% is restarted past it); default Dask's (the machine's memory shared by the workers).
        Not with ``scheduler`` (an existing cluster's workers have their own).

    Raises
    ------
    ImportError
        Without ``dask.distributed`` installed.
    llm_power_verified.errors.ArgumentError
        For both ``scheduler`` and ``workers`` (or ``memory_limit``), a scheduler that cannot be reached, ``workers``
        out of range, or a ``memory_limit`` that is not a positive whole number of bytes.
    """

    name = "dask"

    def __init__(
        self, scheduler: str | None = None, workers: int | None = None, memory_limit: int | None = None
    ) -> None:
        if memory_limit is not None and (
            isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit < 1
        ):
            raise ArgumentError(f"memory_limit must be a positive whole number of bytes; got {memory_limit!r}")
        try:
            # Optional dependency (extra dask): imported where it is used, so the package works without it.
            from dask.distributed import Client, LocalCluster
        except ImportError as error:
            raise ImportError(
                "the Dask backend needs dask.distributed: pip install 'llm-power-verified[dask]'"
            ) from error
        self.cluster = None
        if scheduler:
            if workers is not None or memory_limit is not None:
                raise ArgumentError(
                    "give either a scheduler address (an existing cluster) or a number of workers and their memory "
                    "limit (a local cluster), not both"
                )
            try:
                self.client = Client(scheduler, timeout="10s")
            except (OSError, ValueError) as error:  # ValueError: a malformed address (say, no port)
                raise ArgumentError(
                    f"scheduler {scheduler!r}: cannot connect ({error}); give the address 'dask scheduler' printed, "
                    "such as tcp://10.0.0.5:8786"
                ) from None
        else:
            self.cluster = LocalCluster(
                n_workers=_check_workers(2 if workers is None else workers),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
                **({} if memory_limit is None else {"memory_limit": memory_limit}),
            )
            self.client = Client(self.cluster)
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))

    @docfill("map_function", "tasks", "shared")
    def map(self, function: Callable, tasks: Iterable[Sequence[Any]], shared: Sequence[Any] = ()) -> Iterator[Any]:
        """Submit the tasks to the cluster, at most two per worker in flight; results in task order.

        Parameters
        ----------
        %(map_function)s
        %(tasks)s
        %(shared)s

        Yields
        ------
        object
            ``function(*shared, *task)`` for each task, in task order.

        Notes
        -----
        The shared data is scattered to every worker once (``broadcast=True``) and released at the end; tasks still
        pending when the caller stops reading are cancelled.
        """
        handles = self.client.scatter(list(shared), broadcast=True, hash=False) if shared else []
        pending: collections.deque = collections.deque()
        try:
            for task in tasks:
                pending.append(self.client.submit(function, *handles, *task, pure=False))
                if len(pending) >= 2 * self.workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
            for handle in handles:
                handle.release()

    def close(self) -> None:
        """Close the client, and the LocalCluster if this backend started one."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def max_local_workers() -> int:
    """The most local workers (threads or processes) a backend starts: this process's CPUs, or 4 if fewer.

    Returns
    -------
    int
        max(the CPUs this process may use, 4).
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(cpus, 4)


def _check_workers(workers: Any) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ArgumentError(f"workers must be a positive integer; got {workers!r}")
    limit = max_local_workers()
    if workers > limit:
        raise ArgumentError(
            f"workers = {workers:,} is more than this machine runs at once: give 1 to {limit} "
            f"(its CPUs, or 4 if fewer); a larger run goes to a Dask cluster (scheduler address)"
        )
    return workers


def backend_for(
    backend: str | Backend | None = None, *, workers: int | None = None, scheduler: str | None = None
) -> Backend:
    """A backend from its name (one of ``BACKENDS``) or as given; ``scheduler`` implies Dask.

    Parameters
    ----------
    backend : {"local", "threads", "joblib", "dask"} or Backend, optional
        The backend's name, or a backend (returned as it is).  None: "local" for ``workers`` None or 1, else
        "threads".
    workers : int, optional
        Local workers, from 1 to :func:`max_local_workers`; "local" or None with 1 (or None) is the loop in this
        process.
    scheduler : str, optional
        An existing Dask cluster's scheduler address; only with ``backend`` None or "dask".

    Returns
    -------
    Backend
        A :class:`LocalBackend`, :class:`JoblibBackend` (threads or processes) or :class:`DaskBackend`.

    Raises
    ------
    llm_power_verified.errors.ArgumentError
        For another name, ``workers`` out of range, or a scheduler with a backend other than "dask".

    Examples
    --------
    >>> backend_for()
    LocalBackend(workers=1)
    >>> backend = backend_for("threads", workers=2)
    >>> backend, backend.name
    (JoblibBackend(workers=2), 'threads')
    """
    if isinstance(backend, Backend):
        return backend
    if scheduler:
        if backend not in (None, "dask"):
            raise ArgumentError(f"a scheduler address needs the dask backend; got backend {backend!r}")
        return DaskBackend(scheduler=scheduler, workers=workers)
    if backend is not None and backend not in BACKENDS:
        raise ArgumentError(f"backend must be one of {BACKENDS} or a Backend; got {backend!r}")
    if workers is not None:
        _check_workers(workers)
    if backend == "dask":
        return DaskBackend(workers=workers)
    if backend == "local" or workers in (None, 1):
        return LocalBackend()
    return JoblibBackend(workers, prefer="processes" if backend == "joblib" else "threads")
