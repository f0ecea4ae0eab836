"""How ``score_kind="auto"`` tells graded scores from binary scores with damaged cells: from the whole matrix.

Call a score *fractional* when it is neither 0 nor 1.  With none the matrix
is binary.  Otherwise the question is whether partial credit is part of the
scoring or a few cells are damaged, and one model column cannot answer it:
in a graded pass@1 leaderboard (pass@1 estimated from k of n samples) the
models run at temperature 0 score mostly 0 or 1 and show only a few
fractions, while the models sampled at a higher temperature show many.  So
the count is taken over the whole matrix: the matrix is graded when it holds
more than ``max(MIN_STRAYS, STRAY_SHARE * items)`` fractional scores, that is
more fractions than 5% of one model's worth of items (and more than 2).
Damage by typing or a broken export leaves a handful of such cells; a
scoring scheme with partial credit leaves them wherever the scheme gives
partial credit, across the models it samples, and (in the leaderboards this
was checked against, e.g. 58 models x 400 items with ten models scored k/10)
far above that bound.  At or below the bound the fractional scores are
*strays* in binary data and the first is refused, naming its cell, the count
and the flags: ``--scores graded`` if partial credit is meant, ``--scores
binary`` to refuse anything but 0/1.  The note of a graded matrix says how
many scores are fractional and in how many models.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified.io.errors import InputError

__all__ = ["MIN_STRAYS", "STRAY_SHARE", "resolve_score_kind", "shown_score", "stray_bound"]

#: In ``score_kind="auto"``, a matrix whose fractional (non-0/1) scores number at most
#: ``max(MIN_STRAYS, STRAY_SHARE * items)`` in all is binary data with stray values, and is refused.
STRAY_SHARE = 0.05
MIN_STRAYS = 2


def shown_score(score: float) -> str:
    """A score as a message shows it: 2, not 2.0; 0.5; inf.

    Parameters
    ----------
    score : float
        The score.

    Returns
    -------
    str
        Up to 15 significant digits, no trailing zeros.

    Examples
    --------
    >>> shown_score(2.0), shown_score(0.25), shown_score(float("inf"))
    ('2', '0.25', 'inf')
    """
    return f"{float(score):.15g}"


def stray_bound(n_items: int) -> float:
    """Most fractional scores a matrix may hold and still be refused as binary data with strays (module notes).

    Parameters
    ----------
    n_items : int
        The items of the matrix.

    Returns
    -------
    float
        max(MIN_STRAYS, STRAY_SHARE * n_items) = max(2, 0.05 n_items).

    Examples
    --------
    >>> stray_bound(400), stray_bound(10)
    (20.0, 2)
    """
    return max(MIN_STRAYS, STRAY_SHARE * n_items)


@docfill("score_kind")
def resolve_score_kind(
    scores: np.ndarray,
    score_kind: str,
    locate: Callable[[int, int], str],
    source: str,
    *,
    per_model: tuple[int, str] | None = None,
    binary_flag: bool = True,
) -> tuple[bool, list[str]]:
    """Whether a matrix is binary under the requested score kind, and the note that says so; never a silent switch.

    Parameters
    ----------
    scores : numpy.ndarray
        items x models, finite.
    %(score_kind)s
    locate : callable
        ``locate(item, model) -> str``: where a cell came from, for messages.
    source : str
        What messages call the input.
    per_model : tuple of (int, str), optional
        How many scores one model has and what they are called, for the stray bound (default: the rows, "items";
        the generations of a repeated input pass (generations / models, "generations per model")).
    binary_flag : bool, default True
        Whether the refusal of a stray may point at ``--scores binary`` (not for generations: their means are graded).

    Returns
    -------
    binary : bool
        True when every score is 0 or 1 (and "graded" was not asked for).
    notes : list of str
        Why the matrix is graded, when that was decided here or asked of a 0/1 matrix.

    Raises
    ------
    InputError
        Under "binary", the first score that is neither 0 nor 1; under "auto", the first of at most
        :func:`stray_bound` such scores (strays in binary data), with the flags that settle it.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.zeros((100, 3))
    >>> scores[:30, 2] = 0.5
    >>> resolve_score_kind(scores, "auto", lambda item, model: f"item {item}", "demo")
    (False, ['scores read as graded: 30 of 300 are neither 0 nor 1 (--scores auto)'])
    """
    stray = (scores != 0) & (scores != 1)
    if not stray.any():
        if score_kind == "graded":
            return False, [
                "every score is 0 or 1 but --scores graded was asked for: graded methods (paired t) are used"
            ]
        return True, []
    count = int(stray.sum())
    item, model = (int(i) for i in np.argwhere(stray)[0])
    first = f"{locate(item, model)} has score {shown_score(scores[item, model])}"
    if score_kind == "binary":
        raise InputError(
            f"{source}: {first}; binary scores must be 0 or 1 "
            f"({count} scores are not); pass --scores graded (score_kind='graded') for graded scores"
        )
    if score_kind == "graded":
        return False, []
    models = int(stray.any(axis=0).sum())
    size, unit = per_model or (scores.shape[0], "items")
    bound = stray_bound(size)
    if count <= bound:
        raise InputError(
            f"{source}: {first} but the other scores are 0 or 1 ({count} of {stray.size:,} are not, in {models} "
            f"model(s); at most max({MIN_STRAYS}, {STRAY_SHARE:.0%} of {size:,} {unit}) = {bound:g} read as "
            "damage); fix the value, or pass --scores graded (score_kind='graded') if partial credit is meant"
            + (", or --scores binary to refuse anything but 0/1" if binary_flag else "")
        )
    return False, [f"scores read as graded: {count:,} of {stray.size:,} are neither 0 nor 1 (--scores auto)"]
