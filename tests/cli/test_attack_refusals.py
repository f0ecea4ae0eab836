"""Options the command line accepted and then ignored, or refused late and by another name: each is refused at once,
in one line naming the option, with exit status 2 (the attack findings F5-F10, F13, F14)."""

from __future__ import annotations

import time

import pytest

from llm_power_verified.cli.inputs import check_json_report
from llm_power_verified.cli.main import main
from llm_power_verified.errors import LlmPowerError
from llm_power_verified.sequential.stopping import MAX_HORIZON, MAX_SIMULATED_STEPS, SIMULATIONS, stopping_time

GAP = ["plan", "gap", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3"]


def refused(capsys, arguments: list[str]) -> str:
    """The one line a refused command prints (exit status 2, nothing on stdout)."""
    assert main(arguments) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


@pytest.fixture
def wide(tmp_path, monkeypatch):
    """A wide table of 40 items and 3 models, without clusters, in the working folder."""
    monkeypatch.chdir(tmp_path)
    rows = [f"q{i},{i % 2},{i % 3 > 0:d},{i % 5 > 1:d}" for i in range(40)]
    (tmp_path / "w.csv").write_text("item_id,m0,m1,m2\n" + "\n".join(rows) + "\n")
    return "w.csv"


# F5: --horizon's range is the one the simulation holds, and it is refused before any work.
def test_the_longest_horizon_is_the_simulations_limit():
    assert MAX_HORIZON == MAX_SIMULATED_STEPS // SIMULATIONS == 500_000


@pytest.mark.parametrize("horizon", ["500001", "1000000", "50000000"])
@pytest.mark.parametrize("command", [GAP, ["plan", "report", "r.json"]])
def test_a_horizon_beyond_the_simulation_is_refused_at_once(capsys, command, horizon):
    start = time.monotonic()
    line = refused(capsys, [*command, "--horizon", horizon])
    assert line.endswith(f"argument --horizon: must be a whole number in [100, 500,000]; got {horizon}"), line
    assert time.monotonic() - start < 5  # the refusal took 9.5 minutes and 7.2 GB at 50,000,000


def test_the_longest_horizon_is_taken():
    from llm_power_verified.cli.main import build_parser

    assert build_parser().parse_args([*GAP, "--horizon", "5e5"]).horizon == MAX_HORIZON  # its run takes half a minute


@pytest.mark.parametrize("horizon, n_simulations", [(1_000_000, SIMULATIONS), (50_000_000, SIMULATIONS), (300_000, 99)])
def test_the_api_checks_the_simulation_before_any_work(horizon, n_simulations):
    start = time.monotonic()
    with pytest.raises(
        LlmPowerError, match=r"^horizon .*n_simulations|^horizon must be a whole number in \[1, 20,000,000\]"
    ):
        stopping_time(0.6, 0.5, 0.3, horizon=horizon, n_simulations=n_simulations)
    assert time.monotonic() - start < 1  # before the boundary of the horizon is computed


# F6: --alpha has a floor where the e-process boundary holds (alpha^2 does not underflow).
@pytest.mark.parametrize("alpha", ["1e-300", "5e-324", "1e-101"])
@pytest.mark.parametrize(
    "command",
    [
        ["monitor", "a.txt", "b.txt"],
        ["design", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3"],
        [*GAP, "--anytime"],
        ["audit-accuracies", "acc.csv"],
    ],
)
def test_a_tiny_alpha_is_refused_by_every_command(capsys, command, alpha):
    line = refused(capsys, [*command, "--alpha", alpha])
    assert line.endswith(f"argument --alpha: must be a finite number in [1e-100, 1); got {alpha}"), line


def test_the_smallest_alpha_is_monitored(capsys, tmp_path):
    (tmp_path / "a.txt").write_text("1\n0\n1\n1\n0\n")
    (tmp_path / "b.txt").write_text("0\n0\n1\n0\n1\n")
    assert main(["monitor", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--alpha", "1e-100"]) == 0
    assert "reject when e >= 1/alpha = 1e+100" in capsys.readouterr().out


@pytest.mark.parametrize("alpha", [1e-300, 0.0])
def test_the_api_refuses_an_alpha_below_the_floor(alpha):
    from llm_power_verified.sequential import confidence_sequence

    with pytest.raises(LlmPowerError, match=r"alpha must lie in \[1e-100, 1\)"):
        confidence_sequence([0.0, 1.0, -1.0], alpha)
    with pytest.raises(LlmPowerError, match=r"alpha must be a finite number in \[1e-100, 1\)"):
        stopping_time(0.6, 0.5, 0.3, alpha=alpha)


# F8: an audit's resamples are none or at least 100, as the paired test's.
@pytest.mark.parametrize("option", ["--n-resamples", "--n-cluster-resamples", "--n-rank-resamples"])
@pytest.mark.parametrize("value", ["1", "2", "99"])
def test_a_handful_of_resamples_is_refused(capsys, option, value):
    line = refused(capsys, ["audit", option, value])
    assert f"argument {option}: must be 0 (none) or a whole number in [100, 100,000]" in line and line.endswith(
        f"got {value}"
    )


# F9: an option that cannot apply to the input is refused when typed, never because of its default.
@pytest.mark.parametrize(
    "extra, start",
    [
        (
            ["--reference", "m1"],
            "--reference 'm1' applies to --mode reference; --mode is adjacent, so it would be ignored",
        ),
        (
            ["--n-cluster-resamples", "500"],
            "--n-cluster-resamples 500 applies to items with clusters (--cluster-column); INPUT has none",
        ),
        (
            ["--missing-cluster", "drop"],
            "--missing-cluster drop applies to items with clusters (--cluster-column); INPUT has none",
        ),
        (["--missing-cluster", "error"], "--missing-cluster error applies to items with clusters"),
    ],
)
def test_an_option_that_would_be_ignored_is_refused(capsys, wide, extra, start):
    line = refused(capsys, ["audit", wide, "--quiet", *extra])
    assert line.startswith(f"llm-power-verified: error: {start}") and line.endswith(
        "leave it out" + ("" if "reference" not in start else ", or add --mode reference")
    ), line


def test_defaults_and_no_cluster_resamples_are_not_refused(capsys, wide):
    assert main(["audit", wide, "--quiet", "--n-resamples", "0", "--n-cluster-resamples", "0", "--format", "json"]) == 0
    assert (
        main(
            [
                "audit",
                wide,
                "--quiet",
                "--n-resamples",
                "0",
                "--mode",
                "reference",
                "--reference",
                "m1",
                "--format",
                "json",
            ]
        )
        == 0
    )
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "command", [["reproduce"], ["crosscheck"], ["audit-calculator", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0.2"]]
)
@pytest.mark.parametrize(
    "order", [["--format", "markdown", "--json"], ["--json", "--format", "markdown"], ["--format", "json", "--json"]]
)
def test_json_and_another_format_are_refused(capsys, command, order):
    line = refused(capsys, [*command, *order])
    assert line.endswith(
        "give --format or --json, not both: --json is --format json, and one of them would be ignored"
    ), line


def test_json_alone_is_the_json_format(capsys):
    assert main(["crosscheck", "--json"]) == 0 and capsys.readouterr().out.lstrip().startswith(("{", "["))


# F10: list options refuse an empty or repeated element by its position; --plot refuses an image it does not write.
@pytest.mark.parametrize(
    "arguments, end",
    [
        (
            ["audit", "--columns", "delta,,rho"],
            "argument --columns: element 2 of 'delta,,rho' is empty; give the names separated by single commas",
        ),
        (
            ["audit", "--columns", "delta,"],
            "argument --columns: element 2 of 'delta,' is empty; give the names separated by single commas",
        ),
        (
            ["audit", "--columns", "delta,rho,delta"],
            "argument --columns: element 3 ('delta') of 'delta,rho,delta' repeats element 1; give each once",
        ),
        (["audit", "--columns", "delta,nope"], "argument --columns: unknown column 'nope'; choose from"),
        (
            ["audit", "--plot", "r.jpg"],
            "argument --plot: 'r.jpg' is a .jpg image, which the audit's figures are not written as: "
            "name a .png, .svg or .pdf file, or a folder (no suffix)",
        ),
        (["audit", "--plot", "figs/R.TIFF"], "argument --plot: 'figs/R.TIFF' is a .tiff image"),
    ],
)
def test_list_and_plot_options_refuse_what_they_would_drop(capsys, arguments, end):
    line = refused(capsys, arguments)
    assert end in line, line


def test_cluster_sizes_refuse_an_empty_or_repeated_element():
    import argparse

    from llm_power_verified.cli.value_types import size_list

    assert size_list("5, 10,1e2") == [5, 10, 100]
    for text, message in [
        ("5,,10", "element 2 of '5,,10' is empty"),
        ("5,5", "element 2 ('5') of '5,5' repeats element 1"),
        ("5,5.0", "element 2 ('5.0') of '5,5.0' repeats element 1"),
        ("5,0", "element 2 ('0') of '5,0' is not a whole number >= 1"),
        (",", "element 1 of ',' is empty"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError) as error:
            size_list(text)
        assert str(error.value).startswith(message), error.value


def test_a_plot_folder_may_have_a_dot(tmp_path):
    from llm_power_verified.cli.path_types import plot_path

    assert (
        plot_path("figures.v2") == "figures.v2"
        and plot_path("a.b/figures") == "a.b/figures"
        and plot_path("r.SVG") == "r.SVG"
    )


# F13: the same input twice, a report plan report cannot read, the power below the level.
def test_the_same_file_twice_is_named(capsys, wide, tmp_path):
    assert refused(capsys, ["audit", wide, wide]).endswith(
        "w.csv is given twice: give each input once (a model compared with itself tells nothing)"
    )
    (tmp_path / "link.csv").symlink_to(tmp_path / wide)
    assert "link.csv (the same as w.csv) is given twice" in refused(capsys, ["audit", wide, "link.csv"])
    (tmp_path / "a.txt").write_text("1\n0\n1\n")
    assert "a.txt is given twice" in refused(capsys, ["monitor", "a.txt", "./a.txt"])


@pytest.mark.parametrize(
    "name, data, kind",
    [
        ("r.parquet", b"PAR1\x15\x04", "Parquet"),
        ("report.bin", b"PAR1\x00", "Parquet"),
        ("r.csv", b"model_a,model_b\n", "CSV"),
        ("r.jsonl", b'{"a": 1}\n{"a": 2}\n', "JSON Lines"),
        ("r.html", b"<!doctype html>", "HTML"),
    ],
)
def test_plan_report_names_a_report_of_another_format(tmp_path, name, data, kind):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(LlmPowerError) as error:
        check_json_report(tmp_path / name)
    assert str(error.value) == (
        f"plan report reads the JSON report (audit --format json); {tmp_path / name} is a {kind} report: "
        "write the audit again with --format json --out FILE.json and give that file"
    )


def test_plan_report_leaves_a_json_report_and_a_missing_file_to_its_reader(tmp_path):
    (tmp_path / "r.json").write_text("{}")
    assert check_json_report(tmp_path / "r.json") is None and check_json_report(tmp_path / "missing.json") is None


def test_power_below_alpha_names_the_options(capsys):
    line = refused(capsys, [*GAP, "--alpha", "0.9", "--power", "0.05"])
    assert "power must exceed alpha (on the command line: --power above --alpha); got power 0.05 with alpha 0.9" in line


# F14: --out's suffix and --format agree; a name without a format's suffix takes any format.
@pytest.mark.parametrize(
    "extra, end",
    [
        (
            ["--format", "json", "--out", "o.parquet"],
            "--out o.parquet names a parquet file but --format is json: add --format parquet, "
            "or name the file for json output",
        ),
        (
            ["--out", "o.json"],
            "--out o.json names a json file but --format is table (the default): add --format json, or name the file "
            "for table output",
        ),
        (["--format", "html", "--out", "O.MD"], "--out O.MD names a markdown file but --format is html"),
        (["--format", "csv", "--out", "o.jsonl"], "--out o.jsonl names a jsonl file but --format is csv"),
    ],
)
def test_an_out_suffix_that_contradicts_the_format_is_refused(capsys, wide, extra, end):
    assert end in refused(capsys, ["audit", wide, "--quiet", *extra])
    assert not any(path.name.lower().startswith("o.") for path in __import__("pathlib").Path().iterdir())


def test_the_accuracies_audit_checks_out_too(capsys, wide):
    assert refused(capsys, ["audit-accuracies", "acc.csv", "--out", "o.csv"]).endswith(
        "--out o.csv names a csv file but --format is table (the default): add --format csv, or name the file for "
        "table output"
    )


@pytest.mark.parametrize("name, output", [("o.txt", "table"), ("report", "json"), ("o.JSON", "json"), ("o.csv", "csv")])
def test_an_out_name_that_agrees_or_says_no_format_is_written(capsys, wide, name, output):
    assert main(["audit", wide, "--quiet", "--n-resamples", "0", "--format", output, "--out", name]) == 0
    assert __import__("pathlib").Path(name).stat().st_size > 0


# F7: a generated file's place holding a folder or a file that is not UTF-8.
@pytest.fixture
def generated(tmp_path, monkeypatch):
    """Two generated files, in a temporary folder, in place of the package's."""
    from llm_power_verified.report import schemas

    files = {tmp_path / "audit.schema.json": "{}\n", tmp_path / "columns.rst": "columns\n"}
    monkeypatch.setattr(schemas, "generated_files", lambda root=None: files)
    return tmp_path


@pytest.mark.parametrize("action", ["check", "regenerate"])
def test_a_folder_where_a_generated_file_belongs_is_named(capsys, generated, action):
    (generated / "audit.schema.json").mkdir()
    line = refused(capsys, ["contract", action])
    assert line.endswith(
        f"{generated / 'audit.schema.json'}: a folder where the generated file belongs; remove it and run "
        "`llm-power-verified contract regenerate`"
    ), line


def test_check_names_a_generated_file_that_is_not_utf8(capsys, generated):
    (generated / "audit.schema.json").write_bytes(b"\xff\xfe{}")
    line = refused(capsys, ["contract", "check"])
    assert line.endswith(
        f"{generated / 'audit.schema.json'}: byte 0xff at offset 0 is not UTF-8: the generated file is damaged; "
        "run `llm-power-verified contract regenerate`"
    ), line


def test_regenerate_rewrites_a_generated_file_that_is_not_utf8(capsys, generated):
    (generated / "audit.schema.json").write_bytes(b"\xff\xfe{}")
    assert main(["contract", "regenerate"]) == 0
    assert (generated / "audit.schema.json").read_text(encoding="utf-8") == "{}\n"
    assert main(["contract", "check"]) == 0


# The pieces wired in after the helpers' functions: plan's --cluster-sizes, plan report's format check, --model-column.
def test_plan_gap_cluster_sizes_refuse_an_empty_element(capsys):
    line = refused(capsys, [*GAP, "--icc", "0.1", "--cluster-sizes", "5,,10"])
    assert "--cluster-sizes" in line and "element 2" in line and "empty" in line, line


def test_plan_report_refuses_a_parquet_report_by_its_format(capsys, tmp_path):
    report = tmp_path / "r.parquet"
    report.write_bytes(b"PAR1" + bytes(32) + b"PAR1")
    line = refused(capsys, ["plan", "report", str(report)])
    assert "plan report reads the JSON report" in line and "Parquet" in line and "not UTF-8" not in line, line


@pytest.mark.parametrize("option", ["--model-column", "--score-column"])
def test_a_long_table_column_name_on_a_wide_table_is_refused(capsys, wide, option):
    line = refused(capsys, ["audit", wide, "--item-column", "item_id", option, "x", "--n-resamples", "0"])
    assert f"{option} 'x' applies to long tables" in line and "w.csv" in line, line


def test_approximate_accuracies_reads_what_is_otherwise_refused(capsys, tmp_path):
    table = tmp_path / "acc.csv"
    table.write_text("model,accuracy,n\nalpha,0.6234,100\nbeta,0.55,100\n")
    line = refused(capsys, ["audit-accuracies", str(table)])
    assert "--approximate-accuracies" in line, line
    assert main(["audit-accuracies", str(table), "--approximate-accuracies"]) == 0
    assert "accepted as approximate (--approximate-accuracies)" in capsys.readouterr().out


# The re-attack's findings on the new code.
def test_monitor_plot_with_a_suffix_matplotlib_does_not_write_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("1\n0\n1\n1\n0\n1\n")
    (tmp_path / "b.txt").write_text("0\n0\n1\n0\n1\n1\n")
    line = refused(capsys, ["monitor", "a.txt", "b.txt", "--plot", "m.txt"])  # was a matplotlib traceback
    assert "--plot m.txt" in line and ".png" in line and not (tmp_path / "m.txt").exists(), line


def test_a_compressed_out_name_is_refused(capsys, wide):
    line = refused(capsys, ["audit", wide, "--item-column", "item_id", "--format", "json", "--out", "r.json.gz"])
    assert "written uncompressed" in line and "--out r.json.gz" in line, line


@pytest.mark.parametrize("alpha", ["1e-20", "1e-100"])
def test_the_audit_runs_at_a_tiny_admitted_alpha(capsys, wide, alpha):
    # 1 - alpha/2 rounds to 1 below about 1e-16: the headline's threshold is computed from alpha/2 instead.
    assert (
        main(["audit", wide, "--item-column", "item_id", "--alpha", alpha, "--n-resamples", "0", "--width", "1000"])
        == 0
    )
    assert "'resolved' is |z_Wald| >=" in capsys.readouterr().out


def test_the_rho_refusal_names_the_flag(capsys):
    line = refused(capsys, ["plan", "gap", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0.99"])
    assert "(--rho on the command line)" in line, line
