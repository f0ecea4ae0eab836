"""The exact median rho of all pairs of a tiled audit, without a value per pair on the client.

The headline states the median observed rho of the reported pairs (``np.nanmedian`` of the pair table's ``rho``,
:func:`~llm_power_verified.leaderboard.headline.smallest_resolvable_gap`).  A tiled audit has every pair's rho only
inside its band, so the median is found in two passes, as the family's p-values are:

1. each band counts its pairs' rho in ``RHO_BINS`` fixed bins over [-1, 1] (and the undefined ones, NaN, apart):
   :func:`rho_histogram`;
2. the client sums the counts and finds the bins that hold the middle value(s) (:func:`median_plan`); each band sends
   back its values in those bins (:func:`values_in_bins`), and the client picks the middle ones among them
   (``MedianPlan.median``).

The bins are a function of the value alone, so a band's two passes put each rho in the same bin; the median is then
``np.nanmedian`` of the whole column to the last bit (the middle value, or numpy's mean of the two middle values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm_power_verified.results import Result

__all__ = ["RHO_BINS", "MedianPlan", "median_plan", "rho_histogram", "values_in_bins"]

#: Fixed bins of rho over [-1, 1] (a band's histogram is RHO_BINS + 1 counts, the last the NaNs: 128 KiB).
RHO_BINS = 2**14


def _bins(rho: np.ndarray) -> np.ndarray:
    """Each finite rho's bin: floor((rho + 1) * RHO_BINS / 2), 1 in the last bin."""
    return np.clip(np.floor((rho + 1.0) * (RHO_BINS / 2)), 0, RHO_BINS - 1).astype(np.int64)


def rho_histogram(rho: np.ndarray) -> np.ndarray:
    """The counts of ``rho`` in the ``RHO_BINS`` fixed bins, then the count of NaN.

    Parameters
    ----------
    rho : numpy.ndarray
        Correlations in [-1, 1], or NaN where undefined.

    Returns
    -------
    numpy.ndarray
        ``RHO_BINS + 1`` int64 counts.

    Examples
    --------
    >>> counts = rho_histogram(np.array([-1.0, 0.0, 1.0, np.nan]))
    >>> int(counts[0]), int(counts[RHO_BINS // 2]), int(counts[RHO_BINS - 1]), int(counts[-1])
    (1, 1, 1, 1)
    """
    defined = ~np.isnan(rho)
    counts = np.bincount(_bins(rho[defined]), minlength=RHO_BINS)
    return np.append(counts, np.int64(rho.size - int(defined.sum())))


def values_in_bins(rho: np.ndarray, low: int, high: int) -> np.ndarray:
    """The values of ``rho`` in bins ``low`` through ``high`` (NaN never).

    Parameters
    ----------
    rho : numpy.ndarray
        Correlations, as :func:`rho_histogram` takes them.
    low, high : int
        The first and last bin.

    Returns
    -------
    numpy.ndarray
        Those values, in their order.
    """
    bins = np.full(rho.size, -1, dtype=np.int64)
    defined = ~np.isnan(rho)
    bins[defined] = _bins(rho[defined])
    return rho[(bins >= low) & (bins <= high)]


@dataclass(frozen=True, repr=False)
class MedianPlan(Result):
    """Where the middle values of the defined rho lie: the bins to collect, and the values below them.

    Attributes
    ----------
    defined : int
        Pairs with a defined rho.
    low, high : int
        The bins holding the lower and upper middle value (-1 when no rho is defined).
    below : int
        Defined values in bins before ``low``.
    """

    defined: int
    low: int
    high: int
    below: int

    def median(self, collected: list[np.ndarray]) -> float:
        """The median of every defined rho from the bands' values in the bins ``low`` .. ``high``.

        Parameters
        ----------
        collected : list of numpy.ndarray
            Each band's :func:`values_in_bins`.

        Returns
        -------
        float
            ``np.nanmedian`` of the whole column; NaN when no rho is defined.
        """
        if not self.defined:
            return float("nan")
        values = np.sort(np.concatenate([np.empty(0), *collected]))
        middle = values[[(self.defined - 1) // 2 - self.below, self.defined // 2 - self.below]]
        # np.median of two equal positions is that value; of two neighbours their mean: numpy's own rule.
        return float(np.median(middle if self.defined % 2 == 0 else middle[:1]))


def median_plan(counts: np.ndarray) -> MedianPlan:
    """The :class:`MedianPlan` of the summed histograms of every band.

    Parameters
    ----------
    counts : numpy.ndarray
        The sum of the bands' :func:`rho_histogram`.

    Returns
    -------
    MedianPlan
        The bins to collect.

    Examples
    --------
    >>> rho = np.array([0.5, -0.25, 0.75, np.nan, 0.1])
    >>> plan = median_plan(rho_histogram(rho))
    >>> bool(plan.median([values_in_bins(rho, plan.low, plan.high)]) == np.nanmedian(rho))
    True
    """
    cumulative = np.cumsum(counts[:RHO_BINS])
    defined = int(cumulative[-1])
    if not defined:
        return MedianPlan(0, -1, -1, 0)
    low = int(np.searchsorted(cumulative, (defined - 1) // 2, side="right"))
    high = int(np.searchsorted(cumulative, defined // 2, side="right"))
    return MedianPlan(defined, low, high, int(cumulative[low] - counts[low]))
