"""Leaderboard resolution audit: per-pair resolution report for K models.

:func:`audit_leaderboard` ranks the models by mean score and, for each pair
of the chosen mode (adjacent ranks, all pairs, or every model against a
reference), computes the paired diagnostics of the paper's Section 6 from
the score matrix without a Python loop over items or pairs: the 2x2 counts
of all pairs are one matrix product.

Per pair (binary scores): gap, accuracies, discordant counts b and c,
rho-hat, the four arbiters (McNemar chi-square, exact, mid-p and the paired
bootstrap interval), N*, q = N/N*, the MDE, the verdict (resolved when q >= 1),
a bootstrap 5-95% interval on N* (multinomial resampling of the four cells),
the rho-hat +/- 0.10 sensitivity (clamped to the admissible interval), the
(1 - rho) shortcut and its ratio to N*, Connor's N and the efficiency gain
over the unpaired formula.  Graded scores: paired t-test, paired bootstrap
(shared item resampling across models), and the normal-theory paired N*.

The family (``family``) is declared explicitly: "adjacent" (K - 1
comparisons), "all" (K (K - 1) / 2) or "reference" (K - 1); adjusted
p-values and N* inflations use it.  Cluster diagnostics are in
:mod:`llm_power_verified.leaderboard.clusters`.  A matrix of fewer than 2 items is refused naming its source.
An audit too large for the machine is refused before it allocates (:func:`~.ranking.check_audit_memory`).

Memory linear in K where the mode is: with mode and family adjacent or reference and more than
``LINEAR_MODELS`` (2,000) models, the audit forms no K x K array (each block's counts come from the scores,
:func:`~llm_power_verified.leaderboard.pair_inputs.pair_inputs` with ``all_pairs=False``) and computes nothing over all
pairs: the ranking's Holm rank intervals and letters are left empty and the significant and resolved counts over all
pairs are None, said in a note that names what tests them (``--mode all --tiles`` for 0/1 scores;
:mod:`~llm_power_verified.leaderboard.memory`).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from llm_power_verified.contract import FAMILIES, MODES
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.audit_results import AuditResult, StreamedAudit
from llm_power_verified.leaderboard.blocks import BlockSettings, all_pairs_tests, family_context, pair_inputs
from llm_power_verified.leaderboard.clusters import cluster_diagnostics
from llm_power_verified.leaderboard.decisions import add_cluster_decisions
from llm_power_verified.leaderboard.generations import GenerationColumns
from llm_power_verified.leaderboard.headline import all_pairs_route, headline_facts, skipped_all_pairs_note
from llm_power_verified.leaderboard.memory import audit_sizes
from llm_power_verified.leaderboard.pair_table import pair_block, pair_block_arrow, pair_blocks, stream_blocks
from llm_power_verified.leaderboard.pairs import pair_indices, rank_models
from llm_power_verified.leaderboard.ranking import (
    RANKING_PROCEDURE,
    all_pairs_computed,
    bootstrap_rank_intervals,
    check_audit_memory,
    holm_all_pairs,
    model_table,
    resolved_count,
)
from llm_power_verified.leaderboard.settings import AuditSettings
from llm_power_verified.leaderboard.streams import canonical_order
from llm_power_verified.leaderboard.summaries import Tiers, resolution_by_gap, verdict_table
from llm_power_verified.leaderboard.tiers import adjacent_tiers
from llm_power_verified.numeric import exact
from llm_power_verified.parallel import Backend, LocalBackend

__all__ = [
    "FAMILIES",
    "MODES",
    "AuditResult",
    "AuditSettings",
    "StreamedAudit",
    "audit_leaderboard",
    "pair_indices",
    "rank_models",
    "stream_audit",
]


def audit_leaderboard(
    matrix: ScoreMatrix,
    mode: str = "adjacent",
    *,
    reference: str | None = None,
    family: str | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    n_resamples: int = 500,
    seed: int = 0,
    n_cluster_resamples: int = 1000,
    correction: str = "holm",
    n_rank_resamples: int = 0,
    min_effect: float | None = None,
    progress: Callable[[str], None] | None = None,
    backend: Backend | None = None,
) -> AuditResult:
    r"""Resolution audit of a leaderboard (see the module notes).

    Parameters
    ----------
    matrix : ScoreMatrix
        Aligned per-item scores (see :mod:`llm_power_verified.io`).
    mode : {"adjacent", "all", "reference"}
        Which pairs to report.
    reference : str, optional
        The reference model for mode "reference".
    family : {"adjacent", "all", "reference"}, optional
        The declared multiplicity family; defaults to the mode.
    alpha, power : float
        Two-sided level and target power of every N*, MDE and verdict.
    n_resamples : int
        Resamples for the paired-bootstrap arbiter and the N* interval (0 to skip).
    seed : int
        Seed of the ``numpy.random.Generator`` behind every resample.
    n_cluster_resamples : int
        Resamples of the cluster bootstrap (when the matrix has clusters; 0 to skip).
    correction : {"holm", "bonferroni", "sidak", "bh", "none"}
        The declared family's correction behind the ``significant`` verdict.
    n_rank_resamples : int
        Item resamples for a bootstrap rank interval per model (0, the default, to skip):
        columns ``rank_boot_low`` and ``rank_boot_high`` of ``ranking``.
    min_effect : float, optional
        The smallest gap of interest DELTA in score units (in (0, 1) for 0/1 scores, > 0 graded): adds, per pair,
        the power and q at a true gap of DELTA and the equivalence columns against the margin DELTA
        (:mod:`~llm_power_verified.leaderboard.min_effect`).
    progress : callable, optional
        Called with a short message per block of pairs on large audits.
    backend : Backend, optional
        Where the blocks of pairs are computed (``llm_power_verified.parallel``;
        default: this process).  The result does not depend on it.

    Returns
    -------
    AuditResult
        The ranking, the pair table and the summaries.

    Raises
    ------
    TypeError
        ``matrix`` is not a ``ScoreMatrix``.
    ArgumentError
        Fewer than 2 items, an unknown mode, family or correction, mode "reference" without a known reference
        model (or with another family), alpha or power out of 0 < alpha < power < 1, a count out of range, or an
        audit whose estimated memory exceeds the budget
        (:func:`~llm_power_verified.leaderboard.ranking.check_audit_memory`).

    Notes
    -----
    Per pair, with b, c the discordant counts, p_A - p_B = (b - c) / N and
    rho-hat the phi coefficient of the two score vectors:

    .. math:: \sigma_D^2 = p_A(1-p_A) + p_B(1-p_B) - 2\rho\sqrt{p_A(1-p_A)p_B(1-p_B)}, \quad
              N^* = \frac{(z_{1-\alpha/2} + z_{\text{power}})^2 \sigma_D^2}{\delta^2}, \quad q = N / N^*

    and the pair is resolved when q >= 1.  Family-wise verdicts multiply N* by
    the inflation ((z_{1-alpha/(2m)} + z_power) / (z_{1-alpha/2} + z_power))^2
    (Bonferroni; Holm and BH at their step levels); clustered verdicts by the
    design effect 1 + (m-bar - 1) max(ICC, 0).  At the observed gap, with the Wald z of the gap
    z_wald = delta / sqrt(sigma_D^2 / N) (column ``z_wald``),
    q = z_wald^2 / (z_{1-alpha/2} + z_power)^2.  Derived in ``derivations/wald.py`` (N*),
    ``derivations/paired_variance.py`` (sigma_D^2), ``derivations/multiplicity.py`` (the inflations) and
    ``derivations/design_effect.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315),
    Equations 3-6, Definition 1, Section 6 and Appendices F, G and I;
    McNemar (1947) Psychometrika 12, 153-157; Donner, Birkett and Buck (1981)
    Am. J. Epidemiol. 114, 906-914 (design effect).

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((2000, 3)) < [0.70, 0.66, 0.50]).astype(float)
    >>> result = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> result.ranking["model"].tolist(), result.pairs["resolved"].tolist()
    (['x', 'y', 'z'], [False, True])
    """
    settings = AuditSettings(
        mode=mode,
        reference=reference,
        family=family,
        alpha=alpha,
        power=power,
        n_resamples=n_resamples,
        seed=seed,
        n_cluster_resamples=n_cluster_resamples,
        correction=correction,
        n_rank_resamples=n_rank_resamples,
        min_effect=min_effect,
    )
    return _run(matrix, settings, progress, backend)


def stream_audit(
    matrix: ScoreMatrix,
    sink: Callable[[pd.DataFrame], None],
    mode: str = "adjacent",
    *,
    progress: Callable[[str], None] | None = None,
    backend: Backend | None = None,
    arrow: bool = False,
    **settings,
) -> StreamedAudit:
    """The audit of :func:`audit_leaderboard` with the pair table handed to a sink block by block.

    For audits whose pair table does not fit in memory (5,000 models have 12.5 M pairs, about 6 GB as a table): the
    result keeps only the summaries and the adjacent pairs.  Every row is the one :func:`audit_leaderboard` would give.

    Parameters
    ----------
    matrix : ScoreMatrix
        Aligned per-item scores, without item clusters.
    sink : callable
        Called with each block of the pair table (every column, in pair-table order).
    mode : {"adjacent", "all", "reference"}, default "adjacent"
        Which pairs are reported.
    progress : callable, optional
        Called with a short message per block of pairs on large audits.
    backend : Backend, optional
        Where the blocks are computed (default: this process).
    arrow : bool, default False
        Hand each block to ``sink`` as a pyarrow Table, converted where the block was computed (so that a Dask worker,
        not the client, pays for the conversion).
    **settings
        The other keywords of :func:`audit_leaderboard` (the fields of
        :class:`~llm_power_verified.leaderboard.settings.AuditSettings`).

    Returns
    -------
    StreamedAudit
        The summaries, the ranking and the adjacent pairs.

    Raises
    ------
    ArgumentError
        A clustered matrix (the cluster bootstrap needs every pair at once: audit it in memory), and every refusal of
        :func:`audit_leaderboard`.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> matrix = from_array((rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float), models=["x", "y", "z"])
    >>> blocks = []
    >>> streamed = stream_audit(matrix, blocks.append, "all", n_resamples=0)
    >>> streamed.pairs_written, sum(len(block) for block in blocks), len(streamed.pairs)
    (3, 3, 2)
    """
    if matrix.clusters is not None:
        raise ArgumentError(
            "stream_audit does not take item clusters (the cluster bootstrap needs every pair at once); "
            "audit_leaderboard audits them in memory"
        )
    return _run(
        matrix, AuditSettings(mode=mode, **{"n_cluster_resamples": 0, **settings}), progress, backend, sink, arrow
    )


def _run(
    matrix: ScoreMatrix, settings: AuditSettings, progress, backend: Backend | None, sink=None, arrow: bool = False
) -> AuditResult | StreamedAudit:
    """Check the settings and the memory, put the matrix in canonical order, audit."""
    settings = settings.checked(matrix)
    sizes = audit_sizes(matrix, settings.n_resamples, settings.n_cluster_resamples)
    check_audit_memory(
        matrix.n_models,
        matrix.n_items,
        settings.mode,
        settings.family,
        streamed=sink is not None,
        binary=matrix.binary,
        **sizes,
    )
    return _audit(canonical_order(matrix), settings, progress, backend or LocalBackend(), sink, arrow)


def _tiers(
    ranking: pd.DataFrame,
    adjacent_rows: pd.DataFrame,
    mode: str,
    significant_pairs: int | None,
    resolved_pairs: int | None,
    n_models: int,
) -> Tiers:
    """The ranking's tiers and compact letters; each model's adjacent tier goes into ``ranking``'s "tier" column."""
    tiers = Tiers(
        adjacent=adjacent_tiers(ranking["model"].tolist(), adjacent_rows, mode),
        letters=dict(zip(ranking["model"], ranking["letters"], strict=True)),
        procedure=RANKING_PROCEDURE,
        significant_pairs=significant_pairs,
        resolved_pairs=resolved_pairs,
        total_pairs=n_models * (n_models - 1) // 2,
    )
    if tiers.adjacent is not None:
        ranking["tier"] = [tiers.adjacent[model] for model in ranking["model"]]
    return tiers


