"""What a per-item audit is asked for: :class:`~llm_power_verified.leaderboard.settings.AuditSettings`, checked first.

The keywords of :func:`~llm_power_verified.leaderboard.audit.audit_leaderboard` and
:func:`~llm_power_verified.leaderboard.audit.stream_audit`, as one frozen result; ``checked`` refuses a bad
argument with one line naming it, and declares the family.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from llm_power_verified._validation import check_scalar
from llm_power_verified.contract import CORRECTIONS, FAMILIES, MAX_RESAMPLES, MODES
from llm_power_verified.contract.choices import MIN_GAP
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.results import Result

__all__ = ["AuditSettings", "check_min_effect"]


@dataclass(frozen=True, repr=False)
class AuditSettings(Result):
    """What a per-item audit is asked for.

    The settings are the keywords of :func:`~llm_power_verified.leaderboard.audit.audit_leaderboard`.

    ``checked(matrix)`` returns these settings with every argument checked against the matrix before any work, and
    the family declared (the mode's own when none was); it raises ``ArgumentError`` (``TypeError`` for a matrix that
    is not a ``ScoreMatrix``) naming the argument.

    Attributes
    ----------
    mode : {"adjacent", "all", "reference"}, default "adjacent"
        Which pairs are reported.
    reference : str or None
        The reference model of mode "reference".
    family : {"adjacent", "all", "reference"} or None
        The declared multiplicity family; None until checked (then the mode's own when none was declared).
    alpha : float, default 0.05
        Two-sided level of every test, N* and verdict.
    power : float, default 0.8
        Target power of N* and the MDE.
    n_resamples : int, default 500
        Paired-bootstrap resamples (0: none).
    seed : int, default 0
        Seed of every resample.
    n_cluster_resamples : int, default 1000
        Cluster-bootstrap resamples (with clusters; 0: none).
    correction : {"holm", "bonferroni", "sidak", "bh", "none"}, default "holm"
        The family's correction behind ``significant``.
    n_rank_resamples : int, default 0
        Item resamples of the bootstrap rank intervals (0: none).
    min_effect : float or None, default None
        The smallest gap of interest DELTA, in score units (``--min-effect``), in (0, 1); None: no gap of interest
        (the min-effect and equivalence columns are not computed).

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> matrix = from_array((rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float), models=["x", "y", "z"])
    >>> AuditSettings(mode="all").checked(matrix).family
    'all'
    """

    mode: str = "adjacent"
    reference: str | None = None
    family: str | None = None
    alpha: float = 0.05
    power: float = 0.8
    n_resamples: int = 500
    seed: int = 0
    n_cluster_resamples: int = 1000
    correction: str = "holm"
    n_rank_resamples: int = 0
    min_effect: float | None = None

    def checked(self, matrix: ScoreMatrix) -> AuditSettings:
        """These settings with every argument checked against ``matrix`` before any work, and the family declared."""
        family = _check_arguments(
            matrix,
            self.mode,
            self.family,
            self.alpha,
            self.power,
            self.n_resamples,
            self.n_cluster_resamples,
            self.seed,
        )
        if self.correction not in CORRECTIONS:
            raise ArgumentError(f"correction must be one of {CORRECTIONS}; got {self.correction!r}")
        check_scalar("n_rank_resamples", self.n_rank_resamples, low=0, high=MAX_RESAMPLES, integer=True)
        min_effect = None if self.min_effect is None else check_min_effect(self.min_effect)
        if self.mode == "reference" and self.reference not in matrix.models:
            shown = list(matrix.models) if matrix.n_models <= 20 else [*matrix.models[:20], "..."]
            raise ArgumentError(
                f"mode 'reference' compares every model with one reference model: reference (--reference NAME) must "
                f"be one of the models {shown}; got {self.reference!r}"
            )
        return dataclasses.replace(self, family=family, n_resamples=int(self.n_resamples), min_effect=min_effect)


def check_min_effect(value) -> float:
    """The smallest gap of interest checked: a finite number in [2^-53, 1).

    Scores lie in [0, 1] (0/1 or partial credit), so a gap of two mean scores is at most 1 and a gap of interest of
    1 or more could never be observed; below 2^-53 (``contract.choices.MIN_GAP``) a gap cannot be told from rounding.

    Parameters
    ----------
    value : float
        DELTA, in score units.

    Returns
    -------
    float
        DELTA.

    Raises
    ------
    ArgumentError
        One line naming min_effect (--min-effect), the value and what is allowed.

    Examples
    --------
    >>> check_min_effect(0.02)
    0.02
    """
    return float(
        check_scalar(
            "min_effect (--min-effect, the smallest gap of interest in score units; scores lie in [0, 1])",
            value,
            low=MIN_GAP,
            high=1,
            high_open=True,
        )
    )


def _check_arguments(matrix, mode, family, alpha, power, n_resamples, n_cluster_resamples, seed) -> str:
    """Every argument of :func:`audit_leaderboard` checked before any work; returns the declared family."""
    if not isinstance(matrix, ScoreMatrix):
        raise TypeError(
            f"matrix must be a ScoreMatrix; got {type(matrix).__name__}: build one with "
            "llm_power_verified.io.read_scores(...) (files, DataFrames) or from_array(...) (arrays)"
        )
    if matrix.n_items < 2:  # one item has no variance of a difference; later steps would fail on a proportion of 0 or 1
        raise ArgumentError(
            f"{matrix.source or 'the score matrix'}: a paired comparison needs at least 2 items; got {matrix.n_items}"
        )
    if mode not in MODES:
        raise ArgumentError(f"mode must be one of {MODES}; got {mode!r}")
    family = family or mode
    if family not in FAMILIES:
        raise ArgumentError(f"family must be one of {FAMILIES}; got {family!r}")
    if (mode == "reference") != (family == "reference"):
        raise ArgumentError("mode 'reference' goes with family 'reference' (and only with it)")
    if not 0 < alpha < 1 or not alpha < power < 1:
        raise ArgumentError(f"need 0 < alpha < power < 1; got alpha = {alpha!r}, power = {power!r}")
    check_scalar("n_resamples", n_resamples, low=0, high=MAX_RESAMPLES, integer=True)
    check_scalar("n_cluster_resamples", n_cluster_resamples, low=0, high=MAX_RESAMPLES, integer=True)
    check_scalar("seed", seed, low=0, high=2**63 - 1, integer=True)
    return family
