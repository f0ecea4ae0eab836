"""The accuracies-only verdicts over the rounding of the printed digits (issue 26, item 5).

The audit finds the extremes over each pair's allowed counts at four corners and the printed pair (the proof is in
:mod:`llm_power_verified.leaderboard.accuracy_rounding`); here an enumeration of every allowed pair of counts checks
it on small N.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import llm_power_verified as lpv
from llm_power_verified.contract import VERDICT_KINDS
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.leaderboard.accuracy_rounding import ROUNDING, count_boxes
from llm_power_verified.leaderboard.accuracy_verdicts import accuracy_pairs, add_verdicts
from llm_power_verified.power.correlation import admissible_rho_interval
from llm_power_verified.power.critical import critical_correlation
from llm_power_verified.power.sample_size import required_n_paired_binary

ACCURACIES = Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"
RESOLVED, UNRESOLVED, DEPENDS, ORDER = VERDICT_KINDS[:4]


def _classes(p_a, p_b, n, strict, lenient, power=0.8):
    """The verdict of every point, straight from Eq. 6 at the ends of its own admissible interval."""
    interval = admissible_rho_interval(p_a, p_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        resolve = required_n_paired_binary(p_a, p_b, interval.low, alpha=strict, power=power)
        lenient_high = required_n_paired_binary(p_a, p_b, interval.high, alpha=lenient, power=power)
        strict_high = required_n_paired_binary(p_a, p_b, interval.high, alpha=strict, power=power)
    classes = np.where(
        n >= resolve, RESOLVED, np.where(n < lenient_high, UNRESOLVED, np.where(n < strict_high, ORDER, DEPENDS))
    )
    return classes, resolve


def _expected(classes: set) -> str:
    """The verdict that holds at every point: one class, or unresolved at every point at the strict level (order)."""
    if len(classes) == 1:
        return next(iter(classes))
    return ORDER if classes <= {UNRESOLVED, ORDER} else DEPENDS


def _points(first, second, n):
    """Every allowed pair of counts (as accuracies), and the printed pair."""
    p_a, p_b = np.meshgrid(
        np.arange(first["count_low"], first["count_high"] + 1) / n,
        np.arange(second["count_low"], second["count_high"] + 1) / n,
        indexing="ij",
    )
    return np.append(p_a.ravel(), first["accuracy"]), np.append(p_b.ravel(), second["accuracy"])


def _random_table(rng, n):
    """Five models with counts near each other, printed in percent at 0 or 1 decimals (so several counts each)."""
    base = rng.uniform(0.15, 0.85)
    spread = rng.choice([0.01, 0.03, 0.08])
    counts = np.clip(np.round(n * (base + rng.normal(0, spread, 5))), np.ceil(n / 100), np.floor(0.99 * n))
    digits = Decimal(1).scaleb(-int(rng.integers(0, 2)))
    printed = [str((Decimal(int(k)) * 100 / n).quantize(digits, ROUND_HALF_EVEN)) for k in counts]
    return read_accuracies(pd.DataFrame({"model": list("abcde"), "accuracy": printed}), n=n, scale="percent")


@pytest.mark.parametrize("seed", range(6))
def test_verdicts_agree_with_every_allowed_pair_of_counts(seed):
    """Verdict, rounding flag, the worst N* and the rho_c range against the enumeration, at alpha and under Holm.

    Every pair of every table is checked (mode "all"); the seeds give flagged and unflagged pairs of every kind.
    """
    rng = np.random.default_rng(seed)
    seen = set()
    for _ in range(8):
        n = int(rng.integers(60, 1500))
        audit = audit_accuracies(_random_table(rng, n), "all", correction="holm")
        ranking = audit.ranking
        for _, pair in audit.pairs.iterrows():
            first, second = ranking.iloc[pair["rank_a"] - 1], ranking.iloc[pair["rank_b"] - 1]
            p_a, p_b = _points(first, second, n)
            at_alpha, resolve = _classes(p_a, p_b, n, 0.05, 0.05)
            family, _ = _classes(p_a, p_b, n, pair["level_strict"], pair["level_lenient"])
            assert pair["verdict"] == _expected(set(at_alpha)), (n, pair.to_dict())
            assert pair["verdict_family"] == _expected(set(family)), (n, pair.to_dict())
            assert pair["rounding"] == ROUNDING[len(set(at_alpha)) > 1]
            assert pair["rounding_family"] == ROUNDING[len(set(family)) > 1]
            seen |= {(pair["verdict"], pair["rounding"]), (pair["verdict_family"], pair["rounding_family"])}
            # The worst corner is one of the enumerated points, evaluated by the same formula: equal to rounding error.
            worst = resolve.max()
            assert pair["required_n_worst"] == pytest.approx(worst, rel=1e-12) or np.isinf(worst) == np.isinf(
                pair["required_n_worst"]
            )
            depends = at_alpha == DEPENDS
            if depends.any():
                rho_c = critical_correlation(p_a[depends], p_b[depends], n)
                # Same formula at the same points: equal to rounding error.
                assert pair["rho_critical_low"] == pytest.approx(np.min(rho_c), abs=1e-12)
                assert pair["rho_critical_high"] == pytest.approx(np.max(rho_c), abs=1e-12)
            else:
                assert np.isnan(pair["rho_critical_low"]) and np.isnan(pair["agreement_critical_high"])
    assert {(RESOLVED, ROUNDING[0]), (UNRESOLVED, ROUNDING[0]), (DEPENDS, ROUNDING[1])} <= seen


def test_large_boxes_decide_by_the_corners_and_grid_only_the_ranges():
    """N = 600,001 at one decimal: 600 counts per model, 360,000 pairs; the verdict is still exact."""
    n = 600_001
    table = read_accuracies(pd.DataFrame({"model": ["a", "b"], "accuracy": ["61.3", "61.0"]}), n=n)
    audit = audit_accuracies(table)
    pair = audit.pairs.iloc[0]
    first, second = audit.ranking.iloc[0], audit.ranking.iloc[1]
    p_a, p_b = _points(first, second, n)
    assert p_a.size > 360_000
    classes, resolve = _classes(p_a, p_b, n, 0.05, 0.05)
    assert pair["verdict"] == _expected(set(classes)) and pair["rounding"] == ROUNDING[len(set(classes)) > 1]
    assert pair["required_n_worst"] == pytest.approx(resolve.max(), rel=1e-12)  # the same formula at the same point
    assert any("from an evenly spaced grid of counts" in note for note in audit.notes)


def test_simple_evals_mmlu_o3_low_against_o1_is_not_resolved():
    """92.8 vs 91.8 at N = 14,042: resolved at the printed values, not at every count they allow."""
    table = read_accuracies(pd.DataFrame({"model": ["o3-low", "o1"], "accuracy": ["92.8", "91.8"]}), n=14042)
    assert (table.count_low.tolist(), table.count_high.tolist()) == ([13024, 12884], [13037, 12897])
    pair = audit_accuracies(table).pairs.iloc[0]
    assert pair["q_rho_min"] > 1  # the printed values alone would say resolved at every admissible rho
    assert pair["verdict"] == DEPENDS and pair["rounding"] == ROUNDING[1]
    # N* at rho_min at 13,024 vs 12,897 correct items, the smallest gap the printed digits allow.
    expected = required_n_paired_binary(
        13024 / 14042, 12897 / 14042, admissible_rho_interval(13024 / 14042, 12897 / 14042).low
    )
    assert pair["required_n_worst"] == pytest.approx(float(expected), rel=1e-12)  # the same formula at the same point
    assert 14772 < pair["required_n_worst"] < 14773


def _one_decimal(table):
    """The shipped table printed at one decimal: each model's count (its two-decimal print allows one tenth) rounded."""
    printed = []
    for low, high in zip(table.count_low, table.count_high, strict=True):
        tenths = {
            (Decimal(int(k)) * 100 / table.n).quantize(Decimal("0.1"), ROUND_HALF_EVEN) for k in range(low, high + 1)
        }
        assert len(tenths) == 1  # every count the two-decimal print allows rounds to the same tenth
        printed.append(str(tenths.pop()))
    return pd.DataFrame({"model": list(table.models), "accuracy": printed})


