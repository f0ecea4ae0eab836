"""The stored conformance run of real calculators (crosscheck/data/conformance.json) and its docs tables.

The docs tables must be the rendering of the stored file; every stored value must carry the tool, its version and the
exact call that produced it; rerunning those calls must give the stored values: statsmodels and SciPy always, R's
stats and pwr when R and pwr are installed (CI installs them), each PyPI package when it is installed at the recorded
version.  The whole run (check_calculator on every tool, a few minutes) is marked slow.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import math
import warnings

import pytest

from crosscheck import conformance_docs, conformance_run
from crosscheck.r_session import RError, RSession
from crosscheck.r_tools import RUnavailable
from crosscheck.tool_adapters import ToolRunner, as_number
from crosscheck.tool_adapters_peers import INSTALL, PEER_VERSIONS

STORED = conformance_run.load()
BY_KEY = {entry.key: entry for entry in conformance_run.ALL}
RAN = [record for record in STORED["records"] if record["status"] in ("run", "documented")]

# A regenerated value must equal the stored one within 1e-9 relative: the same code on another CPU can differ in the
# last bits of a special function (a few ulp); sample sizes found by a root finder within 1e-6 relative (its stopping
# iterate moves within the finder's own tolerance when the function's last bit changes).
RELATIVE, RELATIVE_ROOT = conformance_run.RELATIVE, conformance_run.RELATIVE_ROOT
# The PyPI packages' exact McNemar sums math.comb terms in pure Python: beyond a few thousand discordant pairs one call
# takes seconds to hours (the run's time limit records those as time-outs).  The default test reruns their calls up to
# this total, which covers the overflow region at 1,024 and 1,025.
PEER_TOTAL_LIMIT = 1100


def _records(*families: str) -> list[dict]:
    return [record for record in RAN if record["family"] in families]


def _rerun(record: dict, runner: ToolRunner, limit: float = math.inf) -> list[str]:
    """Rerun a record's stored calls; the differences beyond the tolerance (none when reproduced)."""
    entry = BY_KEY[record["key"]]
    run = runner.callable(entry)
    relative = RELATIVE_ROOT if entry.quantity.startswith("required_n") else RELATIVE
    problems = []
    for item in record["calls"]:
        arguments = item["arguments"]
        if arguments.get("b", 0) + arguments.get("c", 0) > limit or "_Timeout" in str(item.get("error", "")):
            continue
        assert entry.call_text(arguments) == item["call"], "the template no longer writes the stored call"
        try:
            # The tool's own warnings (statsmodels' division by zero at b = c = 0) are part of what it does, recorded
            # as check_calculator records them when the stored values were made, not raised.
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                value = conformance_run.plain(as_number(run(**arguments)))
        except Exception as error:  # a stored error must recur as the same type
            if str(item.get("error", "")).split(":")[0] != type(error).__name__:
                problems.append(f"{item['call']}: {type(error).__name__}, stored {item}")
            continue
        stored = item.get("value")
        if isinstance(value, str) or isinstance(stored, str) or stored is None:
            if value != stored:
                problems.append(f"{item['call']}: {value!r}, stored {stored!r}")
        elif abs(value - stored) > relative * max(abs(value), abs(stored)):
            problems.append(f"{item['call']}: {value!r}, stored {stored!r}")
    return problems


def test_the_docs_tables_are_the_rendering_of_the_stored_run():
    page = conformance_docs.DOCS.read_text(encoding="utf-8")
    assert conformance_docs.docs_section(page) == conformance_docs.render_rst(STORED)


def test_every_stored_value_carries_its_tool_version_and_call():
    assert {record["key"] for record in STORED["records"]} <= set(BY_KEY)
    for record in STORED["records"]:
        assert record["tool"] and record["function"] and record["call_template"]
        if record["status"] == "skipped":
            assert record["reason"]
            continue
        assert record["version"] and record["conformance"]["calls"] > 0
        assert record["calls"], f"{record['key']} stores no calls"
        for item in record["calls"]:
            assert item["call"] == BY_KEY[record["key"]].call_text(item["arguments"])
            assert "value" in item and (item["value"] is not None or item.get("error"))


def test_the_done_when_tools_are_in_the_stored_run():
    families = {record["family"] for record in RAN}
    assert {"statsmodels", "r-stats", "r-pwr"} <= families
    assert len(families & set(PEER_VERSIONS)) >= 2, families


