"""A saved audit report as the input of a plan.

The report is ``audit --format json`` (per-item) or ``audit-accuracies --format json``.

Only what the plan needs is read (the pair table's ranks, gaps, requirements or
accuracies and admissible interval, the sizes and the operating point), with the
counts they were computed from, and each of it is checked: a report of another
schema, a pair without a needed key, or a value of the wrong type is refused
naming the file, the pair and the key; the JSON itself is parsed by
:func:`llm_power_verified.io.json_input.parse_json` (a repeated key, ``NaN`` or
``Infinity`` is refused); and every figure that can be recomputed from the
report's own counts must agree with them
(:func:`llm_power_verified.plan.report_checks.check_report_figures`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.contract import CORRECTIONS, SCHEMA_IDS
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.text import read_text
from llm_power_verified.plan.figures import AuditFigures
from llm_power_verified.plan.report_checks import check_report_figures

__all__ = ["read_audit_report"]

_PER_ITEM = SCHEMA_IDS["binary+graded"]
_SUMMARY = SCHEMA_IDS["accuracies"]
_NEEDED = {
    _PER_ITEM: ("model_a", "model_b", "rank_a", "rank_b", "adjacent", "delta", "p_a", "p_b", "rho", "required_n", "n"),
    _SUMMARY: ("model_a", "model_b", "rank_a", "rank_b", "adjacent", "delta", "p_a", "p_b", "rho_min", "rho_max", "n"),
}
#: The command that writes each kind of report (named when a report must be written again).
_WRITER = {
    _PER_ITEM: "llm-power-verified audit --format json",
    _SUMMARY: "llm-power-verified audit-accuracies --format json",
}
#: Keys the self-check needs besides: the cells of 0/1 scores, the variance of graded ones.
_COUNTS = {True: ("a", "b", "c", "d"), False: ("variance",)}
#: Keys read when present (and then checked).
_OPTIONAL = ("design_effect", "icc", "variance_a", "variance_b", "required_n_rho_min", "required_n_rho_max")


def _number(value, where: str) -> float:
    if value in ("inf", "-inf"):
        return math.inf if value == "inf" else -math.inf
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: {value!r} is not a number")
    return float(value)


def _field(document: dict, path: tuple[str, ...], source: str):
    value = document
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise InputError(
                f"{source}: the report has no {'.'.join(path)}; is it an audit JSON report of this package?"
            )
        value = value[key]
    return value


def read_audit_report(path: str | Path) -> AuditFigures:
    """The :class:`~llm_power_verified.plan.figures.AuditFigures` of a saved JSON audit report.

    The report is an audit/2 or an audit-accuracies/1 one.

    Parameters
    ----------
    path : str or pathlib.Path
        The report, as ``llm-power-verified audit --format json`` writes it (per-item or accuracies-only).

    Returns
    -------
    AuditFigures
        The pair table, sizes, operating point and clusters the plan needs.

    Raises
    ------
    llm_power_verified.io.errors.InputError
        A report of another schema, a pair without a needed key, a value of the wrong type, or a figure that
        disagrees with the report's own counts (:func:`~llm_power_verified.plan.report_checks.check_report_figures`),
        in one line naming the file, the pair and the key.

    Notes
    -----
    No formula: the figures are read, then recomputed from the counts and compared.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import llm_power_verified as lpv
    >>> from llm_power_verified.io.accuracy_table import read_accuracies
    >>> from llm_power_verified.leaderboard.accuracies import audit_accuracies
    >>> from llm_power_verified.report import render
    >>> audit = audit_accuracies(read_accuracies(Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "summary.json"
    ...     _ = path.write_text(render(audit, "json"))
    ...     figures = read_audit_report(path)
    >>> figures.n_models, figures.n_items, figures.accuracies
    (26, 12032, True)
    """
    path = Path(path)
    source = str(path)
    document = parse_json(read_text(path), source)
    schema = document.get("schema") if isinstance(document, dict) else None
    if schema not in _NEEDED:
        raise InputError(
            f"{source}: schema {schema!r} is not an audit report ({_PER_ITEM!r} or {_SUMMARY!r}); "
            f"write one with {_WRITER[_PER_ITEM]} (per-item results) or {_WRITER[_SUMMARY]} (one accuracy per model)"
        )
    summary = schema == _SUMMARY
    n_models, n_items = _whole(document, ("data", "n_models"), source), _whole(document, ("data", "n_items"), source)
    binary = True if summary else _flag(document, ("data", "binary"), source)
    needed = _NEEDED[schema] + (() if summary else _COUNTS[binary])
    pairs = _field(document, ("pairs",), source)
    if not isinstance(pairs, list):
        raise InputError(f"{source}: pairs must be a list")
    if not summary and not binary:
        _no_cells(pairs, source, _WRITER[schema])
    frame = pd.DataFrame(
        [_pair_row(record, f"{source}, pairs[{index}]", needed, schema) for index, record in enumerate(pairs)]
    )
    if frame.empty:
        raise InputError(f"{source}: the report has no pairs")
    for key in ("rank_a", "rank_b"):
        bad = ~np.isfinite(frame[key]) | (frame[key] != np.round(frame[key])) | (frame[key] < 1)
        if bad.any():
            index = int(np.argmax(bad.to_numpy()))
            raise InputError(
                f"{source}, pairs[{index}].{key}: {float(frame[key].iloc[index])!r} is not a rank (a whole number >= 1)"
            )
        frame[key] = frame[key].astype(int)
    clusters = None if summary else document.get("clusters")
    mean_size = weighted_size = None
    if clusters:
        if isinstance(clusters, dict) and "weighted_cluster_size" not in clusters:
            raise InputError(
                f"{source}: the report has no clusters.weighted_cluster_size (the size-weighted cluster size of its "
                f"design effects), so it was written by an older version: write the report again with {_WRITER[schema]}"
            )
        mean_size, weighted_size = (
            _cluster_size(document, key, source) for key in ("mean_cluster_size", "weighted_cluster_size")
        )
    correction = _correction(document, source, _WRITER[schema])
    if not summary:
        _check_consistent_settings(pairs, frame, clusters, correction, source, _WRITER[schema])
    figures = AuditFigures(
        pairs=frame,
        n_models=n_models,
        n_items=n_items,
        alpha=_probability(document, ("settings", "alpha"), source),
        power=_probability(document, ("settings", "power"), source),
        accuracies=summary,
        mean_cluster_size=mean_size,
        n_clusters=None if not clusters else _whole(document, ("clusters", "n_clusters"), source),
        source=source,
        binary=binary,
        correction=correction,
        weighted_cluster_size=weighted_size,
        min_effect=_min_effect(document, source, _WRITER[schema]),
        generations=None if summary else _generations(document, source, _WRITER[schema]),
    )
    check_report_figures(
        frame,
        document,
        summary=summary,
        binary=binary,
        n_items=figures.n_items,
        n_models=figures.n_models,
        alpha=figures.alpha,
        power=figures.power,
        weighted_cluster_size=weighted_size,
        source=source,
    )
    return figures


def _no_cells(pairs: list, source: str, writer: str) -> None:
    """A graded report has no 2x2 cells: pairs that carry b or c beside data.binary false were edited.

    Planned as graded, such a report is redone from its variances (142 items for a pair whose cells allow no gap of
    0.02 at all), so it is refused like the other edits.
    """
    for index, record in enumerate(pairs):
        if isinstance(record, dict):
            for key in ("b", "c"):
                if record.get(key) is not None:
                    raise InputError(
                        f"{source}, pairs[{index}].{key}: {record[key]!r}, a 0/1 cell, while data.binary is false "
                        f"(graded scores have no cells); the report is damaged or was edited: write it again with "
                        f"{writer}"
                    )


def _check_consistent_settings(pairs: list, frame: pd.DataFrame, clusters, correction: str, source: str, writer: str):
    """Refuse a per-item report whose clusters block or correction disagrees with its own pair table.

    Design effects in the pairs go with a clusters block (and no design effect with none); ``p_adjusted`` is the
    p-value column of ``settings.correction`` (the raw arbiter p for "none"), value for value.  An edit of either
    changes the plan, so it is refused like every other edited figure.
    """
    edited = f"the report is damaged or was edited: write it again with {writer}"
    if ("design_effect" in frame.columns) != bool(clusters):
        held = (
            "have design effects but the report has no clusters block"
            if clusters is None or not clusters
            else ("have no design effect but the report has a clusters block")
        )
        raise InputError(f"{source}: the pairs {held}; {edited}")
    column = None if correction == "none" else f"p_{correction}"
    for index, record in enumerate(pairs):
        raw = record.get("p_exact", record.get("p_t"))
        expected = raw if column is None else record.get(column)
        if "p_adjusted" in record and record["p_adjusted"] != expected and (column is None or column in record):
            raise InputError(
                f"{source}, pairs[{index}].p_adjusted: {record['p_adjusted']!r} is not the {correction} p-value "
                f"({expected!r}) that settings.correction {correction!r} says it is; {edited}"
            )


def _pair_row(record, where: str, needed: tuple, schema: str) -> dict:
    """One pair of a saved report: the fields a plan needs (and the optional ones it holds), each checked."""
    if not isinstance(record, dict):
        raise InputError(f"{where}: not an object")
    missing = [key for key in needed if key not in record]
    if missing:
        raise InputError(f"{where}: no {missing[0]!r}; plans need the full pair table ({_WRITER[schema]} writes it)")
    for key in ("model_a", "model_b"):
        if not isinstance(record[key], str):
            raise InputError(f"{where}.{key}: {record[key]!r} is not a model name")
    if not isinstance(record["adjacent"], bool):
        raise InputError(
            f"{where}.adjacent: {record['adjacent']!r} is not true or false; the report is damaged or was edited: "
            f"write it again with {_WRITER[schema]}"
        )
    row = {
        key: record[key] if key in ("model_a", "model_b", "adjacent") else _number(record[key], f"{where}.{key}")
        for key in needed
    }
    for key in _OPTIONAL:
        if key in record:
            row[key] = _number(record[key], f"{where}.{key}")
    return row


def _cluster_size(document: dict, key: str, source: str) -> float:
    """``clusters.<key>``, a finite number >= 1 (a report without the size-weighted size is older than it: refused)."""
    value = _number(_field(document, ("clusters", key), source), f"{source}: clusters.{key}")
    if not (math.isfinite(value) and value >= 1):
        raise InputError(f"{source}: clusters.{key} {value!r} is not a cluster size (a finite number >= 1)")
    return value


def _whole(document: dict, path: tuple[str, ...], source: str) -> int:
    value = _field(document, path, source)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{source}: {'.'.join(path)} {value!r} is not a whole number >= 1")
    return value


def _probability(document: dict, path: tuple[str, ...], source: str) -> float:
    value = _number(_field(document, path, source), f"{source}: {'.'.join(path)}")
    if not 0 < value < 1:
        raise InputError(f"{source}: {'.'.join(path)} {value!r} must lie in (0, 1)")
    return value


def _correction(document: dict, source: str, writer: str) -> str:
    """The correction the report was written with (``settings.correction``): the one its plan uses."""
    value = _field(document, ("settings", "correction"), source)
    if value not in CORRECTIONS:
        raise InputError(
            f"{source}: settings.correction {value!r} is not a correction this package writes "
            f"({', '.join(CORRECTIONS)}), so the plan cannot tell which to use; write the report again with {writer}"
        )
    return value


def _min_effect(document: dict, source: str, writer: str) -> float | None:
    """The audit's ``settings.min_effect``: DELTA in (0, 1), or None (null, or a report written without the key)."""
    settings = document.get("settings")
    value = settings.get("min_effect") if isinstance(settings, dict) else None
    if value is None:
        return None
    number = _number(value, f"{source}: settings.min_effect")
    if not 0 < number < 1:
        raise InputError(
            f"{source}: settings.min_effect {value!r} is not a smallest gap of interest (a number in (0, 1), or null); "
            f"the report is damaged or was edited: write it again with {writer}"
        )
    return number


def _generations(document: dict, source: str, writer: str) -> tuple[str, int, int] | None:
    """A report's ``generations`` summary as (label, fewest, most), or None: the report's items had one score each.

    Every N planned from the report holds at its generations per item, so the plan says it; a summary without its
    label or counts is refused like every other damaged figure.
    """
    block = document.get("generations")
    if block is None:
        return None
    edited = f"the report is damaged or was edited: write it again with {writer}"
    if not isinstance(block, dict):
        raise InputError(f"{source}: generations must be an object (the summary of the generations read); {edited}")
    label = block.get("label")
    if not isinstance(label, str) or not label:
        raise InputError(f"{source}: generations.label {label!r} is not what one generation is called; {edited}")
    low, high = block.get("count_low"), block.get("count_high")
    for key, value in (("count_low", low), ("count_high", high)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 2:
            raise InputError(f"{source}: generations.{key} {value!r} is not a count of generations (>= 2); {edited}")
    if low > high:
        raise InputError(f"{source}: generations.count_low {low} exceeds count_high {high}; {edited}")
    return label, low, high


def _flag(document: dict, path: tuple[str, ...], source: str) -> bool:
    value = _field(document, path, source)
    if not isinstance(value, bool):
        raise InputError(f"{source}: {'.'.join(path)} {value!r} is not true or false")
    return value
