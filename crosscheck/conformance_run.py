"""The conformance run: the real power calculators installed here, each checked against symbolic truth.

Run: python -m crosscheck.conformance_run [--tools NAMES] [--check]

Every function of :mod:`crosscheck.tool_adapters_python`, :mod:`crosscheck.tool_adapters_r` and
:mod:`crosscheck.tool_adapters_peers` is given to :func:`llm_power_verified.testing.check_calculator` with the
convention its documentation claims.  The result, the tool's version (read at run time) and the exact call and value
at every grid point are written to ``crosscheck/data/conformance.json``, and the tables of
``docs/source/reference/calculator-conformance.rst`` between its ``calculator-conformance`` markers are rewritten
from that file.  A tool that is not installed is recorded as skipped, with the reason.

``--tools`` keeps the named families or keys (comma-separated: ``statsmodels,scipy,r-stats,r-pwr,pingouin,
documented,errorbars,...``); the other stored records are kept as they are.  Without ``--tools`` every function
runs except those marked ``on_request`` (whose calls can outgrow memory before their time limit stops them; name
them to rerun them).  ``--check`` reruns and compares with
the stored file instead of writing (exit 1 with one line per difference): the conventions, verdicts, failure kinds
and overflow thresholds must be equal, the errors and the tools' values equal within :data:`RELATIVE` (sample sizes
within :data:`RELATIVE_ROOT`: a root finder's last iterate moves with the last bit of its function).  Time-outs
depend on the machine and are not compared.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy
import scipy

import llm_power_verified
from crosscheck.conformance_docs import SLOW_TIMEOUT, TIME_LIMITED_TOTAL, TIMEOUT_MESSAGE, render_rst, write_docs
from crosscheck.records import write_atomically
from crosscheck.tool_adapters import CallLog, ToolFunction, ToolRunner, normalized
from crosscheck.tool_adapters_peers import PEERS
from crosscheck.tool_adapters_python import PYTHON_TOOLS
from crosscheck.tool_adapters_r import R_TOOLS
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.testing.conformance import check_calculator
from llm_power_verified.testing.quantities import grid_points

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "crosscheck" / "data" / "conformance.json"
SEED = 0
MAX_EXAMPLES = 60
#: Relative tolerance of a regenerated p-value, power or error: the same code on another CPU or BLAS may differ in
#: the last bits of a special function (a few ulp), never by 1e-9.
RELATIVE = 1e-9
#: Relative tolerance of a regenerated sample size found by a root finder (brentq, uniroot): its stopping iterate
#: can move within the finder's own tolerance when the function's last bit changes.
RELATIVE_ROOT = 1e-6
ALL = (*PYTHON_TOOLS, *R_TOOLS, *PEERS)

__all__ = ["ALL", "build", "differences", "load", "main", "render_rst", "run_tool", "select"]


def select(names: str | None) -> tuple[ToolFunction, ...]:
    """The tool functions whose family or key is in the comma-separated ``names`` (all when None)."""
    if not names:
        return tuple(entry for entry in ALL if not entry.on_request)
    wanted = {name.strip() for name in names.split(",") if name.strip()}
    chosen = tuple(entry for entry in ALL if entry.family in wanted or entry.key in wanted)
    unknown = wanted - {entry.family for entry in chosen} - {entry.key for entry in chosen}
    if unknown:
        families = sorted({entry.family for entry in ALL})
        raise SystemExit(f"unknown tools {sorted(unknown)}; families: {', '.join(families)} (or a key)")
    return chosen


def _describe(entry: ToolFunction) -> dict[str, Any]:
    return {
        "key": entry.key,
        "family": entry.family,
        "tool": entry.tool,
        "function": entry.function,
        "quantity": entry.quantity,
        "language": entry.language,
        "call_template": entry.template,
        "setup": entry.setup,
        "claim": entry.claim,
        "claim_source": entry.claim_source,
        "tolerance": entry.tolerance,
        "tolerance_reason": entry.tolerance_reason,
        "timeout": entry.timeout,
    }


def _conformance(result: Any) -> dict[str, Any]:
    data = result.to_dict()
    kept = {
        name: data[name]
        for name in (
            "conforms",
            "convention",
            "closest",
            "claimed_convention",
            "reference",
            "max_relative_error",
            "region",
            "error_against_claim",
            "error_against_correct",
            "conforms_to_claim",
            "tolerance",
            "failures",
            "candidate_errors",
            "calls",
            "summary",
        )
    }
    kept["correct_region"] = data["correct_region"]
    return kept


def _grid_calls(entry: ToolFunction, log: CallLog) -> list[dict[str, object]]:
    """The logged calls at the quantity's grid points (each once, in grid order)."""
    by_arguments = {tuple(sorted(item["arguments"].items())): item for item in log.entries}  # type: ignore[union-attr]
    calls = []
    for point in grid_points(entry.quantity, entry.grid):
        found = by_arguments.get(tuple(sorted(normalized(point).items())))
        if found is not None:
            calls.append(found)
    return calls