def test_shipped_table_at_one_decimal_flags_six_of_twenty_five_adjacent_pairs():
    """Issue 26: printed at one decimal, 6 of 25 adjacent pairs change verdict within the allowed counts.

    5 at alpha and 4 under Holm (3 both); every one carries the note, and none is resolved unless it is at every
    count.
    """
    audit = audit_accuracies(read_accuracies(_one_decimal(read_accuracies(ACCURACIES)), n=12032))
    adjacent = audit.pairs[audit.pairs["adjacent"]]
    flagged = adjacent[(adjacent["rounding"] == ROUNDING[1]) | (adjacent["rounding_family"] == ROUNDING[1])]
    assert list(zip(flagged["model_a"], flagged["model_b"], strict=True)) == [
        ("Meta-Llama-3-70B", "jamba-1.5-large"),
        ("Yi-34B", "mathstral-7B"),
        ("mathstral-7B", "Mixtral-8x7B-Instruct-v0.1"),
        ("c4ai-command-r-v01", "Meta-Llama-3_1-8B"),
        ("Meta-Llama-3_1-8B", "Llama-2-70b-hf"),
        ("Llama-2-70b-hf", "Meta-Llama-3-8B"),
    ]
    assert (audit.adjacent.depends_on_digits, audit.adjacent_family.depends_on_digits) == (5, 4)
    assert (flagged["verdict"] != RESOLVED).all()
    assert any(
        note.startswith("rounding: ") and "5 of 25 pair(s) at alpha and 4 under holm" in note for note in audit.notes
    )


