"""Every column of the audits' pair and model tables, declared once: name, meaning, kind, digits, audits, when present.

``PAIR_COLUMNS`` is in machine-format order (the CSV/JSON column order);
each audit's pair table holds the subsequence :func:`pair_columns` gives.
The legend (:func:`legend`), the JSON schemas and ``columns.rst``
(:mod:`llm_power_verified.report.schemas`) are read or generated from these
declarations.  Paper references are to Resolution Diagnostics for Paired LLM
Evaluation (arXiv 2605.30315).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from llm_power_verified.contract.choices import VERDICT_RULES
from llm_power_verified.contract.ranges import RANGES

__all__ = ["AUDITS", "KINDS", "MODEL_COLUMNS", "PAIR_COLUMNS", "WHEN", "Column", "column", "legend", "model_columns", "ordered",
           "pair_columns"]

#: The audits: per-item 0/1 scores, per-item graded scores, printed accuracies only.
AUDITS = ("binary", "graded", "accuracies")
#: ``decision``: a bool that is None (JSON null) outside the declared family; ``verdict``: text from VERDICT_KINDS.
KINDS = ("text", "int", "float", "bool", "decision", "verdict")
#: When a column is present (None: always, in the audits that have it).
WHEN = {
    "bootstrap": "with paired-bootstrap resamples (n_resamples > 0)",
    "clusters": "when the items have clusters",
    "cluster-bootstrap": "with clusters and cluster-bootstrap resamples (n_cluster_resamples > 0)",
    "assumption": "with an assumed correlation (--rho or --rho-range)",
    "rank-bootstrap": "with rank-bootstrap resamples (n_rank_resamples > 0)",
    "tiers": "when the adjacent pairs are reported (not --mode reference)",
    "text-tables": "in the text tables only, when the model names are long",
}


@dataclass(frozen=True)
class Column:
    """One declared column of a pair or model table.

    Attributes
    ----------
    name : str
        The column's name in every format (CSV header, JSON key, DataFrame column).
    meaning : str
        Its legend text.
    kind : {"text", "int", "float", "bool", "decision", "verdict"}
        The type (``KINDS``): a ``decision`` is a bool that is None outside the declared family, a ``verdict`` a
        text drawn from ``VERDICT_KINDS``.
    digits : int or None
        Significant digits in the text tables; None for a column that is not a number.
    audits : frozenset of str
        The audits that have it, a subset of ``AUDITS``.
    when : str or None
        When it is present (a key of ``WHEN``); None: always, in those audits.
    header : str
        Its label in the text tables.
    range : tuple or None
        (low, high), inclusive, None for an open end, of a numeric column that has one (``ranges.RANGES``); None:
        unbounded, or not a number.
    """

    name: str
    meaning: str
    kind: str
    digits: int | None
    audits: frozenset[str]
    when: str | None
    header: str
    range: tuple[float | None, float | None] | None = None


def _columns(audits: str, kind: str, entries: Iterable[tuple], when: str | None = None) -> tuple[Column, ...]:
    """Columns from (name, meaning[, digits[, header]]) entries; audits as letters: b(inary), g(raded), a(ccuracies)."""
    chosen = frozenset(name for name in AUDITS if name[0] in audits)
    made = []
    for name, meaning, *rest in entries:
        digits = rest[0] if rest else (4 if kind in ("int", "float") else None)
        header = rest[1] if len(rest) > 1 else name.replace("_", " ")
        made.append(Column(name, meaning, kind, digits, chosen, when, header, RANGES.get(name)))
    return tuple(made)


_ASSUMED = "ASSUMED: "
PAIR_COLUMNS: tuple[Column, ...] = (
    *_columns("bga", "text", [("model_a", "higher-ranked model (or the reference)"), ("model_b", "the other model")]),
    *_columns("bga", "int", [("rank_a", "rank of A"), ("rank_b", "rank of B")]),
    *_columns("bga", "bool", [("adjacent", "the two models are next in the ranking: abs(rank_a - rank_b) = 1")]),
    *_columns("bga", "float", [("delta", "gap: mean score of A minus B"), ("p_a", "accuracy (mean score) of A"),
                               ("p_b", "accuracy of B")]),
    *_columns("b", "int", [("a", "items both solve"), ("b", "items only A solves"), ("c", "items only B solves"),
                           ("d", "items neither solves")]),
    *_columns("bg", "float", [("rho", "correlation of the per-item scores (phi for 0/1)", 3)]),
    *_columns("b", "float", [("p_chi2", "McNemar chi-square p"), ("p_exact", "exact McNemar p (unadjusted)", 3),
                             ("log_p_exact", "its natural log"), ("p_midp", "McNemar mid-p", 3, "p mid-p")]),
    *_columns("g", "float", [("variance_a", "variance of A's scores"), ("variance_b", "variance of B's scores"),
                             ("t", "paired t statistic (graded)", 3), ("p_t", "paired t p (graded, unadjusted)", 3),
                             ("log_p_t", "its natural log")]),
    *_columns("bg", "float", [("variance", "sigma_D^2, the variance of the per-item difference"),
                              ("required_n", "N* (paper Eq. 6; Eq. 3 for graded)", 4, "N*")]),
    *_columns("b", "float", [("required_n_connor", "Connor's (1987) N")]),
    *_columns("bg", "float", [("mde", "minimum detectable effect at N (paper Eq. 4); n/a (JSON null) where the plug-in variance is 0: no "
                                              "item on which the two differ, so no detectable gap to state", 3, "MDE")]),
    *_columns("bg", "float", [
        ("boot_ci_low", "paired bootstrap interval of the gap at 1 - alpha, low"), ("boot_ci_high", "high"),
        ("p_bootstrap", "percentile-bootstrap p (paper Definition 2) over B resamples, counted as min(1, 2 (k + 1) / (B + 1)) with k the "
                        "resamples on the smaller side of 0 (Davison & Hinkley 1997, Eq. 4.11): never 0, at least 2 / (B + 1)")],
        when="bootstrap"),
    *_columns("b", "float", [("required_n_p05", "bootstrap 5th percentile of N* (finite where a resampled gap is not 0, even when N* is inf)"),
                             ("required_n_p95", "95th percentile")], when="bootstrap"),
    *_columns("bg", "float", [("required_n_rho_minus", "N* at rho - 0.10 (clamped to the admissible interval)"),
                              ("required_n_rho_plus", "N* at rho + 0.10")]),
    *_columns("b", "float", [("shortcut_n", "(1 - rho) K/h^2 shortcut (paper Lemma 1)"),
                             ("shortcut_ratio", "shortcut / N*, about 1/2", 3, "n_h/N*")]),
    *_columns("bg", "float", [("unpaired_n", "unpaired per-arm N"), ("efficiency_gain", "unpaired N / paired N*")]),
    *_columns("bga", "int", [("n", "N, the number of paired items", 4, "N")]),
    *_columns("bg", "float", [("q", "resolution ratio N / N*", 3)]),
    *_columns("bg", "float", [("z_wald", "Wald z of the observed gap, delta / sqrt(variance / N); q at the observed gap is "
                                         "z_wald^2 / (z_{1-alpha/2} + z_{1-beta})^2, a re-expression of this statistic", 3, "z")]),
    *_columns("bg", "bool", [("resolved", VERDICT_RULES["resolved"]), ("resolved_rho_minus", "N >= N* at rho - 0.10"),
                             ("resolved_rho_plus", "N >= N* at rho + 0.10")]),
    *_columns("bg", "float", [
        ("log_e", "log e-value at N: the grid-mixture e-process at the final counts (0/1 scores), the hedged betting e-process "
                  "over the items in id order (graded)"),
        ("p_anytime_at_n", "min(1, 1/e_N): the e-value's p at N (a monitored run's min(1, 1/sup e_t) can only be smaller)", 3)]),
    *_columns("b", "float", [("required_n_anytime", "N_av, the anytime-valid required N (boundary definition)", 4, "N_av"),
                             ("q_anytime", "N / N_av"), ("anytime_inflation", "N_av / N*", 3)]),
    *_columns("b", "bool", [("resolved_anytime", VERDICT_RULES["resolved_anytime"])]),
    *_columns("bg", "float", [("p_bonferroni", "Bonferroni-adjusted p over the declared family"), ("p_sidak", "Sidak-adjusted p"),
                              ("p_holm", "Holm-adjusted p"), ("p_bh", "Benjamini-Hochberg-adjusted p")]),
    *_columns("bg", "bool", [("rejected_e_bh", "e-BH rejection over the declared family"),
                             ("rejected_bh", "BH rejection over the declared family")]),
    *_columns("bg", "float", [("required_n_bonferroni", "N* x Bonferroni inflation"), ("required_n_holm", "N* x Holm step inflation: level alpha / (m - k + 1) at the pair's step k in the observed "
                                                                                        "p-value order, which holds only if steps 1 .. k - 1 all reject (required_n_bonferroni's alpha / m is "
                                                                                        "the level guaranteed in advance)")]),
    *_columns("bg", "bool", [("resolved_bonferroni", "q >= Bonferroni inflation"), ("resolved_holm", "q >= Holm step inflation (conditional on the earlier steps rejecting, as required_n_holm)"),
                             ("resolved_bh", "q >= BH inflation")]),
    *_columns("bg", "float", [("p_adjusted", "the arbiter's p after the declared correction (the one behind 'significant')", 3, "p adj")]),
    *_columns("bg", "decision", [("significant", VERDICT_RULES["significant"], None, "signif."),
                                 ("significant_anytime", VERDICT_RULES["significant_anytime"], None, "anytime")]),
    *_columns("bg", "float", [("icc", "ICC of the per-item difference over the clusters", 3, "ICC(D)"),
                              ("design_effect", "1 + (m - 1) max(ICC, 0)", 3, "DE"),
                              ("required_n_cluster", "N* x design effect", 4, "N* cluster")], when="clusters"),
    *_columns("bg", "bool", [("resolved_cluster", VERDICT_RULES["resolved_cluster"])], when="clusters"),
    *_columns("bg", "float", [
        ("icc_p05", "cluster-bootstrap 5th percentile of the ICC"), ("icc_p95", "95th percentile"),
        ("design_effect_p05", "cluster-bootstrap 5th percentile of the design effect"), ("design_effect_p95", "95th percentile"),
        ("required_n_cluster_p05", "cluster-bootstrap 5th percentile of N* x DE"), ("required_n_cluster_p95", "95th percentile"),
        ("probability_unresolved_cluster", "share of cluster resamples in which the pair is unresolved")], when="cluster-bootstrap"),
    *_columns("bg", "float", [("p_cluster", "the arbiter's p with z / sqrt(design effect), before the declared correction")],
              when="clusters"),
    *_columns("bg", "decision", [("significant_clustered", VERDICT_RULES["significant_clustered"], None, "signif. clusters")],
              when="clusters"),
    *_columns("a", "float", [
        ("rho_min", "smallest correlation the two accuracies allow (paper Eq. 8)"),
        ("rho_max", "largest correlation the two accuracies allow (paper Eq. 7)"),
        ("required_n_rho_min", "the most items the gap could need (N* at rho_min)", 4, "N* at rho_min"),
        ("required_n_rho_max", "the fewest items the gap could need (N* at rho_max)", 4, "N* at rho_max"),
        ("q_rho_min", "N / N* at rho_min"), ("q_rho_max", "N / N* at rho_max"),
        ("agreement_min", "share of items the models agree on at rho_min"), ("agreement_max", "the same at rho_max")]),
    *_columns("a", "verdict", [("verdict", "resolved (N >= N* at every admissible rho), unresolved (N < N* at every one) or depends on rho, "
                                           "at alpha")]),
    *_columns("a", "float", [
        ("rho_critical", "the correlation at which N* = N: the gap is resolved iff rho >= rho_c; 'none' (null) when N* = N has no "
                         "root in [rho_min, rho_max], so that the verdict holds at every admissible rho (resolved at every one, or "
                         "unresolved at every one)", 4, "rho_c"),
        ("agreement_critical", "for 'depends on rho': the smallest share of items the two models must agree on (both right or both "
                               "wrong) for the gap to be resolved", 4, "agree >="),
        ("level_strict", "strictest per-comparison level the correction can use"), ("level_lenient", "most lenient one")]),
    *_columns("a", "verdict", [("verdict_family", "the verdict under the declared correction: it holds at every level in "
                                                  "[level_strict, level_lenient]; 'depends on p-value order' when it is unresolved at "
                                                  "every rho at the strict level but not at the lenient one", None, "verdict ({correction})")]),
    *_columns("a", "float", [
        ("rho_critical_family", "rho_c at level_strict; 'none' (null) outside [rho_min, rho_max]: at level_strict the gap is resolved "
                                "at every admissible rho (verdict_family resolved) or unresolved at every one (verdict_family unresolved "
                                "or depends on p-value order)"),
        ("agreement_critical_family", "agreement share at rho_critical_family")]),
    *_columns("a", "float", [
        ("rho_assumed_low", _ASSUMED + "the assumed rho (or range) within the admissible interval"),
        ("rho_assumed_high", _ASSUMED + "upper end of that range"), ("required_n_assumed", _ASSUMED + "N* at rho_assumed_low"),
        ("q_assumed", _ASSUMED + "N / required_n_assumed", 4, "q (assumed)")], when="assumption"),
    *_columns("a", "verdict", [
        ("verdict_assumed", _ASSUMED + "the verdict over the assumed rho (range); 'not admissible' when the assumption lies outside "
                            "the interval", None, "verdict (assumed)"),
        ("verdict_assumed_family", _ASSUMED + "the same under the declared correction (Holm and BH levels from Wald p-values at one "
                                   "assumed rho)", None, "{correction} (assumed)")], when="assumption"),
)

MODEL_COLUMNS: tuple[Column, ...] = (
    *_columns("bga", "int", [("rank", "position by mean score; equal means are ordered by name")]),
    *_columns("bg", "text", [("key", "short name used in the pair table when the names are long")], when="text-tables"),
    *_columns("bga", "text", [("model", "model name")]),
    *_columns("bg", "float", [("mean_score", "accuracy (mean score) over the N items", 4, "mean score"),
                              ("ci_low", "interval of the mean score at 1 - alpha (Wilson for 0/1 scores, Student t for graded), low end"),
                              ("ci_high", "high end")]),
    *_columns("bg", "int", [("rank_low", "best rank consistent with the data: 1 + models significantly better (Holm over all pairs)"),
                            ("rank_high", "worst rank: K - models significantly worse (Holm over all pairs)")]),
    *_columns("bg", "text", [("letters", "models sharing a letter are not significantly different (Holm over all pairs)")]),
    *_columns("bg", "int", [("rank_boot_low", "bootstrap rank interval (items resampled), alpha/2 quantile of the rank; no family-wise "
                                              "guarantee"), ("rank_boot_high", "its 1 - alpha/2 quantile")], when="rank-bootstrap"),
    *_columns("bg", "int", [("tier", "adjacent-break tier (secondary view): a new tier after each resolved adjacent pair; it chains")],
              when="tiers"),
    *_columns("a", "float", [("accuracy", "the printed accuracy as a fraction, whatever the scale it was read on", 6)]),
    *_columns("a", "text", [("printed", "the accuracy as the input printed it")]),
    *_columns("a", "int", [("count_low", "fewest correct items k (of N) with k / N rounding to the printed accuracy at its printed digits"),
                           ("count_high", "most such k; none when count_low > count_high (the accuracy and N do not belong together)")]),
    *_columns("a", "bool", [("consistent", "some whole count k out of N rounds to the printed accuracy")]),
    *_columns("a", "int", [("line", "the input line the model was read from")]),
)

_BY_NAME = {item.name: item for item in PAIR_COLUMNS + MODEL_COLUMNS}
_ORDER = {item.name: position for position, item in enumerate(PAIR_COLUMNS + MODEL_COLUMNS)}


def column(name: str) -> Column:
    """The declaration of a pair or model column.

    Parameters
    ----------
    name : str
        A declared column name.

    Returns
    -------
    Column
        Its declaration.

    Raises
    ------
    ValueError
        When ``name`` is not declared.

    Examples
    --------
    >>> entry = column("q")
    >>> entry.kind, entry.digits, sorted(entry.audits)
    ('float', 3, ['binary', 'graded'])
    """
    if name not in _BY_NAME:
        raise ValueError(f"column {name!r} is not declared in llm_power_verified/contract/columns.py")
    return _BY_NAME[name]


def pair_columns(audit_kind: str) -> tuple[Column, ...]:
    """The pair columns an audit of one kind can have, in machine-format order.

    Parameters
    ----------
    audit_kind : {"binary", "graded", "accuracies"}
        The audit: per-item 0/1 scores, per-item graded scores, or printed accuracies only.

    Returns
    -------
    tuple of Column
        Its pair columns, in the CSV/JSON column order (some present only ``when`` their condition holds).

    Raises
    ------
    ValueError
        When ``audit_kind`` is not one of ``AUDITS``.

    Examples
    --------
    >>> [entry.name for entry in pair_columns("accuracies")][:6]
    ['model_a', 'model_b', 'rank_a', 'rank_b', 'adjacent', 'delta']
    """
    if audit_kind not in AUDITS:
        raise ValueError(f"audit_kind must be one of {AUDITS}; got {audit_kind!r}")
    return tuple(item for item in PAIR_COLUMNS if audit_kind in item.audits)


def model_columns(audit_kind: str) -> tuple[Column, ...]:
    """The model-table columns of an audit of one kind, in machine-format order.

    Parameters
    ----------
    audit_kind : {"binary", "graded", "accuracies"}
        The audit kind, as in :func:`pair_columns`.

    Returns
    -------
    tuple of Column
        Its model columns.

    Raises
    ------
    ValueError
        When ``audit_kind`` is not one of ``AUDITS``.

    Examples
    --------
    >>> [entry.name for entry in model_columns("binary")][:3]
    ['rank', 'key', 'model']
    """
    if audit_kind not in AUDITS:
        raise ValueError(f"audit_kind must be one of {AUDITS}; got {audit_kind!r}")
    return tuple(item for item in MODEL_COLUMNS if audit_kind in item.audits)


def ordered(names: Iterable[str]) -> list[str]:
    """Column names in contract order (pair columns first, then model columns).

    Parameters
    ----------
    names : iterable of str
        Declared column names, in any order.

    Returns
    -------
    list of str
        The same names in the order of ``PAIR_COLUMNS`` then ``MODEL_COLUMNS``.

    Raises
    ------
    ValueError
        When a name is not declared.

    Examples
    --------
    >>> ordered(["q", "delta", "model_a"])
    ['model_a', 'delta', 'q']
    """
    return sorted(names, key=lambda name: _ORDER[column(name).name])


def legend(names: Iterable[str]) -> dict[str, str]:
    """The legend of some columns: name -> meaning, in the order given.

    Parameters
    ----------
    names : iterable of str
        Declared column names.

    Returns
    -------
    dict of str to str
        Each name's meaning (``Column.meaning``).

    Raises
    ------
    ValueError
        When a name is not declared.

    Examples
    --------
    >>> list(legend(["rank_b", "rank_a"]))
    ['rank_b', 'rank_a']
    """
    return {name: column(name).meaning for name in names}