def run_tool(entry: ToolFunction, runner: ToolRunner) -> dict[str, Any]:
    """One tool function's record: described, versioned, checked, with its calls at the grid points."""
    record = _describe(entry)
    reason = runner.unavailable(entry)
    if reason is not None:
        return {**record, "status": "skipped", "reason": reason}
    log = CallLog()
    started = time.perf_counter()
    result = check_calculator(
        runner.callable(entry, log),
        entry.quantity,
        claims=entry.claim,
        tolerance=entry.tolerance,
        seed=SEED,
        max_examples=MAX_EXAMPLES,
        grid=entry.grid,
        timeout=entry.timeout,
        name=entry.key,
    )
    status = "documented" if entry.language == "documented" else "run"
    return {
        **record,
        "status": status,
        "version": runner.version(entry),
        "seconds": round(time.perf_counter() - started, 2),
        "conformance": _conformance(result),
        "calls": _grid_calls(entry, log),
    }


def environment(runner: ToolRunner) -> dict[str, str]:
    """Python, the package, NumPy/SciPy and (when R runs) R and pwr versions."""
    found = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "llm_power_verified": llm_power_verified.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }
    try:
        found |= runner.session().versions()
    except Exception as error:  # R missing or broken: say so in the record instead of failing the run
        found["R"] = f"not available: {error}"
    return found


def build(entries: tuple[ToolFunction, ...] = ALL, progress: bool = False) -> dict[str, Any]:
    """Run every entry; the document written to ``conformance.json`` (without its date)."""
    started = time.perf_counter()
    records = []
    with ToolRunner() as runner:
        for entry in entries:
            record = run_tool(entry, runner)
            records.append(record)
            if progress:
                verdict = record.get("conformance", {}).get("convention", record.get("reason", ""))
                print(f"{entry.key}: {record['status']} {record.get('seconds', '')} s, {verdict}", flush=True)
        found = environment(runner)
    return plain(
        {
            "generator": "python -m crosscheck.conformance_run",
            "environment": found,
            "settings": {"seed": SEED, "max_examples": MAX_EXAMPLES},
            "seconds": round(time.perf_counter() - started, 1),
            "records": records,
        }
    )


def load(path: Path = STORED) -> dict[str, Any]:
    """The stored run."""
    return parse_json(path.read_bytes(), str(path.relative_to(ROOT)))


def _close(new: Any, old: Any, relative: float) -> bool:
    if isinstance(new, (int, float)) and isinstance(old, (int, float)) and not isinstance(new, bool):
        return new == old or abs(new - old) <= relative * max(abs(new), abs(old))
    return new == old


def _timeout(item: dict[str, Any] | None) -> bool:
    return item is not None and "_Timeout" in str(
        item.get("error", "")
    )  # the exception check_calculator's alarm raises


def _compare_calls(key: str, relative: float, fresh: list[dict[str, Any]], stored: list[dict[str, Any]]) -> list[str]:
    found = []
    by_call = {item["call"]: item for item in stored}
    for item in fresh:
        old = by_call.get(item["call"])
        if _timeout(item) or _timeout(old):
            continue
        if old is None:
            found.append(f"{key}: call {item['call']} is not stored")
        elif "error" in item or "error" in old:
            if str(item.get("error", "")).split(":")[0] != str(old.get("error", "")).split(":")[0]:
                found.append(f"{key}: {item['call']} gave {item.get('error', item['value'])}, stored {old}")
        elif not _close(item["value"], old["value"], relative):
            found.append(f"{key}: {item['call']} = {item['value']!r}, stored {old['value']!r} (relative {relative:g})")
    return found


