"""Damaged variants of the genuine HELM run folders (``tests/fixtures/helm/simple_qa``), each with its ending.

Each :class:`Damage` edits one or two files of a copy of the suite folder (``run-model1``, ``run-model2``: HELM's
``simple_short_answer_qa`` on 50 instances) and says how the read must end: refused with one line holding every
fragment (the file, the instance, the value, the flag), or read with a number of items.  ``tests/io/test_helm.py``
runs them through :func:`~llm_power_verified.io.helm.read_helm`; :func:`helm_cases` turns them into cases of the
held-out corpus (``tests/support/hostile.py``), run through the command line.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.hostile import FAST, Case, Content, Read, json_holds, refused

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "helm" / "simple_qa"
RUNS = ("run-model1", "run-model2")
METRIC = "quasi_exact_match"
STATS1, STATS2 = "run-model1/per_instance_stats.json", "run-model2/per_instance_stats.json"
SPEC1, SPEC2 = "run-model1/run_spec.json", "run-model2/run_spec.json"
Edit = Callable[[bytes], bytes] | None  # None: the file is deleted
FLAGS = {
    "metric": "--metric",
    "split": "--split",
    "perturbation": "--perturbation",
    "run_spec": "--run-spec",
    "epochs": "--epochs",
    "on_missing": "--on-missing",
}


@dataclass(frozen=True)
class Damage:
    """One damaged variant: the edits (path in the suite -> edit), how reading must end, and the options."""

    name: str
    edits: dict[str, Edit]
    fragments: tuple[str, ...] = ()  # a refusal's line holds each; empty: the read succeeds
    items: int | None = None  # a read: its number of items
    options: dict = field(default_factory=lambda: {"metric": METRIC})
    paths: tuple[str, ...] = RUNS
    cli_fragments: tuple[str, ...] | None = None  # where the command line refuses before the reader (detection)

    def argv(self) -> tuple[str, ...]:
        flags = [part for key, value in self.options.items() if value is not None for part in (FLAGS[key], value)]
        return ("audit", *self.paths, *flags, *FAST, "--format", "json")


@functools.cache
def original(relative: str) -> bytes:
    return (SUITE / relative).read_bytes()


def files(edits: dict[str, Edit]) -> dict[str, bytes]:
    """The suite's files with ``edits`` applied (a file whose edit is None is left out; a new path's edit gets b"")."""
    result = {}
    for path in sorted(SUITE.rglob("*")):
        relative = path.relative_to(SUITE).as_posix()
        if path.is_file() and not (relative in edits and edits[relative] is None):
            result[relative] = edits[relative](original(relative)) if relative in edits else original(relative)
    for relative, edit in edits.items():
        if relative not in result and edit is not None and not (SUITE / relative).exists():
            result[relative] = edit(b"")
    return result


def replaced(change: Callable[[object], object]) -> Callable[[bytes], bytes]:
    """An edit of the parsed JSON: ``change`` returns the new document, written back as HELM does (indent 2)."""

    def edit(data: bytes) -> bytes:
        return json.dumps(change(json.loads(data)), indent=2).encode()

    return edit


def edited(change: Callable[[object], object]) -> Callable[[bytes], bytes]:
    """An edit of the parsed JSON in place (what ``change`` returns is ignored)."""

    def in_place(document: object) -> object:
        change(document)
        return document

    return replaced(in_place)


def texted(old: str, new: str) -> Callable[[bytes], bytes]:
    """An edit of the text: the first ``old`` becomes ``new``."""

    def edit(data: bytes) -> bytes:
        text = data.decode()
        if old not in text:
            raise ValueError(f"{old!r} is not in the file")
        return text.replace(old, new, 1).encode()

    return edit


def stat_of(document: list, instance: str, *, perturbed: bool = False, metric: str = METRIC) -> dict:
    """The stat ``metric`` of ``instance`` (trial 0), unperturbed or perturbed."""
    for entry in document:
        if entry["instance_id"] == instance and ("perturbation" in entry) == perturbed:
            return next(stat for stat in entry["stats"] if stat["name"]["name"] == metric)
    raise KeyError(instance)


def set_stat(instance: str, **values) -> Callable[[bytes], bytes]:
    return edited(lambda document: stat_of(document, instance).update(values))


def extra_trial(skip: str | None = None) -> Callable[[bytes], bytes]:
    """A second train trial (index 1) of every instance but ``skip``, with the trial-0 values."""

    def change(document: list) -> list:
        copies = [{**entry, "train_trial_index": 1} for entry in document if entry["instance_id"] != skip]
        return document + json.loads(json.dumps(copies))

    return replaced(change)


def copy_of(relative: str, change: Callable[[object], object] = lambda document: document) -> Edit:
    """The file ``relative`` of the suite, parsed, changed and written again (indent 2), whatever the file edited."""
    return lambda _data: replaced(change)(original(relative))


def _respaced(document: list) -> None:
    """Instance 'id60' written 'id60 ' (a blank after it): another id in a JSON file, not the same one padded."""
    for entry in document:
        if entry["instance_id"] == "id60":
            entry["instance_id"] = "id60 "


def _entry(document: list, instance: str) -> dict:
    return next(entry for entry in document if entry["instance_id"] == instance and "perturbation" not in entry)


def _to_valid(document: list) -> None:
    """The first 10 unperturbed instances' stat moved to split 'valid'."""
    for entry in [entry for entry in document if "perturbation" not in entry][:10]:
        next(stat for stat in entry["stats"] if stat["name"]["name"] == METRIC)["name"]["split"] = "valid"


