"""The descriptions of a result dataclass's fields, read from its numpydoc ``Attributes`` section.

The JSON schema of a summary (:mod:`llm_power_verified.report.schemas`) describes each key with the text its class
documents it with, so that the words are written once, beside the field.
"""

from __future__ import annotations

import inspect
import re

__all__ = ["attribute_descriptions"]

#: A numpydoc attribute line: "name : type" or "first, second : type".
_HEADER = re.compile(r"^(\w+(?:, \w+)*) : ")


def attribute_descriptions(result_class: type) -> dict[str, str]:
    """Each attribute documented in the class docstring's ``Attributes`` section -> its description (one line).

    Parameters
    ----------
    result_class : type
        A class with a numpydoc docstring.

    Returns
    -------
    dict of str to str
        Field name -> description ({} without an ``Attributes`` section), in the JSON report's words (``name`` as
        name, None as null); names documented together share one.

    Examples
    --------
    >>> class Split:
    ...     '''A split.
    ...
    ...     Attributes
    ...     ----------
    ...     low, high : int
    ...         The ends.
    ...     '''
    >>> attribute_descriptions(Split)
    {'low': 'The ends.', 'high': 'The ends.'}
    """
    lines = inspect.cleandoc(result_class.__doc__ or "").splitlines()
    if "Attributes" not in lines:
        return {}
    texts: dict[tuple[str, ...], list[str]] = {}
    names: tuple[str, ...] = ()
    for line in lines[lines.index("Attributes") + 2 :]:
        header = _HEADER.match(line)
        if header:
            names = tuple(header.group(1).split(", "))
            texts[names] = []
        elif line.startswith(" ") and names:
            texts[names].append(line.strip())
        elif line:
            break  # the next section
    return {name: _as_json(" ".join(words)) for group, words in texts.items() for name in group}


def _as_json(text: str) -> str:
    """A description in the JSON report's words: ``name`` as name, None as null."""
    return re.sub(r"\bNone\b", "null", text.replace("``", ""))
