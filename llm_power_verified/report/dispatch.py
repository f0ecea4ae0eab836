"""The one place that chooses a format: ``render`` (the report as text) and ``write`` (to a file or stdout).

They are :func:`~llm_power_verified.report.dispatch.render` and :func:`~llm_power_verified.report.dispatch.write`.

``format`` is one of the contract's ``FORMATS``;
the view options are checked here, once: ``width`` (the terminal table's
columns), ``columns`` (the per-item pair columns to show: names of the text
view's columns; in CSV, JSON Lines and Parquet, pair columns and the sets
"default" and "all", :mod:`~.column_choice`), ``wide`` (every
column, names whole), ``pairs`` ("top", "all" or "none": the pairs the text
formats list) and ``figures`` (the HTML page's figures).  Each format module
renders any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`)
and knows nothing of the others.

``write`` also takes an :class:`~llm_power_verified.leaderboard.request.AuditRequest` (a per-item audit not yet
run).
Parquet is the format that streams: ``write(request, "parquet", path)`` runs
the audit with its pair table handed to the file block by block, so the table
is never in memory (a request with item clusters runs in memory, as the
cluster bootstrap needs every pair at once); every other format runs the
request and renders the result.  ``write`` returns the audit, for the caller to gate and plot.
"""

from __future__ import annotations

from pathlib import Path

from llm_power_verified.contract import FORMATS, MACHINE_FORMATS, PAIR_LISTS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.escaping import terminal_lines
from llm_power_verified.io.output import write_chunks
from llm_power_verified.io.standard_output import write_stdout
from llm_power_verified.leaderboard.protocol import Audit
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.report import machine
from llm_power_verified.report.html import html_report
from llm_power_verified.report.text import text_report

__all__ = ["VIEW_OPTIONS", "render", "write"]

#: The view options of :func:`render` and :func:`write`, with their defaults.
VIEW_OPTIONS = {"width": 100, "columns": None, "wide": False, "pairs": "top", "figures": True}


def _view(audit, output: str, view: dict) -> dict:
    """The view options checked once: known names, a known format, a known pair list, a positive width."""
    unknown = sorted(set(view) - set(VIEW_OPTIONS))
    if unknown:
        raise ArgumentError(f"unknown view option {unknown[0]!r}; choose from {', '.join(VIEW_OPTIONS)}")
    if output not in FORMATS:
        raise ArgumentError(f"format must be one of {FORMATS}; got {output!r}")
    view = {**VIEW_OPTIONS, **view}
    if view["pairs"] not in PAIR_LISTS:
        raise ArgumentError(f"pairs must be one of {PAIR_LISTS}; got {view['pairs']!r}")
    if isinstance(view["width"], bool) or not isinstance(view["width"], int) or view["width"] < 1:
        raise ArgumentError(f"width must be a whole number of columns >= 1; got {view['width']!r}")
    if view["columns"] is not None and getattr(audit, "kind", None) == "accuracies":
        raise ArgumentError(
            "columns chooses per-item pair columns; an accuracies-only report fits its columns to the width"
        )
    return view


def render(audit, format: str = "table", **view) -> str:
    """An audit as text in one format.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): a per-item audit in memory
        or streamed, or an accuracies-only audit.
    format : {"table", "markdown", "html", "json", "jsonl", "csv"}, default "table"
        The format (the contract's ``FORMATS`` but Parquet, a binary file that :func:`write` writes).
    **view
        The view options, checked here (``VIEW_OPTIONS``): ``width`` (int, default 100), ``columns`` (list of str,
        per-item audits), ``wide`` (bool), ``pairs`` ("top", "all" or "none") and ``figures`` (bool, HTML).

    Returns
    -------
    str
        The report.

    Raises
    ------
    ArgumentError
        An unknown format or view option, a bad value of one, ``columns`` for an accuracies-only audit, or "parquet".

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> print(render(audit, "csv").splitlines()[0][:40])
    model_a,model_b,rank_a,rank_b,adjacent,d
    """
    view = _view(audit, format, view)
    if format == "parquet":
        raise ArgumentError("format 'parquet' is a binary file: write(audit, 'parquet', path)")
    if format in MACHINE_FORMATS:
        return b"".join(machine.chunks(audit, format, view["columns"])).decode("utf-8")
    if format == "html":
        return html_report(audit, figures=view["figures"], pairs=view["pairs"])
    return text_report(
        audit, format, width=view["width"], columns=view["columns"], wide=view["wide"], pairs=view["pairs"]
    )


def write(audit, format: str, path: str | Path | None = None, **view) -> Audit:
    """Write an audit in one format to a file or standard output, and return the audit.

    Text formats are written as the terminal shows them (no control or bidirectional character of an input raw);
    machine formats as they are, piece by piece.  Files are written atomically.

    Parameters
    ----------
    audit : Audit or AuditRequest
        Any audit of the protocol, or a request: written as Parquet, its pair table streams to the file block by
        block (never in memory; with item clusters it runs in memory); any other format runs it (``AuditRequest.run()``)
        and renders the result
        (:class:`~llm_power_verified.leaderboard.request.AuditRequest`).
    format : {"table", "markdown", "html", "json", "jsonl", "csv", "parquet"}
        The format (the contract's ``FORMATS``).
    path : str or Path, optional
        The file; None writes to standard output (Parquet needs a file).
    **view
        The view options of :func:`render`.

    Returns
    -------
    Audit
        The audit written (the request's result for a request), for the caller to gate and plot.

    Raises
    ------
    ArgumentError
        As :func:`render`, and Parquet without a path.
    OutputError
        When the file or standard output cannot be written.

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import AuditSettings
    >>> from llm_power_verified.leaderboard.request import AuditRequest
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> request = AuditRequest(from_array(scores, models=["x", "y", "z"]), AuditSettings(n_resamples=0))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "audit.md"
    ...     audit = write(request, "markdown", path)
    ...     path.read_text().startswith("#")
    True
    >>> audit.family_size
    2
    """
    columns = _view(audit, format, view)["columns"]
    if format == "parquet":
        if path is None:
            raise ArgumentError("format 'parquet' needs a file (Parquet is binary, not terminal output)")
        if isinstance(audit, AuditRequest) and audit.matrix.clusters is None:
            return machine.write_parquet(path, lambda sink: audit.stream(sink, arrow=True), columns)
        if isinstance(audit, AuditRequest):
            audit = audit.run()  # clusters: the cluster bootstrap needs every pair at once, so the audit runs in memory
        return machine.write_parquet(path, machine.parquet_blocks(audit), columns, audit.kind)
    if isinstance(audit, AuditRequest):
        audit = audit.run()
    if format in MACHINE_FORMATS:
        pieces = machine.chunks(audit, format, columns)
    else:
        pieces = [terminal_lines(render(audit, format, **view)).encode("utf-8")]
    if path is None:
        write_stdout(pieces)
    else:
        write_chunks(path, pieces)
    return audit
