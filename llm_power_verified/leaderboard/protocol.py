"""The audit protocol: what every audit offers a renderer, whichever audit it is.

A renderer (text, HTML, the machine formats) reads an audit through these
members only: ``kind`` ("binary", "graded" or "accuracies": the contract's
``pair_columns(kind)`` apply), ``source``, ``pairs`` (the pair table; a streamed
audit's adjacent rows), ``ranking``, ``settings()`` and ``data()`` (the JSON
report's two dicts), ``headline`` (facts computed by the audit), ``notes`` and
``sections()`` (the typed summaries by report key).  :class:`PerItemAudit`
implements the members that the per-item audits (in memory and streamed)
derive from their fields.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import pandas as pd

from llm_power_verified.leaderboard.summaries import GapsOfInterest

__all__ = ["Audit", "PerItemAudit"]


@runtime_checkable
class Audit(Protocol):
    """What a renderer reads of an audit: the protocol every audit implements.

    Its methods ``settings()``, ``data()`` and ``sections()`` give the JSON report's members.
    :class:`~llm_power_verified.leaderboard.audit_results.AuditResult`,
    :class:`~llm_power_verified.leaderboard.audit_results.StreamedAudit` and
    :class:`~llm_power_verified.leaderboard.accuracies.AccuracyAudit` implement it.

    Attributes
    ----------
    kind : str
        "binary", "graded" or "accuracies".
    source : str
        Where the data were read from.
    pairs, ranking : pandas.DataFrame
        The pair table and the model table.
    headline : object
        The headline's facts.
    notes : tuple of str
        What the reader must know.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> audit = audit_leaderboard(from_array(np.array([[1, 0], [1, 1], [0, 0]] * 20), models=["a", "b"]), n_resamples=0)
    >>> isinstance(audit, Audit), audit.kind
    (True, 'binary')
    """

    # The properties are documented under the class's Attributes: a docstring of their own would make numpydoc link
    # them to member pages that the reference does not build (numpydoc_show_class_members is off).
    @property
    def kind(self) -> str: ...  # noqa: D102 - documented under the class's Attributes

    @property
    def source(self) -> str: ...  # noqa: D102 - documented under the class's Attributes

    @property
    def pairs(self) -> pd.DataFrame: ...  # noqa: D102 - documented under the class's Attributes

    @property
    def ranking(self) -> pd.DataFrame: ...  # noqa: D102 - documented under the class's Attributes

    @property
    def headline(self) -> object: ...  # noqa: D102 - documented under the class's Attributes

    @property
    def notes(self) -> tuple[str, ...]: ...  # noqa: D102 - documented under the class's Attributes

    def settings(self) -> dict:
        """The JSON report's settings."""

    def data(self) -> dict:
        """The JSON report's data."""

    def sections(self) -> dict[str, object]:
        """The typed summaries, by report key."""


class PerItemAudit:
    """The protocol's members of a per-item audit, from its ``matrix`` and settings fields.

    A mixin of :class:`~llm_power_verified.leaderboard.audit_results.AuditResult` and
    :class:`~llm_power_verified.leaderboard.audit_results.StreamedAudit`: ``kind``, ``source``, ``settings()``,
    ``data()`` and ``sections()``.
    """

    @property
    def kind(self) -> str:
        """The score kind: "binary" (0/1 scores) or "graded"."""
        return "binary" if self.matrix.binary else "graded"

    @property
    def source(self) -> str:
        """Where the scores were read from."""
        return self.matrix.source

    def settings(self) -> dict:
        """The settings the audit ran with (the JSON report's ``settings``)."""
        return {
            "mode": self.mode,
            "family": self.family,
            "family_size": self.family_size,
            "alpha": self.alpha,
            "power": self.power,
            "seed": self.seed,
            "n_resamples": self.n_resamples,
            "correction": self.correction,
            "min_effect": self.headline.min_effect,
        }

    def data(self) -> dict:
        """The shape of the data audited (the JSON report's ``data``)."""
        return {
            "n_items": self.matrix.n_items,
            "n_models": self.matrix.n_models,
            "binary": self.matrix.binary,
            "clustered": self.matrix.clusters is not None,
        }

    def sections(self) -> dict[str, object]:
        """The typed summaries by report key.

        The keys: multiplicity, clusters (None without), verdicts, resolution_by_gap, tiers, gaps_of_interest (None
        without ``min_effect``).
        """
        return {
            "multiplicity": self.multiplicity,
            "clusters": getattr(self, "clusters", None),
            "verdicts": self.verdicts,
            "resolution_by_gap": self.by_gap,
            "tiers": self.tiers,
            "gaps_of_interest": _gaps_of_interest(self.headline),
        }


def _gaps_of_interest(facts) -> GapsOfInterest | None:
    """The headline's --min-effect counts as the JSON report's ``gaps_of_interest`` (None without one)."""
    if facts.min_effect is None:
        return None
    resolved = facts.adjacent.get("resolved_min_effect")
    return GapsOfInterest(
        min_effect=facts.min_effect,
        adjacent_pairs=facts.adjacent_pairs,
        resolved=0 if resolved is None else resolved.count,
        undefined=facts.min_effect_undefined,
        required_n=facts.required_n_min_effect,
        required_n_family=facts.required_n_min_effect_family,
        equivalence=dict(facts.equivalence),
    )