def _notes(
    matrix: ScoreMatrix,
    pairs: pd.DataFrame,
    settings: AuditSettings,
    generations: GenerationColumns | None,
    all_pairs: bool,
) -> tuple[str, ...]:
    """The notes: the matrix's, the skipped all-pairs ones, the graded anytime column's, DELTA's, the split's."""
    min_effect = settings.min_effect
    notes = list(matrix.notes)
    if not all_pairs:
        route = all_pairs_route(matrix.binary, matrix.clusters is not None, generations is not None)
        notes.append(skipped_all_pairs_note(matrix.n_models, settings.mode, route))
    if not matrix.binary:
        notes.append(
            "anytime-valid column (graded scores): e-BH on the hedged betting e-values (Waudby-Smith and Ramdas 2024) "
            "over the items in id order; the anytime-valid required N (N_av) is defined for 0/1 scores only"
        )
    if min_effect is not None:
        notes.append(_min_effect_note(pairs, matrix.binary, min_effect))
    if generations is not None:
        notes += generations.notes()
    return tuple(note for note in notes if note)


def _min_effect_note(pairs: pd.DataFrame, binary: bool, min_effect: float) -> str:
    """The note on the pairs where a true gap of DELTA has no variance: q(DELTA) and its power n/a ('' if none)."""
    undefined = int(pairs["q_min_effect"].isna().sum())
    if not undefined:
        return ""
    why = (
        f"fewer than {exact(min_effect)} x N discordant items (a true gap of DELTA needs at least that share)"
        if binary
        else "the same difference on every item (a variance of 0)"
    )
    return (
        f"--min-effect {exact(min_effect)}: {undefined:,} of {len(pairs):,} reported pairs have {why}; their power, "
        "N* and q at DELTA are n/a and they are not resolved at DELTA"
    )


