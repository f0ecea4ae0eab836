"""Speed of the paired tests at leaderboard scale.

Run: python benchmarks/bench_paired_tests.py

* exact McNemar p-value for b + c = 10^6 (one call, median of 20), and for
  10^4 pairs at once with b + c = 10^6 each;
* the same 10^4 p-values by scipy.stats.binomtest in a Python loop (timed on
  200 pairs and scaled), and the ratio;
* paired bootstrap interval, B = 10,000, binary pair with N = 10^6 items.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from scipy.stats import binom, binomtest

from llm_power_verified import mcnemar_exact, mcnemar_midp, paired_bootstrap_counts


def timed(function, repeats: int = 20) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    rng = np.random.default_rng(20261121)
    single = timed(lambda: mcnemar_exact(499_000, 501_000))
    print(f"exact McNemar p, b + c = 1e6, one call: {single * 1e3:.3f} ms (median of 20)")
    centre = timed(lambda: mcnemar_exact(5_000_000, 5_000_000 - 4000), repeats=21)
    centre_scipy = timed(lambda: binom.cdf(4_996_000, 9_996_000, 0.5), repeats=21)
    print(
        f"exact McNemar p, b + c = 1e7 near the centre: {centre * 1e3:.3f} ms; scipy.stats.binom.cdf "
        f"{centre_scipy * 1e3:.3f} ms "
        f"-> ratio {centre / centre_scipy:.2f} (target <= 2; previous 4.5 ms)"
    )
    b = rng.integers(480_000, 520_000, 10_000)
    c = 1_000_000 - b
    batch = timed(lambda: mcnemar_exact(b, c), repeats=9)
    batch_mid = timed(lambda: mcnemar_midp(b, c), repeats=9)
    batch_scipy = timed(lambda: binom.cdf(np.minimum(b, c), b + c, 0.5), repeats=9)
    print(
        f"exact McNemar p, 10^4 pairs with b + c = 1e6: {batch * 1e3:.1f} ms ({batch / 1e4 * 1e6:.2f} us per pair); "
        f"scipy.stats.binom.cdf on the same arrays {batch_scipy * 1e3:.1f} ms -> ratio {batch / batch_scipy:.2f} "
        f"(target <= 2; previous 19.5 ms); mid-p {batch_mid * 1e3:.1f} ms"
    )
    audit_b, audit_c = rng.integers(0, 3000, 10_000), rng.integers(0, 3000, 10_000)
    audit = timed(lambda: mcnemar_exact(audit_b, audit_c), repeats=9)
    audit_scipy = timed(lambda: binom.cdf(np.minimum(audit_b, audit_c), audit_b + audit_c, 0.5), repeats=9)
    print(
        f"exact McNemar p, 10^4 audit-like pairs (b, c up to 3,000): {audit * 1e3:.1f} ms; binom.cdf "
        f"{audit_scipy * 1e3:.1f} ms "
        f"-> ratio {audit / audit_scipy:.2f}"
    )
    start = time.perf_counter()
    for i in range(200):
        binomtest(int(min(b[i], c[i])), 1_000_000, 0.5)
    loop = (time.perf_counter() - start) * 10_000 / 200
    print(f"scipy.stats.binomtest loop, scaled to 10^4 pairs: {loop:.2f} s; ratio: {loop / batch:.0f}x")
    boot = timed(lambda: paired_bootstrap_counts(200_000, 190_000, 1_000_000, n_resamples=10_000, seed=1), repeats=10)
    boot_bca = timed(
        lambda: paired_bootstrap_counts(200_000, 190_000, 1_000_000, n_resamples=10_000, interval="bca", seed=1),
        repeats=10,
    )
    print(
        f"paired bootstrap, N = 1e6 binary items, B = 10,000: percentile {boot * 1e3:.2f} ms, BCa "
        f"{boot_bca * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
