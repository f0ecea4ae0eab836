"""The deviation map of a calculator conformance check: its rows over two axes, and its figure.

The map's axes are, per quantity: the gap delta = p_a - p_b and rho (to the nearest 0.1: the grid moves rho inside
its admissible interval) for a required N (the worst over p, alpha and power in each cell), the discordant total
b + c and the share b / (b + c) (to the nearest 0.1) for a McNemar p-value, n and the effect
size for a paired t power, the effect size and the power for a paired t sample size.  Each cell holds the largest
relative error against the correct quantity over the grid points in it, and where it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llm_power_verified.errors import ArgumentError
from llm_power_verified.testing.conformance_results import CalculatorConformance, Deviation

__all__ = ["AXES", "REFERENCE_NAMES", "deviation_figure", "map_rows"]

Axis = tuple[str, Callable[[dict[str, float]], float]]


def _share(inputs: dict[str, float]) -> float:
    total = inputs["b"] + inputs["c"]
    return inputs["b"] / total if total else math.nan


#: Per quantity, the map's two axes: (label, value of a grid point's inputs).
AXES: dict[str, tuple[Axis, Axis]] = {
    "required_n": (("delta", lambda x: round(x["p_a"] - x["p_b"], 12)), ("rho to 0.1", lambda x: round(x["rho"], 1))),
    "pvalue": (("b + c", lambda x: x["b"] + x["c"]), ("b / (b + c) to 0.1", lambda x: round(_share(x), 1))),
    "power_paired_t": (("n", lambda x: x["n"]), ("effect_size", lambda x: x["effect_size"])),
    "required_n_paired_t": (("effect_size", lambda x: x["effect_size"]), ("power", lambda x: x["power"])),
}
#: Per quantity, what its correct quantity is called in the reports.
REFERENCE_NAMES = {
    "required_n": "the paired N*",
    "pvalue": "the exact McNemar p",
    "power_paired_t": "the noncentral-t power",
    "required_n_paired_t": "the noncentral-t n",
}


def _error(deviation: Deviation) -> float:
    """The error a cell ranks by: against the correct quantity; a failed point (no value) is the worst."""
    if deviation.value is None or deviation.error_against_correct is None:
        return math.inf
    error = deviation.error_against_correct
    return math.inf if math.isnan(error) else error


def map_rows(result: CalculatorConformance) -> list[dict[str, object]]:
    """The deviation map's rows: one per cell of the two axes, the worst grid point in it.

    Parameters
    ----------
    result : CalculatorConformance
        The check.

    Returns
    -------
    list of dict
        Per cell, in axis order: the two axis values, ``points`` (grid points in it), ``failed`` (those where the
        function returned no valid value), ``error_against_correct`` (the largest; inf where one failed),
        ``error_against_claim`` (the largest, None without a claim), and the worst point's ``inputs``, ``value``
        and ``correct``.

    Examples
    --------
    >>> from llm_power_verified.testing import check_calculator
    >>> def per_arm_total(b, c):
    ...     return 1.0 if b == c else 0.5
    >>> rows = map_rows(check_calculator(per_arm_total, "pvalue", max_examples=5))
    >>> sorted(rows[0])[:4], rows[0]["b + c"]
    (['b + c', 'b / (b + c) to 0.1', 'correct', 'error_against_claim'], 1.0)
    """
    (first, x_of), (second, y_of) = AXES[result.quantity]
    cells: dict[tuple[float, float], list[Deviation]] = {}
    for deviation in result.deviations:
        cells.setdefault((x_of(deviation.inputs), y_of(deviation.inputs)), []).append(deviation)
    rows = []
    for (x, y), members in sorted(cells.items()):
        worst = max(members, key=_error)
        claims = [item.error_against_claim for item in members if item.error_against_claim is not None]
        rows.append(
            {
                first: x,
                second: y,
                "points": len(members),
                "failed": sum(item.value is None for item in members),
                "error_against_correct": _error(worst),
                "error_against_claim": max(claims) if claims else None,
                "inputs": dict(worst.inputs),
                "value": worst.value,
                "correct": worst.correct,
            }
        )
    return rows


def deviation_figure(result: CalculatorConformance) -> str:
    """The deviation map as a heat map (SVG text): log10 of the largest relative error against the correct quantity.

    Parameters
    ----------
    result : CalculatorConformance
        The check.

    Returns
    -------
    str
        The ``<svg>`` element.  A cell where the function failed is marked x.

    Raises
    ------
    ArgumentError
        matplotlib is not installed (it is the optional ``plots`` extra).
    """
    try:
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib

        matplotlib.use("Agg")
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib.pyplot as plt
    except ImportError:
        raise ArgumentError("the deviation figure needs matplotlib: pip install 'llm-power-verified[plots]'") from None
    # Lazy: the figure writer sets matplotlib's backend, which only a drawn figure needs.
    from llm_power_verified.report.plots import figure_bytes

    (first, _), (second, _) = AXES[result.quantity]
    rows = map_rows(result)
    xs = sorted({row[first] for row in rows})
    ys = sorted({row[second] for row in rows})
    floor = 1e-16
    image = [[math.nan] * len(xs) for _ in ys]
    failed = []
    for row in rows:
        column, line = xs.index(row[first]), ys.index(row[second])
        error = row["error_against_correct"]
        if math.isinf(error):
            failed.append((column, line))
        else:
            image[line][column] = math.log10(max(error, floor))
    figure, axes = plt.subplots(figsize=(max(4.5, 0.55 * len(xs) + 2.5), max(3.2, 0.45 * len(ys) + 1.8)))
    shown = axes.imshow(image, origin="lower", aspect="auto", cmap="viridis", vmin=math.log10(floor), vmax=1)
    for column, line in failed:
        axes.text(column, line, "x", ha="center", va="center", color="crimson", fontsize=12, fontweight="bold")
    axes.set_xticks(range(len(xs)), [f"{value:g}" for value in xs], rotation=45 if len(xs) > 8 else 0)
    axes.set_yticks(range(len(ys)), [f"{value:g}" for value in ys])
    axes.set_xlabel(first)
    axes.set_ylabel(second)
    reference = REFERENCE_NAMES[result.quantity]
    axes.set_title(f"{result.function}: largest relative error against {reference}", fontsize=9)
    bar = figure.colorbar(shown, ax=axes)
    bar.set_label("log10 relative error (x: failed)")
    figure.tight_layout()
    svg = figure_bytes(figure, "svg").decode("utf-8")
    return svg[svg.index("<svg") :]