def test_full_precision_changes_nothing():
    """Accuracies printed with enough digits for one count each: the verdicts are those of the printed values."""
    shipped = read_accuracies(ACCURACIES)
    exact = pd.DataFrame(
        {"model": list(shipped.models), "accuracy": [f"{k / shipped.n:.8f}" for k in shipped.count_low]}
    )
    table = read_accuracies(exact, n=shipped.n)
    assert (table.count_low == table.count_high).all()
    audit = audit_accuracies(table, "all")
    plain = accuracy_pairs(audit.ranking, table.n, "all")
    add_verdicts(plain, table.n, "holm", 0.05, 0.8)
    assert (audit.pairs["rounding"] == ROUNDING[0]).all() and (audit.pairs["rounding_family"] == ROUNDING[0]).all()
    assert audit.pairs["verdict"].tolist() == plain["verdict"].tolist()
    assert audit.pairs["verdict_family"].tolist() == plain["verdict_family"].tolist()
    assert not any(note.startswith("rounding: ") for note in audit.notes)
    depends = audit.pairs["verdict"] == DEPENDS
    # One count per model: the range is the printed value's and the count's rho_c, 5e-9 apart in accuracy.
    assert np.allclose(
        audit.pairs.loc[depends, "rho_critical_low"], audit.pairs.loc[depends, "rho_critical"], atol=1e-5
    )
    assert np.allclose(
        audit.pairs.loc[depends, "rho_critical_high"], audit.pairs.loc[depends, "rho_critical"], atol=1e-5
    )


def test_approximate_accuracies_use_their_printed_value():
    """A value no count gives (--approximate-accuracies) contributes its printed value only; the audit still runs."""
    table = read_accuracies(
        pd.DataFrame({"model": ["a", "b"], "accuracy": ["0.7123", "0.60"]}), n=400, approximate=True
    )
    audit = audit_accuracies(table)
    boxes = count_boxes(audit.pairs, audit.ranking, table.n)
    assert (boxes.a_lo[0], boxes.a_hi[0]) == (0.7123, 0.7123)
    assert (boxes.b_lo[0], boxes.b_hi[0]) == (238 / 400, 242 / 400)
    pair = audit.pairs.iloc[0]
    p_b = np.append(np.arange(238, 243) / 400, 0.6)
    classes, _ = _classes(np.full(p_b.size, 0.7123), p_b, 400, 0.05, 0.05)
    assert pair["verdict"] == _expected(set(classes)) and pair["rounding"] == ROUNDING[len(set(classes)) > 1]
