"""``--argument-map``: how our keyword arguments reach an audited calculator (renamed, dropped, constants added).

``ours=theirs`` passes our argument under their name (``--python`` only), ``ours=-`` does not pass it at all (a tool
that has no such input, such as a per-arm size without rho), and ``theirs:=VALUE`` adds a constant (a number, else
the text as a string) to every call.  Two arguments passed under one keyword, a constant named as a passed keyword
and a repeated constant are refused, each naming the entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llm_power_verified.cli.errors import CommandError

__all__ = ["ArgumentMap", "argument_map"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class ArgumentMap:
    """How our keyword arguments reach the calculator.

    Parameters
    ----------
    renames : dict of str to str
        Our argument -> their name.
    dropped : tuple of str
        Our arguments not passed.
    constants : dict of str to float or int or str
        Their extra arguments, the same on every call.
    """

    renames: dict[str, str]
    dropped: tuple[str, ...]
    constants: dict[str, float | int | str]

    def passed(self, values: dict[str, float]) -> dict[str, float | int | str]:
        """Their keyword arguments for one call.

        Parameters
        ----------
        values : dict of str to float
            Our arguments and their values.

        Returns
        -------
        dict
            Their names -> values, the constants included.
        """
        given = {self.renames.get(name, name): value for name, value in values.items() if name not in self.dropped}
        return {**given, **self.constants}


def _constant(text: str) -> float | int | str:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def argument_map(text: str | None, arguments: tuple[str, ...], quantity: str, *, command: bool) -> ArgumentMap:
    """Parse ``--argument-map`` (``ours=theirs``, ``ours=-``, ``theirs:=VALUE``, comma-separated).

    Parameters
    ----------
    text : str or None
        The option's value (None: no map).
    arguments : tuple of str
        The quantity's arguments (ours).
    quantity : str
        The quantity's name on the command line, for the messages.
    command : bool
        True for ``--command``, whose template names the arguments itself (renames are refused).

    Returns
    -------
    ArgumentMap
        The map.

    Raises
    ------
    CommandError
        An entry that is not one of the three forms, names no argument of the quantity, or repeats one.
    """
    renames: dict[str, str] = {}
    dropped: list[str] = []
    constants: dict[str, float | int | str] = {}
    allowed = ", ".join(arguments)
    entries: dict[str, str] = {}  # a rename's or a constant's entry, as given (for the messages)
    for entry in [part.strip() for part in (text or "").split(",") if part.strip()]:
        shown = f"--argument-map entry {entry!r}"
        if ":=" in entry:
            name, value = (part.strip() for part in entry.split(":=", 1))
            if not _NAME.match(name) or not value:
                raise CommandError(f"{shown}: a constant is NAME:=VALUE with NAME an identifier and VALUE not empty")
            if name in arguments:
                raise CommandError(
                    f"{shown}: {name} is an argument of {quantity}, which the check varies; pass it under another "
                    f"name ({name}=theirs) or not at all ({name}=-)"
                )
            if name in constants:
                raise CommandError(f"{shown}: the constant {name} is given twice ({entries[name]!r} before it)")
            constants[name], entries[name] = _constant(value), entry
            continue
        ours, separator, theirs = (part.strip() for part in entry.partition("="))
        if not separator:
            raise CommandError(f"{shown}: use ours=theirs, ours=- or theirs:=VALUE (allowed ours: {allowed})")
        if ours not in arguments:
            raise CommandError(f"{shown}: {ours!r} is not an argument of {quantity}; allowed: {allowed}")
        if ours in renames or ours in dropped:
            raise CommandError(f"{shown}: {ours} is mapped twice")
        if theirs == "-":
            dropped.append(ours)
        elif command:
            raise CommandError(
                f"{shown}: a --command template names the arguments itself ({{{ours}}}); only {ours}=- (not passed) "
                "and NAME:=VALUE apply to it"
            )
        elif not _NAME.match(theirs):
            raise CommandError(f"{shown}: {theirs!r} is not a Python identifier")
        else:
            renames[ours], entries[ours] = theirs, entry
    _refuse_collisions(arguments, ArgumentMap(renames, tuple(dropped), constants), entries)
    return ArgumentMap(renames, tuple(dropped), constants)


def _refuse_collisions(arguments: tuple[str, ...], mapping: ArgumentMap, entries: dict[str, str]) -> None:
    """Refuse two of our arguments passed under one keyword, and a constant named as a passed keyword."""
    keywords: dict[str, str] = {}
    for ours in arguments:
        if ours in mapping.dropped:
            continue
        keyword = mapping.renames.get(ours, ours)
        if keyword in keywords:
            first = keywords[keyword]
            entry = entries.get(ours if ours in mapping.renames else first, entries.get(first, ""))
            raise CommandError(
                f"--argument-map entry {entry!r}: {first} and {ours} would be passed as the same keyword {keyword}; "
                "each needs its own (or drop one with ours=-)"
            )
        keywords[keyword] = ours
    for name in mapping.constants:
        if name in keywords:
            raise CommandError(
                f"--argument-map entry {entries[name]!r}: {name} is already passed ({keywords[name]}={name}); a "
                "constant needs a keyword of its own"
            )
