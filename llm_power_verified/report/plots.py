"""Figures of an audit (matplotlib, the optional ``plots`` extra), written through the one writer.

* ``resolution``: r = N*/N per pair on a log scale with the r = 1 line (the
  paper's Figures 2-3), unresolved pairs in red;
* ``efficiency``: the paired design's gain, unpaired N / paired N*, against
  rho with the 1 / (1 - rho) curve (Figure 1);
* ``forest``: each model's mean score with its interval, its rank interval and
  letters (models sharing a letter are not significantly different);
* ``trajectory``: the monitor's log e-process against items with the
  log(1/alpha) line (``llm-power-verified monitor --plot``).

Labels stay legible at 60 models with long names: the figures grow with the
number of rows, and names longer than 28 characters are shortened in the
middle (the report's model table has them whole).
"""

from __future__ import annotations

import io as _stdio
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.output import write_bytes
from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.sequential.e_process import EProcessPath

__all__ = [
    "FIGURES",
    "figure_bytes",
    "plot_resolution",
    "plot_trajectory",
    "save_figure",
    "svg_figures",
    "write_figures",
]

FIGURES = ("resolution", "efficiency", "forest")
_LABEL = 28
#: Pairs drawn in the resolution figure (the smallest q first beyond that).
_MOST_PAIRS = 60


def _pyplot():
    try:
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib

        matplotlib.use("Agg")
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib.pyplot as plt
    except ImportError:
        raise ArgumentError("plots need matplotlib: pip install 'llm-power-verified[plots]'") from None
    plt.rcParams["svg.hashsalt"] = "llm-power-verified"  # stable ids in the SVG output
    return plt


