"""Hostile cases for the decisions of issue 26: ``compare``, ``--min-effect`` and the rounding of printed digits.

Each is a :class:`tests.support.hostile.Case` of the held-out corpus (run by ``tests/io/test_hostile_inputs.py``
with the rest): the files, the command and the ending it must have.
"""

from __future__ import annotations

import json

import numpy as np

from tests.support.hostile import FAST, SCORES, Case, Read, either, plain, refused, wide


def _json_check(predicate, what: str):
    def check(stdout: str, folder) -> str | None:
        try:
            document = json.loads(stdout)
        except ValueError:
            return "stdout is not JSON"
        return None if predicate(document) else what

    return check


def decision_cases() -> list[Case]:
    family = "decisions (compare, --min-effect, printed digits)"
    table = {"w.csv": wide()}
    base = ("compare", "w.csv", "--baseline", "m0", "--candidate", "m1")
    sorted_rows = np.array([[1, 0 if item < 50 else 1] for item in range(200)], dtype=float)
    same = np.repeat(SCORES[:, :1], 2, axis=1)
    return [
        Case(
            family, "compare --out is the input", (*base, "--out", "w.csv"), refused("would overwrite an input"), table
        ),
        Case(
            family,
            "compare unknown candidate",
            ("compare", "w.csv", "--baseline", "m0", "--candidate", "m9"),
            refused("m9"),
            table,
        ),
        Case(
            family,
            "compare baseline is candidate",
            ("compare", "w.csv", "--baseline", "m0", "--candidate", "m0"),
            refused("m0"),
            table,
        ),
        Case(
            family, "compare equivalence without margin", (*base, "--test", "equivalence"), refused("--margin"), table
        ),
        Case(
            family,
            "compare margin 1",
            (*base, "--test", "non-inferiority", "--margin", "1"),
            refused("--margin"),
            table,
        ),
        Case(family, "compare alpha 0.5", (*base, "--alpha", "0.5"), refused("--alpha"), table),
        Case(
            family,
            "compare --anytime on sorted items",
            ("compare", "s.csv", "--baseline", "m0", "--candidate", "m1", "--anytime"),
            refused("--anytime", "contradicts itself"),
            {"s.csv": wide(sorted_rows)},
        ),
        Case(
            family,
            "compare two files of different lengths",
            ("compare", "a.txt", "b.txt", "--baseline", "a.txt", "--candidate", "b.txt"),
            refused("b.txt"),
            {"a.txt": plain(SCORES[:, 0]), "b.txt": plain(SCORES[:30, 1])},
        ),
        Case(
            family,
            "compare json of identical models",
            (*base[:3], "m0", "--candidate", "m0copy", "--json", "--inconclusive", "pass"),
            Read(
                _json_check(
                    lambda d: d["verdict"] == "inconclusive" and d["difference"] == 0, "not inconclusive at d = 0"
                )
            ),
            {"w.csv": wide(same, names=["m0", "m0copy"])},
        ),
        Case(
            family,
            "min-effect 1e-300",
            ("audit", "w.csv", *FAST, "--min-effect", "1e-300"),
            refused("--min-effect"),
            table,
        ),
        Case(
            family, "min-effect 1_0", ("audit", "w.csv", *FAST, "--min-effect", "1_0"), refused("--min-effect"), table
        ),
        Case(
            family,
            "min-effect arabic-indic digits",
            ("audit", "w.csv", *FAST, "--min-effect", "\u0660.\u0660\u0662"),
            refused("--min-effect"),
            table,
        ),
        Case(
            family,
            "plan min-effect 5e-324",
            ("plan", "items", "w.csv", "--min-effect", "5e-324"),
            refused("--min-effect"),
            table,
        ),
        Case(
            family,
            "min-effect on identical models",
            ("audit", "w.csv", *FAST, "--min-effect", "0.02", "--format", "json"),
            Read(_json_check(lambda d: d["pairs"][0]["q_min_effect"] is None, "q(DELTA) defined at psi 0")),
            {"w.csv": wide(same, names=["m0", "m0copy"])},
        ),
        Case(
            family,
            "accuracies printed tie at one decimal",
            ("audit-accuracies", "acc.csv", "--n", "14042", "--format", "json"),
            Read(_json_check(lambda d: d["pairs"][0]["verdict"] != "resolved", "a printed tie called resolved")),
            {"acc.csv": b"model,accuracy\na,90.8\nb,90.8\nc,80.0\n"},
        ),
        Case(
            family,
            "monitor one item",
            ("monitor", "a.txt", "b.txt"),
            either(None, "a.txt", "item", "items"),
            {"a.txt": b"1\n", "b.txt": b"0\n"},
        ),
    ]