def damages() -> list[Damage]:
    two_splits = {STATS1: edited(_to_valid)}
    return [
        Damage(
            "no per_instance_stats.json",
            {STATS2: None},
            (STATS2, "no such file"),
            cli_fragments=("run-model2", "HELM run"),
        ),
        Damage("no run_spec.json", {SPEC1: None}, (SPEC1, "no such file"), cli_fragments=("run-model1", "HELM run")),
        Damage("neither file", {SPEC1: None, STATS1: None}, ("run-model1", "neither a HELM run folder")),
        Damage("cut short", {STATS1: lambda data: data[: len(data) // 2]}, (STATS1, "not valid JSON", "line")),
        Damage(
            "repeated key",
            {STATS2: texted('"count": 1,', '"count": 1, "count": 1,')},
            (STATS2, "'count' appears twice"),
        ),
        Damage("NaN", {STATS1: texted('"mean": 0.0', '"mean": NaN')}, (STATS1, "NaN")),
        Damage("count 2", {STATS1: set_stat("id41", count=2, sum=2)}, (STATS1, "'id41'", "count 2", "--metric")),
        Damage("count 0", {STATS1: set_stat("id41", count=0, sum=0)}, (STATS1, "'id41'", "count 0", "--metric")),
        Damage(
            "value 1.5",
            {STATS1: set_stat("id41", sum=1.5, mean=1.5)},
            (STATS1, "'id41'", METRIC, "1.5", "[0, 1]", "--metric"),
        ),
        Damage("value negative", {STATS2: set_stat("id60", sum=-1, mean=-1.0)}, (STATS2, "'id60'", "-1", "[0, 1]")),
        Damage("mean not sum", {STATS1: set_stat("id41", mean=0.0)}, (STATS1, "'id41'", "mean 0.0 but sum 1")),
        Damage("mean true", {STATS1: set_stat("id41", mean=True)}, (STATS1, "'id41'", "mean True")),
        Damage("mean text", {STATS1: set_stat("id41", mean="1")}, (STATS1, "'id41'", "mean '1'")),
        Damage(
            "no instance_id",
            {STATS2: edited(lambda document: document[3].pop("instance_id"))},
            (STATS2 + "[3]", "instance_id is None"),
        ),
        Damage(
            "numeric instance_id",
            {STATS2: edited(lambda document: document[3].update(instance_id=74))},
            (STATS2 + "[3]", "instance_id is 74", "text"),
        ),
        Damage(
            "train trial -1",
            {STATS2: edited(lambda document: document[2].update(train_trial_index=-1))},
            (STATS2 + "[2]", "'id41'", "train_trial_index -1"),
        ),
        Damage(
            "train trial as text",
            {STATS2: edited(lambda document: document[2].update(train_trial_index="0"))},
            (STATS2 + "[2]", "train_trial_index '0'"),
        ),
        Damage(
            "stats not a list",
            {STATS2: edited(lambda document: document[1].update(stats={}))},
            (STATS2 + "[1]", "'id38'", "stats {}"),
        ),
        Damage("an object, not a list", {STATS2: replaced(lambda document: {"stats": document})}, (STATS2, "dict")),
        Damage(
            "duplicate instance",
            {STATS2: replaced(lambda document: [*document, _entry(document, "id56")])},
            (STATS2 + "[50]", "'id56'", "twice", "[4]"),
        ),
        Damage(
            "instance missing in one run",
            {STATS2: replaced(lambda document: [e for e in document if e["instance_id"] != "id74"])},
            ("id74", "--on-missing"),
        ),
        Damage(
            "instance missing, intersect",
            {STATS2: replaced(lambda document: [e for e in document if e["instance_id"] != "id74"])},
            items=49,
            options={"metric": METRIC, "on_missing": "intersect"},
        ),
        Damage(
            "unknown metric",
            {},
            (STATS1, "no stat 'quasi_exact'", "quasi_exact_match", "--metric"),
            options={"metric": "quasi_exact"},
        ),
        Damage("no metric", {}, ("per_instance_stats.json", "exact_match", "--metric"), options={}),
        Damage("two splits", two_splits, (STATS1, "'test', 'valid'", "--split")),
        Damage("two splits, --split test", two_splits, ("--on-missing",), options={"metric": METRIC, "split": "test"}),
        Damage(
            "two splits, --split test, intersect",
            two_splits,
            items=40,
            options={"metric": METRIC, "split": "test", "on_missing": "intersect"},
        ),
        Damage(
            "unknown split",
            {},
            (STATS1, "no split 'valid'", "'test'", "--split"),
            options={"metric": METRIC, "split": "valid"},
        ),
        Damage(
            "unknown perturbation",
            {},
            (STATS1, "'typos'", "'mild_mix'", "--perturbation"),
            options={"metric": METRIC, "perturbation": "typos"},
        ),
        Damage(
            "perturbation one run lacks",
            {},
            (STATS2, "'mild_mix'", "only unperturbed", "--perturbation"),
            options={"metric": METRIC, "perturbation": "mild_mix"},
        ),
        Damage(
            "a train trial missing for one instance",
            {STATS1: extra_trial(skip="id38")},
            (STATS1, "'id38'", "no train trial 1"),
        ),
        Damage(
            "two train trials, --epochs error",
            {STATS1: extra_trial()},
            (STATS1, "2 train trials", "--epochs"),
            options={"metric": METRIC, "epochs": "error"},
        ),
        Damage(
            "two runs of one model",
            {SPEC2: edited(lambda spec: spec["adapter_spec"].update(model="simple/model1"))},
            ("run-model1", "run-model2", "'simple/model1'"),
        ),
        Damage(
            "run_spec.json without model",
            {SPEC2: edited(lambda spec: spec["adapter_spec"].pop("model"))},
            (SPEC2, "adapter_spec.model is None"),
        ),
        Damage(
            "runs of different scenarios",
            {SPEC2: edited(lambda spec: spec["scenario_spec"].update(class_name="helm.Other"))},
            ("run-model1", "run-model2", "scenario"),
        ),
        Damage(
            "same run under two model names",
            {STATS2: copy_of(STATS1)},  # written again by json.dumps: the entries alike, the bytes need not be
            ("run-model1", "run-model2", "same per_instance_stats.json", "'simple/model1'", "'simple/model2'"),
        ),
        Damage(
            "suite, a run without run_spec.json",
            {"run-model3/per_instance_stats.json": copy_of(STATS2)},
            ("run-model3/run_spec.json", "no such file", "only per_instance_stats.json", "interrupted"),
            paths=(".",),
        ),
        Damage(
            "suite, a run without per_instance_stats.json",
            {"run-model3/run_spec.json": copy_of(SPEC2, lambda spec: {**spec, "name": "other:model=m3"})},
            ("run-model3/per_instance_stats.json", "no such file", "only run_spec.json"),
            paths=(".",),
        ),
        Damage(
            "suite, a half run --run-spec leaves out",
            {"run-model3/per_instance_stats.json": copy_of(STATS2)},
            items=50,
            options={"metric": METRIC, "run_spec": "run-model[12]"},
            paths=(".",),
        ),
        Damage(
            "run_spec.json without name, --run-spec",
            {SPEC2: edited(lambda spec: spec.pop("name"))},
            (SPEC2, "no 'name'", "--run-spec 'simple'"),
            options={"metric": METRIC, "run_spec": "simple"},
            paths=(".",),
        ),
        Damage("run_spec.json without name, run folders", {SPEC2: edited(lambda spec: spec.pop("name"))}, items=50),
        Damage("run name a number", {SPEC2: edited(lambda spec: spec.update(name=5))}, (SPEC2, "name is 5", "text")),
        Damage("instance id with a blank after it", {STATS2: edited(_respaced)}, ("'id60'", "lacks 1", "--on-missing")),
        Damage(
            "instance id with a blank after it, intersect",
            {STATS2: edited(_respaced)},
            items=49,
            options={"metric": METRIC, "on_missing": "intersect"},
        ),
        Damage(
            "suite, no run matches",
            {},
            ("simple_qa", "--run-spec", "'mmlu'", "simple_short_answer_qa:model=simple_model1"),
            options={"metric": METRIC, "run_spec": "mmlu"},
            paths=(".",),
        ),
    ]


def helm_cases() -> list[Case]:
    """The damaged variants as cases of the held-out corpus, run through the command line in the suite's copy."""
    family = "HELM run folders"
    cases = []
    for damage in damages():
        if damage.fragments:
            fragments = damage.cli_fragments or damage.fragments
            expect = refused(*[fragment for fragment in fragments if fragment != "simple_qa"])
        else:
            count = damage.items
            expect = Read(json_holds(lambda report, n=count: report["data"]["n_items"] == n, f"n_items is not {count}"))
        content: dict[str, Content] = dict(files(damage.edits))
        cases.append(Case(family, damage.name, damage.argv(), expect, content))
    return cases
