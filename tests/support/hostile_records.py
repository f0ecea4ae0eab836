"""Hostile cases for JSON and JSON Lines read through declared fields (issue 28 item 6: ``--item-field`` ...).

Each is a :class:`tests.support.hostile.Case` of the held-out corpus (run by ``tests/io/test_hostile_inputs.py``).
The clean inputs are real layouts: tau-bench's runs (``historical_trajectories/<model>-<domain>.json``: a JSON list
of runs with ``task_id``, ``reward``, ``info``, ``traj``, ``trial``) rebuilt from the genuine trials in
``tests/fixtures/tau_bench/trials.csv.gz`` and split as an A/A pair (trials 0-1 against 2-3), and lm-eval's samples
files read as plain records.  Each damaged case changes one thing and must be refused in one line naming the file,
the record (pointer or line), the value and the flag.
"""

from __future__ import annotations

import functools
import gzip
import json

import numpy as np

from tests.support.hostile import FAST, FIXTURES, Case, Read, json_holds, means, refused

TAU = ("--item-field", "task_id", "--score-field", "reward", "--repeat-field", "trial")


@functools.cache
def _tau_runs() -> tuple[list[dict], list[dict]]:
    """tau-bench's run records of the genuine trials, in the genuine key order: trials 0-1 and trials 2-3."""
    lines = gzip.decompress((FIXTURES / "tau_bench" / "trials.csv.gz").read_bytes()).decode().splitlines()[1:]
    runs: tuple[list[dict], list[dict]] = ([], [])
    for line in lines:
        item, _, trial, reward = line.split(",")
        runs[int(trial) >= 2].append(
            {
                "task_id": int(item.removeprefix("airline-")),
                "reward": float(reward),
                "info": {"source": "user", "reward_info": {"reward": float(reward)}},
                "traj": [{"role": "system", "content": "stand-in"}],
                "trial": int(trial),
            }
        )
    return runs


def _tau(change=None, half: int = 0) -> bytes:
    """One half's JSON list of runs; ``change(runs)`` edits a copy of them."""
    runs = [dict(run) for run in _tau_runs()[half]]
    if change is not None:
        change(runs)
    return json.dumps(runs).encode()


def _tau_pair(change=None, wrap=None) -> dict:
    """``early.json`` (changed by ``change``, wrapped by ``wrap``) and ``late.json``."""

    def early() -> bytes:
        data = _tau(change)
        return wrap(data) if wrap else data

    return {"early.json": early, "late.json": lambda: _tau(half=1)}


def _set(position: int, key: str, value):
    def change(runs: list[dict]) -> None:
        runs[position][key] = value

    return change


def _clusters(runs: list[dict]) -> None:
    """A cluster label per run, the number 0 or 1, with run 4's written as text."""
    for run in runs:
        run["c"] = run["task_id"] % 2
    runs[4]["c"] = str(runs[4]["c"])


def _lm_eval_records() -> dict:
    """The dummy lm-eval runs' samples files, named by their model."""
    folder = FIXTURES / "lm_eval" / "dummy"
    return {
        f"{run.name}.jsonl": next(run.glob("samples_*.jsonl")).read_bytes()
        for run in sorted(folder.iterdir())
        if run.is_dir()
    }


def _tau_means() -> np.ndarray:
    early, late = _tau_runs()
    sums: dict[tuple[int, int], float] = {}
    for half, runs in enumerate((early, late)):
        for run in runs:
            sums[(run["task_id"], half)] = sums.get((run["task_id"], half), 0.0) + run["reward"] / 2
    tasks = sorted({task for task, _ in sums})
    return np.array([[sums[(task, half)] for half in (0, 1)] for task in tasks])


def _keyed_reports() -> tuple[dict, np.ndarray]:
    """Two SWE-bench-like per-instance reports ({instance_id: {"resolved": bool}}) and their 0/1 scores."""
    scores = np.array([[(n + k) % 3 == 0 for k in range(2)] for n in range(12)], dtype=float)
    files = {
        f"agent-{'ab'[k]}.json": json.dumps(
            {f"django__django-{11000 + n}": {"patch_exists": True, "resolved": bool(scores[n, k])} for n in range(12)}
        ).encode()
        for k in range(2)
    }
    return files, scores