def timed_out(failure: dict[str, Any]) -> bool:
    """Whether a failure is the time limit (its threshold depends on the machine's speed)."""
    return failure["kind"] == "timeout" or TIMEOUT_MESSAGE in str(failure.get("message", ""))


def _failure_signature(record: dict[str, Any]) -> list[tuple[str, Any]]:
    """The failures' kinds and thresholds that do not depend on the machine's speed."""
    slow = record["timeout"] <= SLOW_TIMEOUT
    return sorted(
        (failure["kind"], failure.get("threshold"))
        for failure in record["conformance"].get("failures", [])
        if not timed_out(failure) and not (slow and (failure.get("threshold") or 0) > TIME_LIMITED_TOTAL)
    )


def differences(fresh: dict[str, Any], stored: dict[str, Any]) -> list[str]:
    """What a rerun changed beyond the stated tolerances, one line each ([] when the stored run is reproduced)."""
    found = []
    stored_records = {record["key"]: record for record in stored["records"]}
    for record in fresh["records"]:
        key, old = record["key"], stored_records.get(record["key"])
        if old is None:
            found.append(f"{key}: not in the stored file")
            continue
        if record["status"] == "skipped":
            continue  # not installed here: main() lists it, nothing to compare
        if record["status"] != old["status"]:
            found.append(f"{key}: {record['status']}, stored {old['status']} ({old.get('reason', '')})")
            continue
        if record["version"] != old["version"]:
            found.append(f"{key}: version {record['version']}, stored {old['version']} (compare at the same version)")
            continue
        new_result, old_result = record["conformance"], old["conformance"]
        for name in ("convention", "conforms", "conforms_to_claim", "closest"):
            if new_result[name] != old_result[name]:
                found.append(f"{key}: {name} {new_result[name]!r}, stored {old_result[name]!r}")
        for name in ("max_relative_error", "error_against_correct", "error_against_claim"):
            if not _close(new_result[name], old_result[name], RELATIVE_ROOT):
                found.append(f"{key}: {name} {new_result[name]!r}, stored {old_result[name]!r}")
        if _failure_signature(record) != _failure_signature(old):
            found.append(f"{key}: failures {_failure_signature(record)}, stored {_failure_signature(old)}")
        relative = RELATIVE_ROOT if record["quantity"].startswith("required_n") else RELATIVE
        found += _compare_calls(key, relative, record["calls"], old["calls"])
    return found


def plain(value: Any) -> Any:
    """``value`` with NaN and infinities as the strings "nan", "inf", "-inf" (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def write(run: dict[str, Any], path: Path = STORED) -> None:
    """Store the run (merged over the stored records of tools not rerun) and rewrite the docs' tables."""
    if path.exists() and len(run["records"]) < len(ALL):
        kept = {record["key"]: record for record in load(path)["records"]}
        kept |= {record["key"]: record for record in run["records"]}
        # "seconds" stays the time of this (partial) run; each record keeps its own.
        run = {**run, "records": [kept[entry.key] for entry in ALL if entry.key in kept]}
    stored = plain({**run, "date": datetime.date.today().isoformat()})
    write_atomically(path, json.dumps(stored, indent=1, allow_nan=False) + "\n")
    write_docs(stored)


def main(argv: list[str] | None = None) -> None:
    """Run the conformance run; store it, or with --check compare it with the stored file."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tools", help="comma-separated families or keys (default: all)")
    parser.add_argument("--check", action="store_true", help="compare with the stored run instead of writing")
    arguments = parser.parse_args(argv)
    run = build(select(arguments.tools), progress=True)
    print(f"ran {len(run['records'])} tool functions in {run['seconds']} s")
    for record in run["records"]:
        if record["status"] == "skipped":
            print(f"not run here: {record['key']}: {record['reason']}")
    if arguments.check:
        found = differences(run, load())
        print("\n".join(found) or "the stored conformance run is reproduced")
        sys.exit(1 if found else 0)
    write(run)


if __name__ == "__main__":
    main()