def _ranking(matrix: ScoreMatrix, order, settings: AuditSettings, holm_all) -> tuple[pd.DataFrame, int]:
    """The model table, with the bootstrap rank intervals when asked for, and the significant pairs among all."""
    ranking, significant_pairs = model_table(matrix, order, settings.alpha, holm_all)  # holm_all None: skipped
    if settings.n_rank_resamples:
        ranking["rank_boot_low"], ranking["rank_boot_high"] = bootstrap_rank_intervals(
            matrix, order, int(settings.n_rank_resamples), settings.seed, settings.alpha
        )
    return ranking, significant_pairs


def _inputs(matrix: ScoreMatrix, order, settings: AuditSettings, reference_index, pairs, backend: Backend):
    """The pair inputs, the all-pairs p-values (None when not computed) and the family context."""
    mode, family = settings.mode, settings.family
    # Linear mode and family above LINEAR_MODELS: no K x K array and nothing over all pairs (the module notes).
    all_pairs = all_pairs_computed(order.size, mode, family)
    inputs = pair_inputs(matrix, order, all_pairs)
    # The exact tails behind the p-values go to the pair blocks (the exact p computed once per pair).
    all_p, tails = all_pairs_tests(inputs, order, backend) if all_pairs else (None, None)
    family_pairs = pairs if family == mode else None
    alpha, power = settings.alpha, settings.power
    context = family_context(inputs, order, family, reference_index, alpha, power, all_p, family_pairs, backend, tails)
    return inputs, all_p, context


