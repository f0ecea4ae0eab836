"""Hostile cases for harness result files read by ``audit-accuracies FILE...`` (issue 28, item 5).

Each is a :class:`tests.support.hostile.Case` of the held-out corpus (run by ``tests/io/test_hostile_inputs.py``
with the rest, and each through the CLI in-process by ``tests/io/test_aggregates.py``): damaged variants of the
genuine lm-eval 0.4.13 ``results_*.json`` of the three ``dummy`` runs (``tests/fixtures/lm_eval/dummy``), of the
``hashlm`` runs, of lighteval's results JSON and of Inspect logs, each changed in one place, with the ending it must
have.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from tests.support.hostile import FIXTURES, Case, Read, json_holds, refused

DUMMY = sorted((FIXTURES / "lm_eval" / "dummy").glob("*/results_*.json"))
HASHLM = sorted((FIXTURES / "lm_eval" / "hashlm").glob("*/results_*.json"))
GROUPS = sorted((FIXTURES / "lm_eval" / "hashlm_by_subject").glob("*/results_*.json"))
LIGHTEVAL = sorted((FIXTURES / "lighteval" / "results").glob("*/results_*.json"))
INSPECT = sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))
INSPECT_JSON = next((FIXTURES / "inspect" / "json").glob("*.json"))
INSPECT_EPOCHS = sorted((FIXTURES / "inspect" / "eval_epochs2").glob("*.eval"))
FAMILY = "aggregates (result files for audit-accuracies)"


def _named(paths: list[Path]) -> dict[str, bytes]:
    """The files under ``FOLDER/NAME`` (their run folder and name), as the harness wrote them."""
    return {f"{path.parent.name}/{path.name}": path.read_bytes() for path in paths}


def _changed(paths: list[Path], index: int, change) -> dict[str, bytes]:
    """The files, the ``index``-th parsed, changed by ``change(document)`` and written back as JSON."""
    files = _named(paths)
    name = list(files)[index]
    document = json.loads(files[name])
    change(document)
    files[name] = json.dumps(document, indent=2).encode()
    return files


def _dummy(index: int, change) -> tuple[dict[str, bytes], tuple[str, ...]]:
    files = _changed(DUMMY, index, change)
    return files, tuple(files)


def _set_n(document: dict, n: int, stderr: bool) -> None:
    """n-samples effective (and original) set to ``n``; ``stderr``: the stderr made consistent with it."""
    document["n-samples"]["arith_mc"] = {"original": n, "effective": n}
    if stderr:
        p = document["results"]["arith_mc"]["acc,none"]
        document["results"]["arith_mc"]["acc_stderr,none"] = math.sqrt(p * (1 - p) / (n - 1))


def _accuracy(value: float, stderr: bool = True):
    def change(document: dict) -> None:
        document["results"]["arith_mc"]["acc,none"] = value
        if stderr:
            document["results"]["arith_mc"]["acc_stderr,none"] = math.sqrt(value * (1 - value) / 199)

    return change


def _n_items(count: int):
    return json_holds(lambda report: report["data"]["n_items"] == count, f"n_items is not {count}")


def aggregate_cases() -> list[Case]:
    metric = ("--metric", "acc")
    clean = _named(DUMMY)
    cases = [
        Case(
            FAMILY,
            "clean dummy leaderboard",
            ("audit-accuracies", *clean, *metric, "--format", "json"),
            Read(_n_items(200)),
            clean,
        ),
        Case(
            FAMILY,
            "acc and acc_norm, no --metric",
            ("audit-accuracies", *clean),
            refused("2 metrics ('acc', 'acc_norm')", "--metric"),
            clean,
        ),
        Case(
            FAMILY,
            "unknown task",
            ("audit-accuracies", *clean, *metric, "--task", "arith_gen"),
            refused("no task 'arith_gen' (tasks present: 'arith_mc')", "--task"),
            clean,
        ),
        Case(
            FAMILY,
            "one file only",
            ("audit-accuracies", next(iter(clean)), *metric),
            refused("1 result file(s); a comparison needs two"),
            {name: clean[name] for name in list(clean)[:1]},
        ),
        Case(
            FAMILY,
            "the same model twice",
            ("audit-accuracies", *clean, "copy/results_x.json", *metric),
            refused("model 'dummy-seed1' is also the model of", "one result file per model"),
            {**clean, "copy/results_x.json": DUMMY[0].read_bytes()},
        ),
        Case(
            FAMILY,
            "--n contradicts the files",
            ("audit-accuracies", *clean, *metric, "--n", "150"),
            refused("--n 150 contradicts", "n-samples effective", "leave --n out"),
            clean,
        ),
        Case(
            FAMILY,
            "a table option with result files",
            ("audit-accuracies", *clean, *metric, "--accuracy-scale", "percent"),
            refused("--accuracy-scale 'percent' applies to a table of accuracies"),
            clean,
        ),
        Case(
            FAMILY,
            "--scorer with lm-eval files",
            ("audit-accuracies", *clean, *metric, "--scorer", "choice"),
            refused("--scorer 'choice' applies to Inspect result files", "leave it out"),
            clean,
        ),
    ]
    damaged = {
        "metric key missing": (
            lambda document: [document["results"]["arith_mc"].pop(key) for key in ("acc,none", "acc_stderr,none")],
            refused("no metric 'acc' (metrics present: 'acc_norm')", "--metric"),
        ),
        "stderr inconsistent with N": (
            lambda document: _set_n(document, 150, stderr=False),
            refused("['acc_stderr,none'] is 0.0308", "over N = 150", "fits N = 200", "not computed on N items"),
        ),
        "another N in one file": (
            lambda document: _set_n(document, 100, stderr=True),
            refused("has N = 100 (n-samples effective)", "N = 200", "--n cannot"),
        ),
        "accuracy 1.5": (_accuracy(1.5, stderr=False), refused("'acc,none'] is 1.5, outside [0, 1]")),
        "accuracy not k/200": (
            _accuracy(0.2712),
            refused("0.2712 is not k/200 for any whole k", "--approximate-accuracies"),
        ),
        "no n-samples": (
            lambda document: document.pop("n-samples"),
            refused("no n-samples['arith_mc'].effective", "--n N"),
        ),
    }
    for name, (change, expect) in damaged.items():
        files, paths = _dummy(1, change)
        cases.append(Case(FAMILY, name, ("audit-accuracies", *paths, *metric), expect, files))
    files, paths = _dummy(1, lambda document: document.pop("n-samples"))
    cases.append(
        Case(
            FAMILY,
            "no n-samples, --n 200",
            ("audit-accuracies", *paths, *metric, "--n", "200", "--format", "json"),
            Read(_n_items(200)),
            files,
        )
    )
    files, paths = _dummy(1, _accuracy(0.2712))
    cases.append(
        Case(
            FAMILY,
            "accuracy not k/200, approximate",
            ("audit-accuracies", *paths, *metric, "--approximate-accuracies", "--format", "json"),
            Read(_n_items(200)),
            files,
        )
    )
    nan = _named(DUMMY)
    first = next(iter(nan))
    nan[first] = nan[first].replace(b'"acc,none": 0.27,', b'"acc,none": NaN,')
    cases.append(
        Case(FAMILY, "NaN accuracy", ("audit-accuracies", *nan, *metric), refused("NaN is not a JSON value"), nan)
    )
    samples = sorted((FIXTURES / "lm_eval" / "dummy" / "dummy-seed1").glob("samples_*.jsonl"))[0]
    given = {f"dummy-seed1/{samples.name}": b"".join(samples.read_bytes().splitlines(keepends=True)[:3]), **clean}
    cases.append(
        Case(
            FAMILY,
            "a samples file instead of a results file",
            ("audit-accuracies", *list(given)[:1], *list(clean)[1:], *metric),
            refused("per-item results, not a result file", "audit dummy-seed1 --task TASK --metric METRIC"),
            given,
        )
    )
    hashlm = _named(HASHLM)
    cases += [
        Case(
            FAMILY,
            "two filters, no --filter",
            ("audit-accuracies", *hashlm, "--task", "arith_gen", "--metric", "exact_match"),
            refused("2 filters ('strict-match', 'flexible-extract')", "--filter"),
            hashlm,
        ),
        Case(
            FAMILY,
            "group not a size-weighted mean",
            (
                "audit-accuracies",
                *(files := _changed(GROUPS, 0, _group_value(0.58))),
                "--task",
                "arith_mc_by_subject",
                "--metric",
                "acc",
            ),
            refused("is 0.58, not the size-weighted mean 0.575", "--task"),
            files,
        ),
    ]
    lighteval = _named(LIGHTEVAL)
    cases += [
        Case(
            FAMILY,
            "lighteval without --n",
            ("audit-accuracies", *lighteval),
            refused("the file has no N", "fits N = 60", "--n N"),
            lighteval,
        ),
        Case(
            FAMILY,
            "lighteval with a wrong --n",
            ("audit-accuracies", *lighteval, "--n", "59"),
            refused("over N = 59 (--n)", "fits N = 60"),
            lighteval,
        ),
        *(
            Case(
                FAMILY,
                f"lighteval stderr {stderr:g}, {how}",
                ("audit-accuracies", *(files := _changed(LIGHTEVAL, 0, _lighteval_stderr(stderr))), *more),
                refused(*fragments),
                files,
            )
            for stderr in (1e-200, 1e200)
            for how, more, fragments in (
                ("no --n", (), ("the file has no N", "fits no N from 2 to ")),
                ("--n 60", ("--n", "60"), ("over N = 60 (--n)", "fits no N from 2 to ")),
            )
        ),
        Case(
            FAMILY,
            "lighteval with --n",
            ("audit-accuracies", *lighteval, "--n", "60", "--format", "json"),
            Read(_n_items(60)),
            lighteval,
        ),
    ]
    scorers = {"a.json": _inspect_json("mockllm/model-a"), "b.json": _inspect_json("mockllm/model-b")}
    cases += [
        Case(
            FAMILY,
            "Inspect log of two scorers, no --scorer",
            ("audit-accuracies", *scorers),
            refused("2 scorers ('choice', 'other')", "--scorer"),
            scorers,
        ),
        Case(
            FAMILY,
            "Inspect log of two scorers, --scorer other",
            ("audit-accuracies", *scorers, "--scorer", "other", "--format", "json"),
            Read(_n_items(20)),
            scorers,
        ),
    ]
    helm = {
        f"{run.name}/{name}": (run / name).read_bytes()
        for run in sorted((FIXTURES / "helm" / "simple_qa").glob("run-*"))
        for name in ("stats.json", "run_spec.json")
    }
    cases += [
        Case(
            FAMILY,
            "HELM without --metric",
            ("audit-accuracies", "run-model1", "run-model2"),
            refused("20 stats (", "'quasi_exact_match'", "choose one with --metric"),
            helm,
        ),
        Case(
            FAMILY,
            "HELM accuracy 0",
            ("audit-accuracies", "run-model1", "run-model2/stats.json", "--metric", "quasi_exact_match"),
            refused("run-model2/stats.json: quasi_exact_match (test) is 0.0", "strictly between 0 and 1"),
            helm,
        ),
    ]
    inspect = {path.name: path.read_bytes() for path in [*INSPECT_EPOCHS, *INSPECT[:1]]}
    mixed = {"lm/results_a.json": DUMMY[0].read_bytes(), INSPECT[0].name: INSPECT[0].read_bytes()}
    cases += [
        Case(
            FAMILY,
            "Inspect log of two epochs",
            ("audit-accuracies", *inspect),
            refused("eval.config.epochs is 2", "--epochs"),
            inspect,
        ),
        Case(
            FAMILY,
            "lm-eval and Inspect mixed",
            ("audit-accuracies", *mixed, *metric),
            refused("is an Inspect log while", "one harness"),
            mixed,
        ),
    ]
    return cases


def _inspect_json(model: str) -> bytes:
    """Inspect's .json log (20 samples) under another model name, with a second scorer ``other`` (accuracy 0.45)."""
    log = json.loads(INSPECT_JSON.read_bytes())
    log["eval"]["model"] = model
    other = json.loads(json.dumps(log["results"]["scores"][0]))
    other["name"] = other["scorer"] = "other"
    other["metrics"]["accuracy"]["value"] = 0.45
    other["metrics"]["stderr"]["value"] = math.sqrt(0.45 * 0.55 / 19)
    log["results"]["scores"].append(other)
    return json.dumps(log).encode()


def _group_value(value: float):
    def change(document: dict) -> None:
        for part in ("results", "groups"):
            document[part]["arith_mc_by_subject"]["acc,none"] = value

    return change


def _lighteval_stderr(value: float):
    """A lighteval results file's acc_stderr set to ``value`` (its square under- or overflows a double)."""

    def change(document: dict) -> None:
        entry = next(entry for name, entry in document["results"].items() if name != "all")
        entry["acc_stderr"] = value

    return change
