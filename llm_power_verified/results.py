"""The one shape of every result object: a frozen dataclass, a short ``repr``, ``to_dict()``.

Every public result of the package (:class:`~llm_power_verified.inference.mcnemar.McNemarResult`,
:class:`~llm_power_verified.leaderboard.audit.AuditResult`, the audit's multiplicity,
cluster, tier and verdict summaries, the e-process path, ...) is declared as::

    @dataclass(frozen=True, repr=False)
    class Something(Result):
        ...

``repr`` prints a summary (scalars as they are, arrays and tables as their
shape) so that printing a result with a 10,000-row pair table stays one line.
``to_dict()`` gives plain Python containers, nested results included; the
fields keep their NumPy arrays and DataFrames, which the JSON writer
(:func:`llm_power_verified.io.output.json_ready`) turns into lists and records.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar

import numpy as np

__all__ = ["Result"]

_LONGEST_VALUE = 60


def _summary(value: Any) -> str:
    """One short token for a field value: shapes for arrays and tables, the value itself when it is short."""
    if isinstance(value, Result):
        own = type(value).__repr__ is not Result.__repr__
        return repr(value) if own else f"<{type(value).__name__}>"
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], Result):
        return f"<{len(value)} {type(value[0]).__name__}>"
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) >= 1 and int(np.prod(shape)) > 4:
        return f"<{type(value).__name__} {' x '.join(str(size) for size in shape)}>"
    if isinstance(value, (dict, list, tuple)) and len(value) > 4:
        return f"<{type(value).__name__} of {len(value)}>"
    text = repr(value)
    return text if len(text) <= _LONGEST_VALUE else text[: _LONGEST_VALUE - 3] + "..."


def _plain(value: Any) -> Any:
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


class Result:
    """Mixin of the frozen result dataclasses: a summary ``repr`` and ``to_dict()``.

    ``_keys`` maps a field name to its key in ``to_dict()`` where the two differ
    (a key such as ``"fixed-n"`` is not an identifier); ``_hidden`` lists
    fields left out of ``repr`` (the input a result carries along).
    """

    _keys: ClassVar[dict[str, str]] = {}
    _hidden: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict of plain containers (nested results become dicts, tuples lists).

        Returns
        -------
        dict
            Field name (or its ``_keys`` entry) -> value; arrays and DataFrames are kept as they are.

        Examples
        --------
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True, repr=False)
        ... class Interval(Result):
        ...     low: float
        ...     high: float
        >>> Interval(0.25, 0.75).to_dict(), Interval(0.25, 0.75)
        ({'low': 0.25, 'high': 0.75}, Interval(low=0.25, high=0.75))
        """
        return {self._keys.get(item.name, item.name): _plain(getattr(self, item.name)) for item in fields(self)}

    def __repr__(self) -> str:
        shown = (item.name for item in fields(self) if item.name not in self._hidden)
        return f"{type(self).__name__}({', '.join(f'{name}={_summary(getattr(self, name))}' for name in shown)})"
