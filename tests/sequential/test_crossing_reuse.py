"""The anytime-valid required N found once per distinct (b, c) and reused: the same values, bit for bit, as searching
every pair on its own (the search of every pair is what the function did before the reuse)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from scipy.special import ndtri

from llm_power_verified.errors import ArgumentError
from llm_power_verified.sequential import crossing, required_n_anytime
from llm_power_verified.sequential.e_process import log_e_value


def _every_pair(b, c, n, alpha=0.05, power=0.8, mixture="grid") -> np.ndarray:
    """The search run on every (b, c, n) as given: no pair shared with another, nothing reused."""
    bounds = crossing.envelope(alpha, mixture)
    b, c, n = (np.asarray(x, dtype=np.float64).ravel() for x in np.broadcast_arrays(b, c, n))
    z_power = -float(ndtri(1 - power))
    return crossing._search(b, c, n, bounds, z_power)


def _cases(n: int, rng: np.random.Generator, size: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """Random tables of n items with repeats, and the edge cases b = c, b + c = 0, b + c = n, one-sided tables."""
    total = rng.integers(0, n + 1, size=size)
    b = rng.integers(0, total + 1)
    c = total - b
    edges_b = [0, n, 0, n // 2, n // 2, 1, 0, n - 1]
    edges_c = [0, 0, n, n // 2, n - n // 2, 0, 1, 1]
    half = b[: size // 4] // 2
    b = np.concatenate([b, edges_b, half, b[::7]])
    c = np.concatenate([c, edges_c, half, c[::7]])
    return b, c


@pytest.fixture
def fresh(monkeypatch):
    """An empty store of values found, so that a test sees the first search and then the reuse."""
    store = crossing._Found()
    monkeypatch.setattr(crossing, "_FOUND", store)
    return store


@pytest.mark.parametrize("n", [1, 2, 7, 50, 400, 3000, 12_000, 100_000, 2_000_000])
@pytest.mark.parametrize("alpha, power, mixture", [(0.05, 0.8, "grid"), (0.01, 0.9, "grid"), (0.05, 0.8, "two-point")])
def test_reused_values_equal_the_search_of_every_pair(fresh, n, alpha, power, mixture):
    rng = np.random.default_rng(n)
    b, c = _cases(n, rng)
    expected = _every_pair(b, c, n, alpha, power, mixture)
    first = required_n_anytime(b, c, n, alpha, power, mixture)
    again = required_n_anytime(b[::-1], c[::-1], n, alpha, power, mixture)  # every value now from the store
    assert np.array_equal(first, expected) and np.array_equal(again, expected[::-1])
    assert np.isinf(first[np.flatnonzero(b == c)]).all()  # no gap: never resolved
    if n >= 400:
        assert np.isfinite(first).sum() > 100  # the comparison covers finite N, not only inf


def test_values_come_from_the_store_the_second_time(fresh, monkeypatch):
    b, c = np.array([1680, 1454, 1680, 900]), np.array([1454, 1680, 1454, 700])
    searched = []
    original = crossing._search

    def counting(b, c, n, bounds, z_power):
        searched.append(b.size)
        return original(b, c, n, bounds, z_power)

    monkeypatch.setattr(crossing, "_search", counting)
    first = required_n_anytime(b, c, 12032)
    second = required_n_anytime(b, c, 12032)
    other_power = required_n_anytime(b, c, 12032, power=0.9)
    assert searched == [3, 3]  # three distinct (b, c); nothing searched the second time; a new power searches again
    assert np.array_equal(first, second) and first[0] == first[2] and np.all(other_power >= first)


def test_pairs_outside_the_store_are_searched_as_before(fresh):
    """Several n in one call, NaN and n >= 2^31 take the search of every pair."""
    b = np.array([1680, 1680, 400_000, 5, 3, np.nan, 3_000_000_000])
    c = np.array([1454, 1454, 398_000, 1, 2, 4, 2_900_000_000])
    n = np.array([12032, 12033, 2_000_000, 12032, 10, 100, 7_000_000_000])
    found = required_n_anytime(b, c, n)
    expected = _every_pair(np.nan_to_num(b), c, n)
    expected[5] = np.nan  # a missing count: N_av unknown
    assert np.array_equal(found, expected, equal_nan=True) and np.isfinite(found[[0, 1, 3, 4, 6]]).all()


def test_store_keeps_at_most_its_limit_and_the_values_stay_exact(fresh, monkeypatch):
    monkeypatch.setattr(crossing._Found, "LIMIT", 50)
    rng = np.random.default_rng(3)
    b, c = _cases(12_000, rng, size=200)
    expected = _every_pair(b, c, 12_000)
    assert np.array_equal(required_n_anytime(b[:30], c[:30], 12_000), expected[:30])
    assert np.array_equal(required_n_anytime(b, c, 12_000), expected)  # too many to keep: searched, not stored
    keys, values = fresh._tables[(12_000.0, 0.05, "grid", (1.0, 1.0), 0.8)]
    assert keys.size <= 50 and np.all(np.diff(keys) > 0) and keys.size == values.size


def test_threads_sharing_the_store_get_the_same_values(fresh):
    rng = np.random.default_rng(8)
    b, c = _cases(12_000, rng, size=3000)
    expected = _every_pair(b, c, 12_000)
    results = [None] * 4

    def run(index: int) -> None:
        order = np.random.default_rng(index).permutation(b.size)
        found = np.empty(b.size)
        found[order] = required_n_anytime(b[order], c[order], 12_000)
        results[index] = found

    threads = [threading.Thread(target=run, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(np.array_equal(found, expected) for found in results)


def test_the_search_of_a_pair_does_not_depend_on_the_pairs_searched_with_it():
    """Calls of 1 to 400 pairs (the new tables of a late block of an audit) give the values of one call of all.

    A call's window of counts per round depends on its number of pairs; the first crossing must not.
    """
    rng = np.random.default_rng(21)
    b, c = _cases(12_000, rng, size=1200)
    together = _every_pair(b, c, 12_000)
    for size in (1, 4, 40, 400):
        pieces = [
            _every_pair(b[start : start + size], c[start : start + size], 12_000) for start in range(0, 400, size)
        ]
        assert np.array_equal(np.concatenate(pieces), together[:400]), size


def test_a_table_with_more_discordant_items_than_items_is_refused_naming_it():
    """b + c > n is no table of n items: refused in one line (it leaked a RuntimeWarning from sqrt before)."""
    with pytest.raises(ArgumentError, match=r"b \+ c must not exceed n; got b = 600, c = 500, n = 1000 at index 1"):
        required_n_anytime([5, 600], [3, 500], 1000)


@pytest.mark.parametrize("mixture", ["grid", "two-point"])
@pytest.mark.parametrize("alpha", [0.05, 0.001])
def test_every_item_one_way_needs_the_first_count_whose_e_value_reaches_one_over_alpha(mixture, alpha):
    """b = n or c = n (sigma_D = 0): certain crossing at the first M with e(M wins) >= 1/alpha (it was inf)."""
    wins = np.arange(1, 400)
    first = int(wins[np.argmax(np.asarray(log_e_value(wins, 0, mixture=mixture)) >= np.log(1 / alpha))])
    got = required_n_anytime([50, 0, 1000], [0, 50, 0], [50, 50, 1000], alpha=alpha, mixture=mixture)
    assert got.tolist() == [first] * 3


@pytest.mark.parametrize("alpha", [0, 2, -0.1, float("nan")])
def test_an_alpha_outside_the_unit_interval_is_refused_naming_it(alpha):
    with pytest.raises(ArgumentError, match=r"alpha must lie in \(0, 1\)"):
        required_n_anytime(5, 3, 100, alpha=alpha)


def test_a_missing_count_gives_a_missing_n_not_inf():
    got = required_n_anytime([np.nan, 1680], [3, 1454], [100, 12032])
    assert np.isnan(got[0]) and got[1] == required_n_anytime(1680, 1454, 12032)
