"""Start-up: ``import llm_power_verified``, the first use of a room, and ``llm-power-verified --help``.

Run: python benchmarks/bench_import.py

Each figure is the median of 7 fresh interpreters, less the median of an
empty interpreter (``python -c pass``) for the in-process figures.  Targets
(issue 15): import < 0.25 s, --help < 0.3 s.  "previous" is e2a7b9b's 0.47 s
(import) and 0.70 s (--help).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

CASES = {
    "import llm_power_verified": "import llm_power_verified",
    "from llm_power_verified import required_n_paired_binary": "from llm_power_verified import "
    "required_n_paired_binary",
    "from llm_power_verified import mcnemar_exact": "from llm_power_verified import mcnemar_exact",
    "from llm_power_verified import audit_leaderboard": "from llm_power_verified import audit_leaderboard",
}


def median_seconds(command: list[str], repeats: int = 7) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    empty = median_seconds([sys.executable, "-c", "pass"])
    print(f"empty interpreter: {empty:.3f} s")
    for label, code in CASES.items():
        seconds = median_seconds([sys.executable, "-c", code]) - empty
        print(
            f"{label}: {seconds:.3f} s beyond the interpreter"
            + ("; target 0.25 s, previous 0.47 s" if code == "import llm_power_verified" else "")
        )
    help_seconds = median_seconds(["llm-power-verified", "--help"])
    print(f"llm-power-verified --help: {help_seconds:.3f} s in all; target 0.3 s, previous 0.70 s")


if __name__ == "__main__":
    main()