def _short(name: str) -> str:
    return name if len(name) <= _LABEL else name[: _LABEL // 2 - 1] + "..." + name[-(_LABEL - _LABEL // 2 - 2) :]


def figure_bytes(figure, kind: str) -> bytes:
    """A matplotlib figure as PNG or SVG bytes (the figure is closed).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    kind : {"png", "svg"}
        The image format.

    Returns
    -------
    bytes
        The image.
    """
    plt = _pyplot()
    buffer = _stdio.BytesIO()
    try:
        figure.savefig(buffer, format=kind, dpi=120, metadata={"Date": None} if kind == "svg" else None)
    finally:
        plt.close(figure)
    return buffer.getvalue()


def save_figure(figure, path: str | Path) -> None:
    """Save a matplotlib figure through the one writer and close it.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    path : str or Path
        The file; the format comes from its suffix (PNG by default).
    """
    path = Path(path)
    write_bytes(path, figure_bytes(figure, path.suffix.lstrip(".").lower() or "png"))


def _resolution(result: AuditResult):
    plt = _pyplot()
    pairs = result.pairs.sort_values("q", kind="stable").head(_MOST_PAIRS).iloc[::-1]
    ratio = np.where(pairs["q"] > 0, 1 / pairs["q"].where(pairs["q"] > 0, np.nan), np.nan)
    finite = ratio[np.isfinite(ratio)]
    ratio = np.nan_to_num(ratio, nan=(finite.max() * 10 if finite.size else 10.0))
    figure, axis = plt.subplots(figsize=(8, 1.5 + 0.22 * len(pairs)))
    labels = [f"{_short(a)} vs {_short(b)}" for a, b in zip(pairs["model_a"], pairs["model_b"], strict=True)]
    axis.barh(range(len(ratio)), ratio, color=["tab:red" if r > 1 else "tab:blue" for r in ratio])
    axis.axvline(1.0, linestyle="--", color="black")
    axis.set_xscale("log")
    axis.set_yticks(range(len(labels)), labels, fontsize=7)
    axis.set_xlabel("r = N* / N  (r > 1: unresolved; a gap of 0 is drawn at the right edge)")
    shown = "" if len(result.pairs) <= _MOST_PAIRS else f", the {_MOST_PAIRS} with the smallest q"
    axis.set_title(
        f"Resolution per pair ({int((~result.pairs['resolved']).sum())} of {len(result.pairs)} unresolved{shown})"
    )
    figure.tight_layout()
    return figure


def _efficiency(result: AuditResult):
    plt = _pyplot()
    rho = result.pairs["rho"].to_numpy(dtype=np.float64)
    gain = result.pairs["efficiency_gain"].to_numpy(dtype=np.float64)
    figure, axis = plt.subplots(figsize=(6, 4.5))
    axis.scatter(rho, gain, facecolors="none", edgecolors="tab:blue", label="unpaired N / paired N*")
    finite = rho[np.isfinite(rho)]
    curve = (
        np.linspace(max(finite.min(), -0.5), min(finite.max(), 0.99), 200) if finite.size else np.linspace(0, 0.9, 200)
    )
    axis.plot(curve, 1 / (1 - curve), linestyle="--", color="black", label="1 / (1 - rho)")
    axis.set_xlabel("rho (correlation of the two models' per-item scores)")
    axis.set_ylabel("efficiency gain of the paired design")
    axis.set_title("Efficiency of the paired design")
    axis.legend()
    figure.tight_layout()
    return figure


def _forest(result: AuditResult):
    plt = _pyplot()
    ranking = result.ranking.iloc[::-1]
    rows = np.arange(len(ranking))
    figure, axis = plt.subplots(figsize=(8, 1.5 + 0.25 * len(ranking)))
    means = ranking["mean_score"].to_numpy()
    axis.errorbar(
        means,
        rows,
        xerr=[means - ranking["ci_low"].to_numpy(), ranking["ci_high"].to_numpy() - means],
        fmt="o",
        color="tab:blue",
        capsize=2,
    )
    labels = [
        f"{_short(model)}  " + ("" if pd.isna(low) else f"[{low}, {high}]  ") + letters
        for model, low, high, letters in zip(
            ranking["model"], ranking["rank_low"], ranking["rank_high"], ranking["letters"], strict=True
        )
    ]
    axis.set_yticks(rows, labels, fontsize=7)
    axis.set_xlabel(f"mean score with its {1 - result.alpha:.0%} interval")
    axis.set_title("Models: score interval, [rank interval] and letters (Holm over all pairs)")
    figure.tight_layout()
    return figure


def write_figures(result: AuditResult, folder: str | Path) -> list[Path]:
    """Every figure of an audit as PNG and SVG in a folder: resolution, efficiency, forest.

    Parameters
    ----------
    result : AuditResult
        A per-item audit in memory.
    folder : str or Path
        The folder (created if missing).

    Returns
    -------
    list of Path
        The files written.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in (("resolution", _resolution), ("efficiency", _efficiency), ("forest", _forest)):
        for kind in ("png", "svg"):
            path = folder / f"{name}.{kind}"
            write_bytes(path, figure_bytes(draw(result), kind))
            written.append(path)
    return written


def svg_figures(result: AuditResult) -> dict[str, str]:
    """Every figure of an audit as SVG text, for the HTML report.

    Parameters
    ----------
    result : AuditResult
        A per-item audit in memory.

    Returns
    -------
    dict of str to str
        Figure name ("resolution", "forest", "efficiency") -> SVG text.
    """
    return {
        name: figure_bytes(draw(result), "svg").decode("utf-8")
        for name, draw in (("resolution", _resolution), ("forest", _forest), ("efficiency", _efficiency))
    }


def plot_resolution(result: AuditResult, path: str | Path) -> None:
    """The resolution figure of an audit as one image.

    Parameters
    ----------
    result : AuditResult
        A per-item audit in memory.
    path : str or Path
        The file; the format comes from its suffix.
    """
    save_figure(_resolution(result), path)


def plot_trajectory(path: EProcessPath, alpha: float, target: str | Path) -> None:
    """An e-process trajectory: log e_t against the items t, the rejection line log(1/alpha), the first crossing marked.

    Parameters
    ----------
    path : EProcessPath
        The trajectory (:mod:`llm_power_verified.sequential`).
    alpha : float
        The level of the rejection line.
    target : str or Path
        The image file; the format comes from its suffix.
    """
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(7, 4))
    items = np.arange(1, path.log_e.size + 1)
    axis.plot(items, path.log_e, color="tab:blue", label=f"log e_t ({path.mixture} mixture)")
    axis.axhline(np.log(1 / alpha), linestyle="--", color="black", label="log(1/alpha)")
    first = path.first_crossing(alpha)
    if first is not None:
        axis.axvline(first, linestyle=":", color="tab:red", label=f"first crossing, item {first:,}")
    axis.set_xlabel("items t")
    axis.set_ylabel("log e_t")
    axis.legend()
    figure.tight_layout()
    save_figure(figure, target)
