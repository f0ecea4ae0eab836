"""A saved audit report checked against itself before a plan uses it.

A JSON audit report holds, beside the figures a plan uses (``n_items``,
each pair's accuracies, rho-hat and N*), the counts they were computed from.
Every figure that can be recomputed from the report's own counts is
recomputed with the package's functions and compared:

* per-item reports (``audit/2``): each pair's ``n`` is ``data.n_items`` and,
  for 0/1 scores, a + b + c + d = n; p_a = (a + b)/n, p_b = (a + c)/n,
  delta = (b - c)/n, rho = phi(a, b, c, d) and ``required_n`` = N* from
  (b, c, n) at the report's alpha and power (Eq. 6 at the observed table);
  for graded scores, delta = p_a - p_b, sigma_D^2 from the two variances and
  rho, and ``required_n`` = Eq. 3 at sigma_D^2; with clusters, the design
  effect 1 + (m - 1) max(ICC, 0) at the report's mean cluster size;
* accuracies-only reports (``audit-accuracies/1``): each pair's ``n`` is
  ``data.n_items``, delta = p_a - p_b, [rho_min, rho_max] the admissible
  interval of (p_a, p_b) (Eqs. 7-8) and N* at both ends;
* both: ``data.n_models`` is the length of the ranking, every pair's ranks and
  accuracies are those of its models in the ranking.

A figure that disagrees is refused in one line naming the pair, the key, the
value written and the value recomputed.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from llm_power_verified.io.errors import InputError
from llm_power_verified.leaderboard.pairs import adjacent_ranks
from llm_power_verified.power.clustering import design_effect
from llm_power_verified.power.correlation import admissible_rho_interval, correlation_from_counts
from llm_power_verified.power.sample_size import required_n_from_counts, required_n_paired_binary, required_n_wald

__all__ = ["RELATIVE_TOLERANCE", "check_report_figures"]

#: Written and recomputed figures agree within this relative difference (absolute for values within 1 of 0).
#: The report prints floats by ``repr`` (17 significant digits, exact round trip), and a recomputation in another
#: order of operations differs from the audit's by a few ulps (below 1e-14); 1e-9 leaves five orders of magnitude
#: of room and still moves no N* below a billion by a whole item.
RELATIVE_TOLERANCE = 1e-9


def _agree(written: float, recomputed: float) -> bool:
    if math.isnan(written) or math.isnan(recomputed):
        return math.isnan(written) and math.isnan(recomputed)
    if math.isinf(written) or math.isinf(recomputed):
        return written == recomputed
    return abs(written - recomputed) <= RELATIVE_TOLERANCE * max(1.0, abs(written), abs(recomputed))


def _show(value: float) -> str:
    if math.isnan(value):
        return "null"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


class _Checker:
    def __init__(self, pairs: pd.DataFrame, source: str, writer: str):
        self.pairs, self.source, self.writer = pairs, source, writer

    def where(self, index: int) -> str:
        row = self.pairs.iloc[index]
        return f"{self.source}, pairs[{index}] ({row['model_a']} vs {row['model_b']})"

    def compare(self, key: str, recomputed, basis: str) -> None:
        """Refuse the first pair whose ``key`` disagrees with ``recomputed`` (one value per pair)."""
        written = self.pairs[key].to_numpy(dtype=np.float64)
        recomputed = np.broadcast_to(np.asarray(recomputed, dtype=np.float64), written.shape)
        for index, (value, expected) in enumerate(zip(written.tolist(), recomputed.tolist(), strict=True)):
            if not _agree(value, expected):
                raise InputError(
                    f"{self.where(index)}.{key}: the report says {_show(value)}, but recomputed from its own {basis} "
                    f"it is {_show(expected)} (the two must agree within a relative {RELATIVE_TOLERANCE:g}); the "
                    "report "
                    f"is damaged or was edited: write it again with {self.writer}"
                )


def _counts(checker: _Checker, pairs: pd.DataFrame) -> tuple[np.ndarray, ...]:
    cells = []
    for key in ("a", "b", "c", "d"):
        values = pairs[key].to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values) | (values < 0) | (values != np.round(values))
        if bad.any():
            index = int(np.argmax(bad))
            raise InputError(
                f"{checker.where(index)}.{key}: {_show(float(values[index]))} is not a count (a whole number >= 0)"
            )
        cells.append(values)
    checker.compare("n", cells[0] + cells[1] + cells[2] + cells[3], "cells a + b + c + d")
    return tuple(cells)


def _binary(checker: _Checker, pairs: pd.DataFrame, n_items: int, alpha: float, power: float) -> None:
    a, b, c, d = _counts(checker, pairs)
    n = float(n_items)
    checker.compare("p_a", (a + b) / n, "cells (a + b) / n")
    checker.compare("p_b", (a + c) / n, "cells (a + c) / n")
    checker.compare("delta", (b - c) / n, "cells (b - c) / n")
    checker.compare("rho", correlation_from_counts(a, b, c, d), "cells' phi coefficient")
    checker.compare(
        "required_n",
        required_n_from_counts(b, c, n, alpha, power),
        f"cells b, c, n at alpha {alpha:g}, power {power:g} (Eq. 6)",
    )


def _graded(checker: _Checker, pairs: pd.DataFrame, alpha: float, power: float) -> None:
    checker.compare("delta", pairs["p_a"] - pairs["p_b"], "p_a - p_b")
    variance = pairs["variance"].to_numpy(dtype=np.float64)
    if {"variance_a", "variance_b"} <= set(pairs):
        var_a, var_b = pairs["variance_a"].to_numpy(dtype=np.float64), pairs["variance_b"].to_numpy(dtype=np.float64)
        rho = np.nan_to_num(
            pairs["rho"].to_numpy(dtype=np.float64)
        )  # rho is undefined (null) only for a constant model
        with np.errstate(invalid="ignore", over="ignore"):  # an edited huge variance: compared as inf, then refused
            checker.compare(
                "variance",
                np.maximum(var_a + var_b - 2 * rho * np.sqrt(var_a * var_b), 0.0),
                "variance_a + variance_b - 2 rho sqrt(variance_a variance_b)",
            )
    bad = ~np.isfinite(variance) | (variance < 0)
    if bad.any():
        index = int(np.argmax(bad))
        raise InputError(
            f"{checker.where(index)}.variance: {_show(float(variance[index]))} is not a variance (finite, >= 0)"
        )
    with np.errstate(over="ignore"):  # an edited huge variance: N* inf, then refused as disagreeing
        required = required_n_wald(variance, pairs["delta"].to_numpy(dtype=np.float64), alpha, power)
    checker.compare("required_n", required, f"variance and delta at alpha {alpha:g}, power {power:g} (Eq. 3)")


def _ranking(checker: _Checker, pairs: pd.DataFrame, ranking, n_models: int, accuracy_key: str) -> None:
    source = checker.source
    if not isinstance(ranking, list) or not all(isinstance(row, dict) for row in ranking):
        raise InputError(f"{source}: ranking must be a list of objects (one per model)")
    if len(ranking) != n_models:
        raise InputError(
            f"{source}: data.n_models says {n_models} but the ranking lists {len(ranking)} models; "
            "the report is damaged or was edited"
        )
    known = {}
    for index, row in enumerate(ranking):
        model, rank, accuracy = row.get("model"), row.get("rank"), row.get(accuracy_key)
        if (
            not isinstance(model, str)
            or isinstance(rank, bool)
            or not isinstance(rank, int)
            or isinstance(accuracy, bool)
            or not isinstance(accuracy, (int, float))
        ):
            raise InputError(
                f"{source}, ranking[{index}]: needs a model name, a whole rank and a number {accuracy_key}"
            )
        if model in known:
            raise InputError(f"{source}, ranking[{index}]: model {model!r} is listed twice")
        known[model] = (rank, float(accuracy))
    for side in ("a", "b"):
        models = pairs[f"model_{side}"]
        missing = ~models.isin(list(known))
        if missing.any():
            index = int(np.argmax(missing.to_numpy()))
            raise InputError(
                f"{checker.where(index)}.model_{side}: {models.iloc[index]!r} is not in the report's ranking"
            )
        checker.compare(f"rank_{side}", [known[model][0] for model in models], f"ranking's rank of model_{side}")
        checker.compare(f"p_{side}", [known[model][1] for model in models], f"ranking's {accuracy_key} of model_{side}")


def check_report_figures(
    pairs: pd.DataFrame,
    document: dict,
    *,
    summary: bool,
    binary: bool,
    n_items: int,
    n_models: int,
    alpha: float,
    power: float,
    weighted_cluster_size: float | None,
    source: str,
) -> None:
    """Refuse (``InputError``) a report whose figures disagree with its own counts (see the module notes).

    Parameters
    ----------
    pairs : pandas.DataFrame
        The report's pair table as read (one row per pair).
    document : dict
        The parsed report.
    summary : bool
        True for an accuracies-only report (audit-accuracies/1).
    binary : bool
        True for 0/1 scores (cells a..d), False for graded ones (variances).
    n_items, n_models : int
        The report's ``data.n_items`` and ``data.n_models``.
    alpha, power : float
        The report's operating point.
    weighted_cluster_size : float or None
        The report's size-weighted cluster size sum m_g^2 / N (the design effect's m), when it has clusters.
    source : str
        The file, for the messages.

    Returns
    -------
    None
        Nothing when every figure agrees within ``RELATIVE_TOLERANCE``.

    Raises
    ------
    llm_power_verified.io.errors.InputError
        The first figure that disagrees, naming the pair, the key, the value written and the value recomputed.

    Notes
    -----
    Per-item 0/1: p_a = (a + b)/n, p_b = (a + c)/n, delta = (b - c)/n, rho = phi(a, b, c, d) and N* at the observed
    table (Eq. 6, ``derivations/observed_table.py``); graded: N* = Eq. 3 at sigma_D^2; with clusters, the design
    effect (``derivations/design_effect.py``); accuracies only: the admissible interval (Eqs. 7-8,
    ``derivations/admissible_correlation.py``) and N* at both ends.
    """
    checker = _Checker(pairs, source, f"llm-power-verified {'audit-accuracies' if summary else 'audit'} --format json")
    checker.compare("n", np.full(len(pairs), float(n_items)), "data.n_items")
    # adjacent is the contract's one rule, abs(rank_a - rank_b) = 1 (leaderboard.pairs.adjacent_ranks).
    expected = np.asarray(adjacent_ranks(pairs["rank_a"], pairs["rank_b"]), dtype=bool)
    wrong = pairs["adjacent"].to_numpy(dtype=bool) != expected
    if wrong.any():
        index = int(np.argmax(wrong))
        raise InputError(
            f"{checker.where(index)}.adjacent: the report says {bool(pairs['adjacent'].iloc[index])}, but its ranks "
            f"{int(pairs['rank_a'].iloc[index])} and {int(pairs['rank_b'].iloc[index])} make it "
            f"{bool(expected[index])} "
            "(adjacent: abs(rank_a - rank_b) = 1); the report is damaged or was edited: write it again with "
            f"{checker.writer}"
        )
    if "ranking" in document:
        _ranking(checker, pairs, document["ranking"], n_models, "accuracy" if summary else "mean_score")
    if summary:
        p_a, p_b = pairs["p_a"].to_numpy(dtype=np.float64), pairs["p_b"].to_numpy(dtype=np.float64)
        checker.compare("delta", p_a - p_b, "p_a - p_b")
        interval = admissible_rho_interval(p_a, p_b)
        checker.compare("rho_min", interval.low, "accuracies' admissible interval (Eq. 8)")
        checker.compare("rho_max", interval.high, "accuracies' admissible interval (Eq. 7)")
        for end in ("min", "max"):
            if f"required_n_rho_{end}" in pairs:
                rho = interval.low if end == "min" else interval.high
                checker.compare(
                    f"required_n_rho_{end}",
                    required_n_paired_binary(p_a, p_b, rho, alpha, power),
                    f"accuracies at rho_{end}, alpha {alpha:g}, power {power:g} (Eq. 6)",
                )
        return
    if binary:
        _binary(checker, pairs, n_items, alpha, power)
    else:
        _graded(checker, pairs, alpha, power)
    if weighted_cluster_size is not None and "design_effect" in pairs:
        icc = pairs["icc"].to_numpy(dtype=np.float64) if "icc" in pairs else np.full(len(pairs), np.nan)
        checker.compare(
            "design_effect",
            np.where(np.isnan(icc), np.nan, design_effect(weighted_cluster_size, np.nan_to_num(icc))),
            f"ICC at the size-weighted cluster size {weighted_cluster_size:g}",
        )
