"""The floor of a leaderboard audit: read the file, form the pair statistics by one matrix product, test every pair.

Run: python benchmarks/floor.py FILE [--graded] [--mode all|adjacent] [--drop COLUMN]

What no audit of FILE can avoid, in one fresh process, without this package:

* binary (0/1) scores: pandas reads the wide table (an ``item_id`` column and one column per model), one float32
  Gram product gives every pair's both-correct count a, so b = n_A - a and c = n_B - a, and scipy's binomial CDF
  gives the exact two-sided McNemar p-value min(1, 2 P(Bin(b + c, 1/2) <= min(b, c)));
* graded scores (``--graded``): one float64 product gives the covariance matrix, so every pair's variance of the
  paired difference, and scipy's t distribution the paired-t p-value.

``--mode adjacent`` tests only the K - 1 neighbours in column order (a product per pair of columns, no K x K
array), the floor of the linear modes.  Prints the seconds from the start of the process (imports included) to
the last p-value, the peak resident memory of this process in MB and the pairs tested, as
``seconds peak_mb pairs``.
"""

from __future__ import annotations

import argparse
import resource
import time

START = time.perf_counter()

import numpy as np  # noqa: E402 - the imports are part of what the floor times
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402


def _read(path: str, drop: list[str]) -> np.ndarray:
    frame = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
    return frame.drop(columns=["item_id", *drop]).to_numpy()


def _binary(scores: np.ndarray, mode: str) -> np.ndarray:
    n_solved = scores.sum(axis=0, dtype=np.int64)
    if mode == "adjacent":
        both = np.einsum("ij,ij->j", scores[:, :-1], scores[:, 1:], dtype=np.int64)
        b, c = n_solved[:-1] - both, n_solved[1:] - both
    else:
        single = scores.astype(np.float32)
        gram = (single.T @ single).astype(np.int64)
        first, second = np.triu_indices(gram.shape[0], k=1)
        b, c = n_solved[first] - gram[first, second], n_solved[second] - gram[first, second]
    return np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(b, c), b + c, 0.5))


def _graded(scores: np.ndarray, mode: str) -> np.ndarray:
    n = scores.shape[0]
    means = scores.mean(axis=0)
    if mode == "adjacent":
        difference = scores[:, :-1] - scores[:, 1:]
        variance, gap = difference.var(axis=0, ddof=1), difference.mean(axis=0)
    else:
        covariance = np.cov(scores, rowvar=False)
        first, second = np.triu_indices(covariance.shape[0], k=1)
        variance = covariance[first, first] + covariance[second, second] - 2 * covariance[first, second]
        gap = means[first] - means[second]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = gap / np.sqrt(variance / n)
    return 2 * stats.t.sf(np.abs(t), n - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--graded", action="store_true")
    parser.add_argument("--mode", choices=("all", "adjacent"), default="all")
    parser.add_argument("--drop", action="append", default=[], help="a column that is not a model (a cluster label)")
    arguments = parser.parse_args()
    scores = _read(arguments.path, arguments.drop)
    compute, dtype = (_graded, np.float64) if arguments.graded else (_binary, np.int8)
    pvalues = compute(scores.astype(dtype), arguments.mode)
    seconds = time.perf_counter() - START
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{seconds:.4f} {peak_mb:.1f} {pvalues.size}")


if __name__ == "__main__":
    main()