@pytest.mark.parametrize("record", _records("statsmodels", "scipy", "documented"), ids=lambda record: record["key"])
def test_statsmodels_scipy_and_the_documented_formulas_reproduce_their_stored_values(record):
    with ToolRunner() as runner:
        installed = runner.version(BY_KEY[record["key"]])
        if installed != record["version"]:
            pytest.skip(f"{record['tool']} {installed} is installed; the record is of {record['version']}")
        assert _rerun(record, runner) == []


@pytest.fixture(scope="module")
def r_runner():
    with ToolRunner() as runner:
        try:
            runner.session()
        except RUnavailable as error:
            pytest.skip(f"R tools not rerun: {error}")
        yield runner


@pytest.mark.parametrize("record", _records("r-stats", "r-pwr"), ids=lambda record: record["key"])
def test_r_stats_and_pwr_reproduce_their_stored_values(record, r_runner):
    if r_runner.version(BY_KEY[record["key"]]) != record["version"]:
        pytest.skip(f"stored with {record['version']}, installed {r_runner.version(BY_KEY[record['key']])}")
    assert _rerun(record, r_runner) == []


@pytest.mark.parametrize("record", _records("pingouin", *sorted(PEER_VERSIONS)), ids=lambda record: record["key"])
def test_pingouin_and_the_pypi_packages_reproduce_their_stored_values_when_installed(record):
    try:
        installed = importlib.metadata.version(BY_KEY[record["key"]].distribution)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{record['family']} is not installed: {INSTALL}")
    if installed != record["version"]:
        pytest.skip(f"{record['family']} {installed} is installed; the record is of {record['version']}")
    with ToolRunner() as runner:
        assert _rerun(record, runner, limit=PEER_TOTAL_LIMIT) == []


def test_the_check_reports_a_changed_value_and_passes_the_stored_run():
    assert conformance_run.differences(STORED, STORED) == []
    changed = {**STORED, "records": [dict(record) for record in STORED["records"]]}
    record = next(record for record in changed["records"] if record["key"] == "scipy.binomtest")
    record["calls"] = [dict(item) for item in record["calls"]]
    first = next(item for item in record["calls"] if isinstance(item.get("value"), float))
    first["value"] = first["value"] * (1 + 1e-6)
    found = conformance_run.differences(changed, STORED)
    assert len(found) == 1 and first["call"] in found[0]


@pytest.mark.slow
def test_the_whole_run_reproduces_the_stored_file():
    """check_calculator on every installed tool (about 4 minutes here); a tool at another version is not compared.

    The tools run only on request (evalconfidence's compare, see tool_adapters_peers) are left out, as in the default
    command.
    """
    fresh = conformance_run.build(conformance_run.select(None))
    ran = {record["family"] for record in fresh["records"] if record["status"] != "skipped"}
    assert {"statsmodels", "scipy", "documented"} <= ran
    found = conformance_run.differences(fresh, STORED)
    assert [line for line in found if "(compare at the same version)" not in line] == []


def test_a_tool_that_is_not_installed_is_recorded_as_skipped_with_the_reason():
    missing = dataclasses.replace(
        BY_KEY["abeval.sample_size"], key="absent.sample_size", distribution="absent", setup="import absent_module\n"
    )
    with ToolRunner() as runner:
        record = conformance_run.run_tool(missing, runner)
    assert record["status"] == "skipped" and "absent_module" in record["reason"]
    assert "calls" not in record and record["call_template"] == missing.template


def test_the_r_session_reports_r_errors_and_recovers_after_a_time_out():
    try:
        session = RSession(timeout=1.0)
        session.start()
    except RUnavailable as error:
        pytest.skip(f"R not available: {error}")
    with session:
        # 17 significant digits round-trip a double: R's binom.test(3, 10) p is 0.34375 up to its summation's rounding.
        assert abs(session.evaluate("binom.test(3, 10)$p.value") - 0.34375) < 1e-15
        with pytest.raises(RError, match="must be a positive integer"):
            session.evaluate("binom.test(0, 0)$p.value")
        with pytest.raises(RError, match="unexpected"):
            session.evaluate("1 +")
        with pytest.raises(TimeoutError):
            session.evaluate("Sys.sleep(5); 1")
        assert session.evaluate("2 + 2") == 4.0
        assert session.reply("as.numeric('x')").warnings == ("NAs introduced by coercion",)
