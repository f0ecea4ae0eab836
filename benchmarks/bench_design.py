"""Import time of llm_power_verified and the speed of a vectorised N* over 10^6 inputs.

Run: python benchmarks/bench_design.py

Prints
* the import time (median of 5 fresh interpreters) and whether SymPy was imported;
* the time of required_n_paired_binary over 10^6 (p_a, p_b, rho) triples;
* the same computation as a Python loop over scalars (timed on 10^4 triples
  and scaled to 10^6), and the ratio of the two.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

import numpy as np

SIZE = 1_000_000
LOOP_SIZE = 10_000


def import_time() -> tuple[float, bool]:
    code = (
        "import time, sys; t = time.perf_counter(); import llm_power_verified; "
        "print(time.perf_counter() - t, 'sympy' in sys.modules)"
    )
    runs = []
    sympy_loaded = False
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        runs.append(float(out[0]))
        sympy_loaded |= out[1] == "True"
    return statistics.median(runs), sympy_loaded


def inputs(size: int, seed: int = 20261121):
    rng = np.random.default_rng(seed)
    p_a = rng.uniform(0.05, 0.95, size)
    p_b = np.clip(p_a - rng.uniform(0.001, 0.05, size), 0.01, 0.99)
    import llm_power_verified as lpv

    low, high = lpv.admissible_rho_interval(p_a, p_b)
    rho = low + (high - low) * rng.uniform(0.05, 0.95, size)
    return p_a, p_b, rho


def main() -> None:
    seconds, sympy_loaded = import_time()
    print(f"import llm_power_verified: {seconds * 1e3:.1f} ms (median of 5); SymPy imported: {sympy_loaded}")
    import llm_power_verified as lpv

    p_a, p_b, rho = inputs(SIZE)
    lpv.required_n_paired_binary(p_a[:10], p_b[:10], rho[:10])
    start = time.perf_counter()
    vectorised = lpv.required_n_paired_binary(p_a, p_b, rho)
    vector_seconds = time.perf_counter() - start
    start = time.perf_counter()
    looped = [
        lpv.required_n_paired_binary(float(a), float(b), float(r))
        for a, b, r in zip(p_a[:LOOP_SIZE], p_b[:LOOP_SIZE], rho[:LOOP_SIZE], strict=True)
    ]
    loop_seconds = (time.perf_counter() - start) * SIZE / LOOP_SIZE
    assert np.allclose(looped, vectorised[:LOOP_SIZE], rtol=1e-15)
    print(
        f"vectorised N* over {SIZE:,} inputs: {vector_seconds * 1e3:.1f} ms ({vector_seconds / SIZE * 1e9:.0f} ns per "
        "input)"
    )
    print(
        f"scalar loop, scaled to {SIZE:,}: {loop_seconds:.1f} s; ratio loop / vectorised: "
        f"{loop_seconds / vector_seconds:.0f}x"
    )


if __name__ == "__main__":
    main()
