"""The validated score matrix every reader returns, and the checks behind it.

Rules (README, "Input formats and rules"):

* every score is a finite number; by default in [0, 1] (``score_range=None``
  allows any finite real, graded scores only);
* the score kind is never switched silently: ``score_kind="binary"`` needs
  every score to be 0 or 1; ``"graded"`` takes the scores as they are;
  ``"auto"`` (the default) decides from the whole matrix;
* model names and item ids are unique and non-empty; names, ids and cluster
  labels are text that can be written: a lone surrogate (which no UTF-8 file
  can hold, but a DataFrame can) cannot be encoded, and a NUL character ends
  a C string and makes a table file unreadable, so both are refused naming
  where they are; other control characters are kept and escaped by every
  output format;
* a cluster label follows the missing-value rule of the scores: ``None``, NaN,
  an empty or blank text, or one of ``MISSING_TEXT`` (:mod:`llm_power_verified.io.cells`) in any case (``NA``,
  ``nan``, ``null``, ``None``, ``n/a``) is a missing label, never a cluster
  of its own by accident; a missing label is an error unless
  ``missing_cluster`` is ``"drop"`` (drop those items, with a note) or
  ``"own"`` (each such item is a cluster of its own, with a note);
* a model that scores the same on every item is kept: its pairs have an
  undefined correlation, which the audit reports as such.

How ``"auto"`` decides the score kind is in :mod:`llm_power_verified.io.score_kind`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.cells import is_missing_label, text_problem
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.generations import Generations, means_kind
from llm_power_verified.io.score_kind import resolve_score_kind, shown_score
from llm_power_verified.io.text import first_repeat
from llm_power_verified.results import Result

__all__ = ["MISSING_CLUSTER", "SCORE_KINDS", "ScoreMatrix", "build_matrix", "from_array"]

SCORE_KINDS = ("auto", "binary", "graded")
MISSING_CLUSTER = ("error", "drop", "own")

Locator = Callable[[int, int], str]


@dataclass(frozen=True)
class ScoreMatrix(Result):
    """Aligned per-item scores: ``scores[i, k]`` is model k's score on item i.

    Every reader returns one (:func:`~llm_power_verified.io.detect.read_scores`); :func:`from_array` and
    :func:`build_matrix` build one under the module rules.  ``n_items``, ``n_models``, ``score_kind`` ("binary" or
    "graded") and ``constant_models`` (models with one score on every item) are derived.

    Attributes
    ----------
    scores : numpy.ndarray
        float64, items x models, finite.
    models : tuple of str
        The model names, distinct.
    item_ids : tuple of str
        The item ids, distinct.
    clusters : tuple of str or None
        A cluster label per item, when known.
    binary : bool
        The matrix is read as binary (every score 0 or 1); False means graded.
    source : str
        Where the data came from.
    notes : tuple of str
        What the reader decided (items dropped, epochs used, score kind, ...).
    generations : Generations or None
        Per cell, the count and variance of its generations when ``scores`` are item means (graded).

    Examples
    --------
    >>> matrix = from_array([[1, 0], [0, 0], [1, 1]], models=["a", "b"])
    >>> matrix
    ScoreMatrix(3 items x 2 models, binary, no clusters, source='array')
    >>> matrix.n_items, matrix.score_kind, matrix.constant_models
    (3, 'binary', ())
    """

    scores: np.ndarray
    models: tuple[str, ...]
    item_ids: tuple[str, ...]
    clusters: tuple[str, ...] | None = None
    binary: bool = True
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    generations: Generations | None = None

    def __post_init__(self) -> None:
        """Structural checks for a matrix built directly (the readers apply every rule in :func:`build_matrix`)."""
        scores = self.scores
        if not isinstance(scores, np.ndarray) or scores.ndim != 2 or scores.dtype != np.float64:
            raise TypeError(
                "ScoreMatrix.scores must be a 2-D float64 ndarray; build one with from_array() or read_scores()"
            )
        if scores.shape != (len(self.item_ids), len(self.models)):
            raise InputError(
                f"scores have shape {scores.shape} for {len(self.item_ids)} item ids and {len(self.models)} models"
            )
        _check_names("model", self.models, self.source or "ScoreMatrix", "pass distinct model names")
        if len(set(self.item_ids)) != len(self.item_ids):
            _check_names("item id", self.item_ids, self.source or "ScoreMatrix", "item ids must name each item once")
        if self.clusters is not None and len(self.clusters) != len(self.item_ids):
            raise InputError(f"{len(self.clusters)} cluster labels for {len(self.item_ids)} items")
        if not np.isfinite(scores).all():
            raise InputError(f"{self.source or 'ScoreMatrix'}: scores must be finite numbers")
        if self.binary and not ((scores == 0) | (scores == 1)).all():
            raise InputError(f"{self.source or 'ScoreMatrix'}: binary=True but some scores are neither 0 nor 1")
        if self.generations is not None:
            if self.generations.counts.shape != scores.shape:
                raise InputError(
                    f"{self.source or 'ScoreMatrix'}: generations of shape {self.generations.counts.shape} for scores "
                    f"of shape {scores.shape}"
                )
            if self.binary:
                raise InputError(f"{self.source or 'ScoreMatrix'}: item means over generations are graded scores")

    @property
    def n_items(self) -> int:
        """The number of items (rows)."""
        return self.scores.shape[0]

    @property
    def n_models(self) -> int:
        """The number of models (columns)."""
        return self.scores.shape[1]

    @property
    def score_kind(self) -> str:
        """The kind of the scores: "binary" for 0/1 scores, else "graded"."""
        return "binary" if self.binary else "graded"

    @property
    def constant_models(self) -> tuple[str, ...]:
        """Models with the same score on every item (their correlation with any other model is undefined)."""
        spread = self.scores.max(axis=0) - self.scores.min(axis=0)
        return tuple(self.models[k] for k in np.flatnonzero(spread == 0))

    def __repr__(self) -> str:
        clusters = "no clusters" if self.clusters is None else f"{len(set(self.clusters))} clusters"
        return (
            f"ScoreMatrix({self.n_items} items x {self.n_models} models, {self.score_kind}, {clusters}, "
            f"source={self.source!r})"
        )


def _default_locator(models: Sequence[str], item_ids: Sequence[str]) -> Locator:
    return lambda item, model: f"model {models[model]!r}, item {item_ids[item]!r}"


def _check_names(kind: str, names: Sequence[str], source: str, fix: str) -> None:
    for position, name in enumerate(names):
        if not isinstance(name, str):
            raise InputError(f"{source}: {kind} {position + 1} is {describe_value(name)}, not text; {fix}")
        if not name.strip():
            raise InputError(f"{source}: {kind} {position + 1} has an empty name ({describe_value(name)}); {fix}")
    if text_problem("".join(names)) is not None:  # one pass over all names; the loop finds which
        position, name, problem = next(
            (position, name, text_problem(name)) for position, name in enumerate(names) if text_problem(name)
        )
        raise InputError(
            f"{source}: {kind} {position + 1} ({describe_value(name)}) {problem}; names, item ids and "
            "cluster labels must be text"
        )
    repeat = first_repeat(names)
    if repeat is not None:
        raise InputError(
            f"{source}: {kind} {names[repeat[0]]!r} appears twice (positions {repeat[0] + 1} and {repeat[1] + 1}); "
            f"{kind}s must be unique; {fix}"
        )


def _resolve_clusters(
    clusters: Sequence[object] | None, missing_cluster: str, item_ids: Sequence[str], source: str
) -> tuple[tuple[str, ...] | None, np.ndarray | None, list[str]]:
    """(labels, keep mask or None, notes)."""
    if clusters is None:
        return None, None, []
    if missing_cluster not in MISSING_CLUSTER:
        raise ArgumentError(f"missing_cluster must be one of {MISSING_CLUSTER}; got {missing_cluster!r}")
    missing = np.fromiter((is_missing_label(label) for label in clusters), dtype=bool, count=len(clusters))
    labels = [str(label).strip() if not gone else "" for label, gone in zip(clusters, missing, strict=True)]
    for index, (label, text) in enumerate(zip(clusters, labels, strict=True)):
        if missing[index]:
            continue
        problem = (
            None if isinstance(label, (str, int, float, np.generic)) else f"is a {type(label).__name__}, not a label"
        )
        problem = problem or text_problem(text)
        if problem is not None:
            raise InputError(
                f"{source}: the cluster label of item {item_ids[index]!r} ({describe_value(label)}) {problem}; "
                "cluster labels are text or numbers"
            )
    if not missing.any():
        return tuple(labels), None, []
    first = int(np.argmax(missing))
    if missing_cluster == "error":
        raise InputError(
            f"{source}: item {item_ids[first]!r} has no cluster label ({int(missing.sum())} items lack one); "
            "pass --missing-cluster drop to leave those items out, or --missing-cluster own to make each its own "
            "cluster"
        )
    if missing_cluster == "drop":
        return (
            tuple(labels),
            ~missing,
            [f"dropped {int(missing.sum())} items without a cluster label (--missing-cluster drop)"],
        )
    used = set(labels)
    for index in np.flatnonzero(missing):
        label = f"(unlabelled) {item_ids[index]}"
        while label in used:
            label += "'"
        labels[index] = label
        used.add(label)
    return (
        tuple(labels),
        None,
        [f"{int(missing.sum())} items without a cluster label are clusters of their own (--missing-cluster own)"],
    )


@docfill("score_kind", "score_range", "missing_cluster", "source_name", returns="score_matrix")
def build_matrix(
    scores: np.ndarray,
    models: Sequence[str],
    item_ids: Sequence[str],
    *,
    clusters: Sequence[object] | None = None,
    score_kind: str = "auto",
    score_range: tuple[float, float] | None = (0.0, 1.0),
    missing_cluster: str = "error",
    source: str = "",
    notes: Sequence[str] = (),
    locate: Locator | None = None,
    generations: Generations | None = None,
) -> ScoreMatrix:
    """Validate an aligned (items x models) matrix under the module rules and wrap it.

    Parameters
    ----------
    scores : array_like
        items x models.
    models : sequence of str
        The model names (at least two).
    item_ids : sequence of str
        The item ids (at least one).
    clusters : sequence, optional
        A cluster label per item (text or numbers; missing values as in the module rules).
    %(score_kind)s
    %(score_range)s
    %(missing_cluster)s
    %(source_name)s
    notes : sequence of str, default ()
        The reader's notes, kept before the matrix's own.
    locate : callable, optional
        ``locate(item, model) -> str``: where a cell came from, for messages (a reader's file, line and column);
        default: the model and item id.
    generations : Generations, optional
        Each cell's count and variance when ``scores`` are item means over generations (then graded).

    Raises
    ------
    InputError
        A shape that does not fit the names, a name or id that is not text, empty, repeated or holds NUL or a lone
        surrogate, fewer than two models or no item, a score that is not finite or outside ``score_range`` (with a
        hint at ``--item-column`` when the column looks like ids), a stray fractional score under "auto" or any
        under "binary", a missing cluster label under "error", naming the cell.
    ArgumentError
        An unknown ``score_kind`` or ``missing_cluster``, ``score_range=None`` without "graded", "binary" with
        ``generations``.

    Notes
    -----
    A model with one score on every item is kept, with a note: its correlation with any other model is undefined.

    Examples
    --------
    >>> matrix = build_matrix([[1, 0], [0, 1]], ["a", "b"], ["q1", "q2"], clusters=["t", None], missing_cluster="own")
    >>> matrix.clusters, matrix.notes
    (('t', '(unlabelled) q2'), ('1 items without a cluster label are clusters of their own (--missing-cluster own)',))
    """
    if score_kind not in SCORE_KINDS:
        raise ArgumentError(f"score_kind must be one of {SCORE_KINDS}; got {score_kind!r}")
    score_kind = score_kind if generations is None else means_kind(score_kind, source)
    scores = np.asarray(scores, dtype=np.float64)
    models, item_ids = [str(m) if isinstance(m, (str, np.str_)) else m for m in models], [str(i) for i in item_ids]
    if scores.ndim != 2 or scores.shape != (len(item_ids), len(models)):
        raise InputError(
            f"{source}: scores have shape {scores.shape}; expected (items, models) = ({len(item_ids)}, {len(models)})"
        )
    _check_names("model", models, source, "pass distinct model names")
    _check_names("item id", item_ids, source, "item ids must name each item once")
    if len(models) < 2:
        raise AlignmentError(
            f"{source}: only {len(models)} model ({', '.join(map(repr, models))}); a paired comparison needs at least "
            "two"
        )
    if not item_ids:
        raise AlignmentError(f"{source}: no items")
    locate = locate or _default_locator(models, item_ids)
    bad = ~np.isfinite(scores)
    if bad.any():
        item, model = (int(i) for i in np.argwhere(bad)[0])
        value = scores[item, model]
        what = "missing (NaN)" if math.isnan(value) else shown_score(value)
        raise InputError(f"{source}: {locate(item, model)} has score {what}; scores must be finite numbers")
    if score_range is not None:
        low, high = score_range
        bad = (scores < low) | (scores > high)
        if bad.any():
            item, model = (int(i) for i in np.argwhere(bad)[0])
            column = scores[:, model]
            # A column of distinct whole numbers is most likely item ids under a name the reader did not expect.
            distinct = bool(np.all(column == np.round(column))) and len(np.unique(column)) == len(column)
            named = any(
                word in str(models[model]).lower() for word in ("id", "item", "index", "question", "doc", "sample")
            )
            ids = distinct and (
                named or (len(column) >= 3 and int(((column < low) | (column > high)).sum()) * 2 > len(column))
            )
            hint = (
                f"; if model {models[model]!r} is the item id column, name it with --item-column {models[model]}"
                if ids
                else ""
            )
            raise InputError(
                f"{source}: {locate(item, model)} has score {shown_score(scores[item, model])}, outside [{low:g}, "
                f"{high:g}] "
                f"({int(bad.sum())} scores are); scores are accuracies or partial credit in [0, 1]{hint}"
            )
    elif score_kind != "graded":
        raise ArgumentError("score_range=None (real-valued scores) needs score_kind='graded'")
    labels, keep, cluster_notes = _resolve_clusters(clusters, missing_cluster, item_ids, source)
    if keep is not None:
        scores = scores[keep]
        item_ids = [item for item, kept in zip(item_ids, keep, strict=True) if kept]
        labels = tuple(label for label, kept in zip(labels, keep, strict=True) if kept)
        if not item_ids:
            raise InputError(f"{source}: no item has a cluster label")
        locate = _default_locator(models, item_ids)
        generations = None if generations is None else generations.subset(rows=np.asarray(keep))
    binary, kind_notes = resolve_score_kind(scores, score_kind, locate, source)
    # Item means over generations are graded by construction (the reader's note says so): no note on their kind.
    notes = list(notes) + cluster_notes + (kind_notes if generations is None else [])
    spread = scores.max(axis=0) - scores.min(axis=0)
    for column in np.flatnonzero(spread == 0):
        notes.append(
            f"model {models[column]!r} scores {scores[0, column]:g} on every item: its correlation with any other "
            "model is undefined; its pairs show rho as undefined and leave the rho-dependent columns empty"
        )
    return ScoreMatrix(
        np.ascontiguousarray(scores), tuple(models), tuple(item_ids), labels, binary, source, tuple(notes), generations
    )


@docfill("score_kind", "score_range", "missing_cluster", returns="score_matrix")
def from_array(
    scores,
    *,
    models: Sequence[str] | None = None,
    item_ids: Sequence[str] | None = None,
    clusters: Sequence[object] | None = None,
    score_kind: str = "auto",
    score_range=(0.0, 1.0),
    missing_cluster: str = "error",
    source: str = "array",
) -> ScoreMatrix:
    """Score matrix from an (items x models) array.

    Parameters
    ----------
    scores : array_like
        items x models, numbers.
    models : sequence of str, optional
        The model names; default ``model0, model1, ...``.
    item_ids : sequence of str, optional
        The item ids; default the row numbers ``0, 1, ...``.
    clusters : sequence, optional
        A cluster label per item.
    %(score_kind)s
    %(score_range)s
    %(missing_cluster)s
    source : str, default "array"
        What messages call the input.

    Raises
    ------
    InputError
        Not a 2-D array of numbers, names or labels that do not fit its shape, and what :func:`build_matrix` refuses.

    Notes
    -----
    No formula: the matrix is checked by the rules of :func:`build_matrix` (finite scores in ``score_range``, the
    score kind, unique names and ids, the missing-cluster policy).

    References
    ----------
    README, section "Input formats and rules".

    Examples
    --------
    >>> from_array([[1, 0], [0, 0], [1, 1]], models=["a", "b"]).n_items
    3
    >>> from_array([[1, 0], [0, 0.5], [1, 1]], models=["a", "b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: array: model 'b', item '1' has score 0.5 but ...
    """
    try:
        array = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(
            f"{source}: scores must be a 2-D array of numbers (items x models); got {type(scores).__name__}"
        ) from None
    if array.ndim != 2:
        raise InputError(
            f"{source}: scores must be 2-D (items x models); got {array.ndim} dimension(s) of shape {array.shape}"
        )
    models = list(models) if models is not None else [f"model{k}" for k in range(array.shape[1])]
    items = list(item_ids) if item_ids is not None else [str(i) for i in range(array.shape[0])]
    if len(models) != array.shape[1]:
        raise InputError(f"{source}: {len(models)} model names for {array.shape[1]} columns")
    if len(items) != array.shape[0]:
        raise InputError(f"{source}: {len(items)} item ids for {array.shape[0]} rows")
    if clusters is not None and len(clusters) != array.shape[0]:
        raise InputError(f"{source}: {len(clusters)} cluster labels for {array.shape[0]} items")
    return build_matrix(
        array,
        models,
        items,
        clusters=clusters,
        score_kind=score_kind,
        score_range=score_range,
        missing_cluster=missing_cluster,
        source=source,
    )
