"""Where the work runs: in this process, in a pool of local processes (joblib), or on a Dask cluster.

Every backend maps one module-level function over a list of tasks and returns
the results in task order; the data every task shares is sent to each worker
once.  Work that is split this way (the audit's blocks of pairs, the Monte
Carlo grids' cells) carries its own seeds, so its results do not depend on the
backend or the number of workers.
"""

from llm_power_verified.parallel.backends import (
    BACKENDS,
    Backend,
    DaskBackend,
    JoblibBackend,
    LocalBackend,
    backend_for,
)

__all__ = ["BACKENDS", "Backend", "DaskBackend", "JoblibBackend", "LocalBackend", "backend_for"]
