"""The win-share confidence sequence dual to the discordant-pair e-process, and ``monitor``'s one decision.

The issue's case: on 0/1 scores the e-process rejected while the Hoeffding-type sequence on the same rows still held
0 at the end, and nothing said which decides.  Checked here: the dual sequence excludes 1/2 exactly when the test
has crossed (every item, three mixtures, three levels); its ends against an independent mpmath computation of the
inverted set (50 digits, bisection to 1e-30; compared to 1e-9 absolute, the package's 64 float bisection steps on
a log likelihood whose slope at the ends is O(b + c)); its coverage on simulated paths (binomial test); and the
monitor's text and JSON.
"""

from __future__ import annotations

import contextlib
import io
import json
import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.sequential.dual import win_share_sequence
from llm_power_verified.sequential.e_process import GRID, e_process


def _path(seed: int, n: int, p10: float, p01: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    same = (rng.random(n) < 0.5).astype(int)
    a = np.where(u < p10, 1, np.where(u < p10 + p01, 0, same))
    b = np.where(u < p10, 0, np.where(u < p10 + p01, 1, same))
    return a, b


@pytest.mark.parametrize("mixture", ["grid", "beta", "two-point"])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_sequence_excludes_half_exactly_when_the_test_has_rejected(mixture, alpha, seed):
    a, b = _path(seed, 800, 0.06, 0.03)
    path = e_process(a, b, mixture)
    sequence = win_share_sequence(path.b, path.c, alpha, mixture)
    excluded = (sequence.lower > 0.5) | (sequence.upper < 0.5)
    crossed = path.running_max_log_e >= math.log(1 / alpha)
    # Where the running maximum sits within 1e-9 of the threshold the bisection cannot tell; none did in these paths.
    assert not np.any(np.abs(path.running_max_log_e - math.log(1 / alpha)) < 1e-9)
    np.testing.assert_array_equal(excluded, crossed)
    np.testing.assert_array_equal(sequence.excludes_half, crossed)
    first = path.first_crossing(alpha)
    assert (first is None and not excluded.any()) or int(np.argmax(excluded)) + 1 == first
    assert np.all(sequence.lower <= sequence.upper)


def _reference_ends(b: int, c: int, alpha: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """{theta_0 : sum_w theta^b (1 - theta)^c / 98 < theta_0^b (1 - theta_0)^c / alpha} for the grid, in mpmath."""
    mixture = mpmath.fsum(mpmath.mpf(t) ** b * (1 - mpmath.mpf(t)) ** c for t in GRID) / len(GRID)

    def outside(theta):
        return mixture >= theta**b * (1 - theta) ** c / mpmath.mpf(alpha)

    def boundary(inside_end, outside_end):
        if not outside(outside_end):
            return outside_end
        for _ in range(110):
            middle = (inside_end + outside_end) / 2
            inside_end, outside_end = (inside_end, middle) if outside(middle) else (middle, outside_end)
        return inside_end

    centre = mpmath.mpf(b) / (b + c) if b + c else mpmath.mpf(0.5)
    return boundary(centre, mpmath.mpf(0)), boundary(centre, mpmath.mpf(1))


def test_the_ends_against_an_independent_mpmath_inversion():
    a, b = _path(7, 120, 0.2, 0.1)
    path = e_process(a, b, "grid")
    sequence = win_share_sequence(path.b, path.c, 0.05, "grid")
    with mpmath.workdps(50):
        ends = [_reference_ends(int(x), int(y), 0.05) for x, y in zip(path.b, path.c, strict=True)]
    lower = np.maximum.accumulate([float(low) for low, _ in ends])
    upper = np.minimum.accumulate([float(high) for _, high in ends])
    np.testing.assert_allclose(sequence.lower, lower, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sequence.upper, upper, rtol=0, atol=1e-9)


def test_it_covers_the_win_share_at_every_item_simulated():
    """Under theta = 0.7 the sequence misses theta at some item in at most alpha of the paths (binomial test)."""
    rng = np.random.default_rng(20260526)
    alpha, paths, misses = 0.1, 400, 0
    for _ in range(paths):
        wins = np.cumsum(rng.random(300) < 0.7)
        sequence = win_share_sequence(wins, np.arange(1, 301) - wins, alpha, "grid")
        misses += bool(np.any((sequence.lower > 0.7) | (sequence.upper < 0.7)))
    # Ville's bound: P(miss) <= alpha.  Fails if the rate is above alpha with p < 1e-3 (a real excess, not chance).
    assert stats.binomtest(misses, paths, alpha, alternative="greater").pvalue > 1e-3


def test_bad_arguments_are_refused():
    with pytest.raises(ArgumentError, match="alpha"):
        win_share_sequence([1], [0], 1.5)
    with pytest.raises(ArgumentError, match="same length"):
        win_share_sequence([1, 2], [0])


def _monitor(tmp_path, a, b, *options):
    files = [tmp_path / "a.txt", tmp_path / "b.txt"]
    for name, values in zip(files, (a, b), strict=True):
        name.write_text("\n".join(str(value) for value in values) + "\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["monitor", *map(str, files), *options])
    return status, out.getvalue()


def test_monitor_says_which_procedure_decides_on_the_issues_case(tmp_path):
    """0/1 scores: the e-process rejects, the Hoeffding sequence still holds 0 at N; the dual one agrees with it."""
    a, b = _path(372, 500, 0.06, 0.015)
    status, out = _monitor(tmp_path, a, b, "--json")
    summary = json.loads(out)["summary"]
    assert status == 0 and summary["first_crossing"] is not None
    assert summary["mean_difference_sequence"]["contains_zero_at_n"] is True  # the issue's two answers
    assert summary["mean_difference_sequence"]["dual_to_the_test"] is False
    assert summary["win_share_sequence"]["excludes_half"] is True and summary["win_share_sequence"]["lower"] > 0.5
    assert summary["decision"]["decided_at"] == summary["first_crossing"]
    assert summary["decision"]["outcome"] == "A better"
    status, text = _monitor(tmp_path, b, a)
    assert status == 0
    assert f"decision: B better (equal accuracies rejected at item {summary['first_crossing']}" in text
    assert "the e-process is the test and decides" in text and "non-dual procedure" in text


def test_monitor_graded_the_betting_sequence_is_the_tests_dual_at_the_printed_rows(tmp_path):
    rng = np.random.default_rng(11)
    a = np.round(np.clip(rng.normal(0.6, 0.25, 600), 0, 1), 4)
    b = np.round(np.clip(rng.normal(0.5, 0.25, 600), 0, 1), 4)
    status, out = _monitor(tmp_path, a, b, "--json", "--checkpoints", "40")
    document = json.loads(out)
    summary = document["summary"]
    assert status == 0 and summary["decision"]["dual_sequence"] == "betting" and summary["first_crossing"]
    threshold = math.log(1 / 0.05)
    for row in document["trajectory"]:
        excluded = row["betting_low"] > 0 or row["betting_high"] < 0
        assert excluded == (row["log_e"] >= threshold), row