def _audit(
    matrix: ScoreMatrix, settings: AuditSettings, progress, backend: Backend, sink=None, arrow: bool = False
) -> AuditResult | StreamedAudit:
    """The audit proper, on the canonically ordered matrix: pair inputs and all-pairs p-values computed once."""
    mode, family, alpha, power = settings.mode, settings.family, settings.alpha, settings.power
    seed, correction = settings.seed, settings.correction
    order = rank_models(matrix)
    reference_index = matrix.models.index(settings.reference) if mode == "reference" else None
    first, second = pair_indices(order, mode, reference_index)
    inputs, all_p, context = _inputs(matrix, order, settings, reference_index, (first, second), backend)
    family_size = context.multiplicity.family_size
    block_settings = BlockSettings(
        alpha=alpha,
        power=power,
        n_resamples=settings.n_resamples,
        seed=seed,
        correction=correction,
        min_effect=settings.min_effect,
    )
    tables = pair_blocks(
        inputs, context, block_settings, first, second, backend, progress, pair_block_arrow if arrow else pair_block
    )
    generations = None if matrix.generations is None else GenerationColumns(matrix, first, second, alpha, power)
    tables = tables if generations is None else generations.added(tables)
    if sink is None:
        pairs = pd.concat(list(tables), ignore_index=True)
    else:
        pairs, adjacent = stream_blocks(tables, sink, first.size)
    # The ranking's Holm over all pairs: the family's own adjustment when the family is all pairs (the same vector).
    holm_all = context.adjusted["holm"] if family == "all" else None if all_p is None else holm_all_pairs(all_p)
    del all_p
    ranking, significant_pairs = _ranking(matrix, order, settings, holm_all)
    clusters = None
    if matrix.clusters is not None:
        pairs, clusters = cluster_diagnostics(
            matrix, pairs, first, second, alpha, power, settings.n_cluster_resamples, seed
        )
        add_cluster_decisions(pairs, matrix.binary, correction, alpha, family_size)
        if generations is not None:
            generations.add_clustered(pairs)
    adjacent_rows = pairs[pairs["adjacent"]] if sink is None else pd.concat(adjacent, ignore_index=True)
    all_pairs = all_pairs_computed(order.size, mode, family)
    resolved_pairs = resolved_count(inputs, alpha, power) if all_pairs else None
    tiers = _tiers(ranking, adjacent_rows, mode, significant_pairs, resolved_pairs, order.size)
    if generations is not None:
        generations.add_model_columns(ranking)
    common = dict(
        matrix=matrix,
        ranking=ranking,
        mode=mode,
        family=family,
        family_size=family_size,
        alpha=alpha,
        power=power,
        seed=seed,
        n_resamples=settings.n_resamples,
        correction=correction,
        multiplicity=context.multiplicity,
        tiers=tiers,
        verdicts=verdict_table(pairs, clusters),
        by_gap=resolution_by_gap(pairs),
        notes=_notes(matrix, pairs, settings, generations, all_pairs),
        headline=headline_facts(
            matrix,
            alpha=alpha,
            power=power,
            family=family,
            family_size=family_size,
            correction=correction,
            n_clusters=None if clusters is None else clusters.n_clusters,
            reported=pairs,
            adjacent=adjacent_rows,
            tiers=tiers,
            min_effect=settings.min_effect,
            generations=None if generations is None else generations.summary(ranking, adjacent_rows),
        ),
    )
    if sink is not None:
        return StreamedAudit(adjacent=adjacent_rows, pairs_written=len(pairs), **common)
    return AuditResult(pairs=pairs, clusters=clusters, **common)
