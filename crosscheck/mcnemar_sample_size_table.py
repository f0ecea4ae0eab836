"""Exact McNemar sample sizes beside Connor (1987) and Eq. 6 over a grid of (p_A, p_B, rho).

Run: python -m crosscheck.mcnemar_sample_size_table [--json]

For each admissible (p_A, p_B, rho): Eq. 6's unrounded N*, Connor's N, and
the smallest n whose exact unconditional power reaches 0.80 at alpha 0.05 for
each McNemar variant, with the ratio exact / Eq. 6.
"""

from __future__ import annotations

import argparse

from llm_power_verified.power.mcnemar_power import sample_size_table

P_A = (0.55, 0.7, 0.85)
GAPS = (0.02, 0.05, 0.10)
RHO = (0.0, 0.3, 0.6)


def build():
    """The sample-size table over the module's grid, with each exact size's ratio to Eq. 6."""
    rows = []
    for p_a in P_A:
        for gap in GAPS:
            rows.append(sample_size_table([p_a], [round(p_a - gap, 10)], RHO))
    import pandas as pd

    table = pd.concat(rows, ignore_index=True)
    for method in ("chi2", "exact", "mid-p", "chi2-corrected"):
        table[f"{method}/eq6"] = table[method] / table["eq6"]
    return table


def main() -> None:
    """Print the table (as JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    table = build()
    if arguments.json:
        print(table.to_json(orient="records", indent=2))
    else:
        print(table.to_markdown(index=False, floatfmt=".4g") if _has_tabulate() else table.to_string(index=False))


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