def record_cases() -> list[Case]:
    family = "declared-field records"
    audit = ("audit", "early.json", "late.json", *TAU, *FAST, "--format", "json")
    lm_files = _lm_eval_records()
    keyed = _keyed_reports()
    lm = ("audit", *lm_files, "--item-field", "doc_id", "--score-field", "acc", *FAST)

    def case(name: str, expect, files=None, argv=audit) -> Case:
        return Case(family, name, argv, expect, files if files is not None else _tau_pair())

    return [
        case("tau-bench runs, trials as generations", Read(means(_tau_means(), ["early", "late"]))),
        case(
            "lm-eval samples as records",
            Read(json_holds(lambda report: report["data"]["n_items"] == 200, "n_items is not 200")),
            lm_files,
            (*lm, "--format", "json"),
        ),
        case(
            "object keyed by instance id (--item-field @key)",
            Read(means(keyed[1], ["agent-a", "agent-b"])),
            keyed[0],
            ("audit", *keyed[0], "--item-field", "@key", "--score-field", "resolved", *FAST, "--format", "json"),
        ),
        case(
            "--records to a missing key",
            refused("early.json: no --records 'results'"),
            argv=(*audit, "--records", "results"),
        ),
        case(
            "--records to a number",
            refused("early.json: --records '/n' is a JSON number (3)"),
            _tau_pair(wrap=lambda data: b'{"n": 3, "runs": ' + data + b"}"),
            (*audit, "--records", "/n"),
        ),
        case(
            "top level an object",
            refused("early.json: the top level is a JSON object, not a list of records"),
            _tau_pair(wrap=lambda data: b'{"runs": ' + data + b"}"),
        ),
        case(
            "record 7 a list",
            refused("early.json, record /7: a JSON list where a record"),
            _tau_pair(lambda runs: runs.__setitem__(7, [1, 2])),
        ),
        case(
            "record 7 without task_id",
            refused("early.json, record /7: no field --item-field 'task_id'"),
            _tau_pair(lambda runs: runs[7].pop("task_id")),
        ),
        case(
            "reward '1' as text",
            refused("early.json, record /4: --score-field 'reward' is '1' (text)"),
            _tau_pair(_set(4, "reward", "1")),
        ),
        case(
            "reward 1.5",
            refused("early.json, record /4: --score-field 'reward' is 1.5, outside [0, 1]"),
            _tau_pair(_set(4, "reward", 1.5)),
        ),
        case(
            "reward NaN in JSON Lines",
            refused("early.jsonl, line 4: NaN is not a JSON value"),
            {
                "early.jsonl": lambda: (
                    "".join(json.dumps(run) + "\n" for run in _tau_runs()[0])
                    .replace('"reward": 1.0', '"reward": NaN', 1)
                    .encode()
                ),
                "late.json": lambda: _tau(half=1),
            },
            ("audit", "early.jsonl", "late.json", *TAU, *FAST, "--format", "json"),
        ),
        case(
            "reward null",
            refused("early.json, record /4: --score-field 'reward' is null", "--on-missing intersect"),
            _tau_pair(_set(4, "reward", None)),
        ),
        case(
            "trial given twice",
            refused("early.json, record /1 (model 'early', item '0'): trial '0' of this item and model is also at"),
            _tau_pair(_set(1, "trial", 0)),
        ),
        case(
            "--repeat-field forgotten",
            refused("model 'early' has a second record for item '0'", "--repeat-field", "two filters", "--filter"),
            argv=("audit", "early.json", "late.json", *TAU[:4], *FAST, "--format", "json"),
        ),
        case(
            "task_id 1 and '1'",
            refused("early.json, record /4: --item-field 'task_id' is '1' but early.json, record /2 has 1"),
            _tau_pair(_set(4, "task_id", "1")),
        ),
        case("trial 1 and '1'", refused("'1'", "are the same number"), _tau_pair(_set(3, "trial", "1"))),
        case(
            "cluster 1 and '1'",
            refused("early.json, record /4: --cluster-field 'c' is '0' but early.json, record /0 has 0", "one way"),
            _tau_pair(_clusters),
            (*audit, "--cluster-field", "c"),
        ),
        case(
            "two files with one stem",
            refused("a/early.json and b/early.json are both named 'early'"),
            {"a/early.json": lambda: _tau(), "b/early.json": lambda: _tau(half=1)},
            ("audit", "a/early.json", "b/early.json", *TAU, *FAST, "--format", "json"),
        ),
        case("empty list", refused("early.json: the top level is empty"), {"early.json": b"[]", "late.json": b"[]"}),
        case(
            "model field null",
            refused("early.json, record /0: --model-field 'agent' is null"),
            _tau_pair(_set(0, "agent", None)),
            (*audit, "--model-field", "agent"),
        ),
        case(
            "a nested field written with a dot",
            refused("no field --cluster-field 'info.source'", "/info/source"),
            argv=(*audit, "--cluster-field", "info.source"),
        ),
        case(
            "a malformed JSON Pointer",
            refused("--score-field '/reward~2'", "~0"),
            argv=("audit", "early.json", "late.json", "--item-field", "task_id", "--score-field", "/reward~2", *FAST),
        ),
        case(
            "--records with JSON Lines",
            refused("--records 'x' applies to a .json document"),
            lm_files,
            (*lm, "--records", "x"),
        ),
    ]
