"""Hostile cases for several generations per item (issue 27): repeat labels, repeat options and their messages.

Each is a :class:`tests.support.hostile.Case` of the held-out corpus (run by ``tests/io/test_hostile_inputs.py``
with the rest): the files, the command and the ending it must have.  The tables hold 30 items x 2 models x 3
epochs of seeded 0/1 scores; each case changes one thing (a label, a header, a cell, an option).
"""

from __future__ import annotations

import json

import numpy as np

from tests.support.hostile import FAST, Case, Read, json_holds, refused, text_lacks

ITEMS, MODELS, EPOCHS = 30, ("A", "B"), 3


def _scores(agree: bool = False) -> np.ndarray:
    """items x models x epochs of 0/1 scores, each item with its own level (seeded); ``agree``: epochs all alike."""
    rng = np.random.default_rng(2027)
    level = rng.random(ITEMS)[:, None, None]
    scores = (rng.random((ITEMS, len(MODELS), EPOCHS)) < level).astype(int)
    return np.repeat(scores[:, :, :1], EPOCHS, axis=2) if agree else scores


def _long(first: str | None = None, score: str | None = None, agree: bool = False) -> bytes:
    """The long table; ``first`` replaces the first row's epoch label, ``score`` its score."""
    scores = _scores(agree)
    lines = ["item_id,model,epoch,score"]
    for item in range(ITEMS):
        for model, name in enumerate(MODELS):
            for epoch in range(EPOCHS):
                lines.append(f"q{item:02d},{name},{epoch},{scores[item, model, epoch]}")
    head = lines[1].split(",")
    lines[1] = ",".join([*head[:2], first if first is not None else head[2], score if score is not None else head[3]])
    return ("\n".join(lines) + "\n").encode()


def _wide(extra: str = "", blank: bool = False) -> bytes:
    """The wide table ``A@0 .. B@2``; ``extra`` adds a copy of ``A@1`` under that header; ``blank`` empties a cell."""
    scores = _scores()
    header = ["item_id"] + [f"{name}@{epoch}" for name in MODELS for epoch in range(EPOCHS)]
    header += [extra] if extra else []
    lines = [",".join(header)]
    for item in range(ITEMS):
        cells = [f"q{item:02d}"] + [str(scores[item, model, epoch]) for model in range(2) for epoch in range(EPOCHS)]
        cells += [cells[2]] if extra else []
        if blank and item == 3:
            cells[1] = ""
        lines.append(",".join(cells))
    return ("\n".join(lines) + "\n").encode()


def _jsonl_mixed() -> bytes:
    """JSON Lines with epoch 1 (a number) in one row and "1" (text) in the others of the first cell."""
    rows = [
        {"item_id": f"q{item}", "model": model, "epoch": epoch, "score": (item + epoch) % 2}
        for item in range(6)
        for model in MODELS
        for epoch in (1, 2)
    ]
    rows[1]["epoch"] = "2"
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def _items(count: int):
    return json_holds(lambda report: report["data"]["n_items"] == count, f"n_items is not {count}")


def generation_cases() -> list[Case]:
    family = "generations (repeat labels and options)"
    long_table, wide_table = {"l.csv": _long()}, {"w.csv": _wide()}
    repeat = ("--repeat-column", "epoch")
    pattern = ("--repeat-pattern", "{model}@{repeat}")
    respelled = ("are the same number", "write each repeat one way")
    cases = [
        Case(
            family, "repeat pattern empty", ("audit", "w.csv", "--repeat-pattern", ""), refused("is empty"), wide_table
        ),
        Case(family, "repeat column empty", ("audit", "l.csv", "--repeat-column", ""), refused("is empty"), long_table),
        Case(
            family,
            "clean long table",
            ("audit", "l.csv", *repeat, *FAST, "--format", "json"),
            Read(_items(30)),
            long_table,
        ),
    ]
    for name, spelling, expected in (
        ("1.0 for 1", "1.0", respelled),
        ("01 for 1", "01", respelled),
        ("1e0 for 1", "1e0", respelled),
        ("full-width 1", "\uff11", respelled),
        ("Arabic-Indic 1", "\u0661", respelled),
        ("1 and a zero width space", "1\u200b", respelled),
    ):
        # The first row is q00/A's epoch 0: spelled as epoch 1, which q00/A also has.
        files = {"l.csv": _long(first=spelling)}
        cases.append(Case(family, f"epoch {name}", ("audit", "l.csv", *repeat, *FAST), refused(*expected), files))
    for spelling in ("NA", "NaN", "null", "None", "n/a"):
        files = {"l.csv": _long(first=spelling)}
        expected = refused("line 2, column 'epoch'", "is missing", "--repeat-column")
        cases.append(Case(family, f"epoch {spelling}", ("audit", "l.csv", *repeat, *FAST), expected, files))
    cases += [
        Case(
            family,
            "JSON Lines epoch 2 and '2'",
            ("audit", "t.jsonl", *repeat, *FAST),
            refused("epoch 2", "'2'", *respelled),
            {"t.jsonl": _jsonl_mixed()},
        ),
        Case(
            family,
            "wide header A@1.0 beside A@1",
            ("audit", "w.csv", *pattern, *FAST),
            refused("column 'A@1'", "column 'A@1.0'", *respelled),
            {"w.csv": _wide("A@1.0")},
        ),
        Case(
            family,
            "wide header A@NA",
            ("audit", "w.csv", *pattern, *FAST),
            refused("column 'A@NA'", "missing-value text"),
            {"w.csv": _wide("A@NA")},
        ),
        Case(
            family,
            "wide blank generation",
            ("audit", "w.csv", *pattern, *FAST),
            refused("line 5, column 'A@0' (item 'q03') has no score", "--on-missing intersect"),
            {"w.csv": _wide(blank=True)},
        ),
        Case(
            family,
            "wide blank generation intersect",
            ("audit", "w.csv", *pattern, "--on-missing", "intersect", *FAST, "--format", "json"),
            Read(_items(29)),
            {"w.csv": _wide(blank=True)},
        ),
        Case(
            family,
            "scores binary names --scores",
            ("audit", "l.csv", *repeat, "--scores", "binary"),
            refused("--scores binary", "leave --scores out"),
            long_table,
        ),
        Case(
            family,
            "repeat column forgotten",
            ("audit", "l.csv", *FAST),
            refused("has two results for item", "--repeat-column NAME"),
            long_table,
        ),
        Case(
            family,
            "stray 0.5 among 0/1 generations",
            ("audit", "l.csv", *repeat, *FAST),
            refused("has score 0.5 but the other scores are 0 or 1", "--scores graded"),
            {"l.csv": _long(score="0.5")},
        ),
        Case(
            family,
            "no note on --scores graded that was not asked",
            ("audit", "l.csv", *repeat, *FAST),
            Read(text_lacks("--scores graded was asked", "a note on a flag that was not given")),
            {"l.csv": _long(agree=True)},  # every item mean 0 or 1
        ),
        Case(
            family,
            "saved audit report as input",
            ("plan", "repeats", "r.json"),
            refused("a saved llm-power-verified report", "'plan report FILE'"),
            {"r.json": json.dumps({"schema": "llm-power-verified/audit/2", "pairs": []}).encode()},
        ),
    ]
    return cases
