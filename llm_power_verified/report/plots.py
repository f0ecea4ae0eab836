"""Figures of an audit (matplotlib, the optional ``plots`` extra), written through the one writer."""

from __future__ import annotations

import io as _stdio
from pathlib import Path

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.output import write_bytes
from llm_power_verified.leaderboard.audit import AuditResult

__all__ = ["plot_resolution", "save_figure"]


def save_figure(figure, path: str | Path) -> None:
    """Save a matplotlib figure through the one writer (format from the suffix, PNG by default) and close it."""
    # Optional dependency (extra plots): imported where it is used, so the package works without it.
    import matplotlib.pyplot as plt

    path = Path(path)
    buffer = _stdio.BytesIO()
    try:
        figure.savefig(buffer, format=(path.suffix.lstrip(".").lower() or "png"), dpi=120)
    finally:
        plt.close(figure)
    write_bytes(path, buffer.getvalue())


def plot_resolution(result: AuditResult, path: str | Path) -> None:
    """r = N*/N per pair on a log scale with the r = 1 line (the paper's Figures 2-3), and the
    efficiency gain against 1/(1 - rho) (Figure 1), saved as one image (needs matplotlib)."""
    try:
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib

        matplotlib.use("Agg")
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib.pyplot as plt
    except ImportError:
        raise ArgumentError("plots need matplotlib: pip install 'llm-power-verified[plots]'") from None
    pairs = result.pairs.sort_values("q", ascending=False)
    ratio = np.where(pairs["q"] > 0, 1 / pairs["q"].replace(0, np.nan), np.nan)
    ratio = np.nan_to_num(ratio, nan=np.nanmax(ratio[np.isfinite(ratio)]) * 10 if np.isfinite(ratio).any() else 10.0)
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [f"{a} vs {b}" for a, b in zip(pairs["model_a"], pairs["model_b"])]
    colours = ["tab:red" if r > 1 else "tab:blue" for r in ratio]
    axes[0].bar(range(len(ratio)), ratio, color=colours)
    axes[0].axhline(1.0, linestyle="--", color="black")
    axes[0].set_yscale("log")
    axes[0].set_ylabel("r = N* / N")
    axes[0].set_title(f"Resolution per pair ({int((ratio > 1).sum())} of {len(ratio)} unresolved)")
    if len(labels) <= 30:
        axes[0].set_xticks(range(len(labels)), labels, rotation=70, ha="right", fontsize=7)
    rho = pairs["rho"].to_numpy()
    gain = pairs["efficiency_gain"].to_numpy()
    axes[1].scatter(rho, gain, facecolors="none", edgecolors="tab:blue", label="unpaired N / paired N*")
    grid = np.linspace(max(np.nanmin(rho), -0.5), min(np.nanmax(rho), 0.99), 200) if np.isfinite(rho).any() else np.linspace(0, 0.9, 200)
    axes[1].plot(grid, 1 / (1 - grid), linestyle="--", color="black", label="1 / (1 - rho)")
    axes[1].set_xlabel("rho")
    axes[1].set_ylabel("efficiency gain")
    axes[1].set_title("Efficiency of the paired design")
    axes[1].legend()
    figure.tight_layout()
    save_figure(figure, path)
