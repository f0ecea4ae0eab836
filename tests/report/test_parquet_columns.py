"""The pair columns the machine formats write (``--columns``), dictionary-encoded names and Parquet's row groups.

Parquet writes the contract's default set unless asked (``--columns all``, or names with ``default``); CSV and JSON
Lines every column unless asked; the JSON report always every column.  Values do not depend on the columns chosen.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli.main import main
from llm_power_verified.contract import PAIR_COLUMNS, column, pair_columns
from llm_power_verified.contract.item_pair_columns import DEFAULT_PAIR_NAMES
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import AuditSettings
from llm_power_verified.leaderboard.blocks import PAIR_BLOCK
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.report import machine
from llm_power_verified.report.dispatch import write
from llm_power_verified.report.machine import ParquetSink, read_audit_metadata

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")


def _wide_csv(path, models=6, items=300, seed=3):
    """A wide 0/1 table of ``models`` models whose accuracies fall with the model's index (seeded)."""
    rng = np.random.default_rng(seed)
    scores = (rng.random((items, models)) < np.linspace(0.8, 0.5, models)).astype(int)
    lines = ["item_id," + ",".join(f"model{k}" for k in range(models))]
    lines += [f"i{row}," + ",".join(map(str, scores[row])) for row in range(items)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _audit(tmp_path, *extra: str) -> int:
    """``audit`` on the small table, all pairs, no resamples: its exit status."""
    table = _wide_csv(tmp_path / "scores.csv")
    return main(["audit", str(table), "--mode", "all", "--quiet", "--n-resamples", "0", *extra])


def _defaults(names) -> list[str]:
    return [name for name in names if column(name).default]


def test_the_default_set_is_declared_per_item_columns():
    declared = {item.name: item for item in PAIR_COLUMNS}
    assert set(DEFAULT_PAIR_NAMES) <= set(declared)
    assert all(declared[name].audits & {"binary", "graded"} for name in DEFAULT_PAIR_NAMES)
    binary = [item.name for item in pair_columns("binary") if item.when is None]
    # The default set of a plain 0/1 audit: fewer than half its columns, with the names and every verdict.
    chosen = _defaults(binary)
    assert len(chosen) < len(binary) / 2
    assert {"model_a", "model_b", "q", "resolved", "significant", "significant_anytime", "resolved_anytime"} <= set(
        chosen
    )
    assert not {"icc", "required_n_anytime", "p_holm"} & set(chosen)


def test_cli_parquet_writes_the_default_set_and_all_on_request(tmp_path, capsys):
    assert _audit(tmp_path, "--format", "parquet", "--out", str(tmp_path / "default.parquet")) == 0
    assert _audit(tmp_path, "--format", "parquet", "--out", str(tmp_path / "all.parquet"), "--columns", "all") == 0
    capsys.readouterr()
    chosen, every = pd.read_parquet(tmp_path / "default.parquet"), pd.read_parquet(tmp_path / "all.parquet")
    assert list(chosen.columns) == _defaults(every.columns) and len(chosen) == len(every) == 15
    assert len(chosen.columns) < len(every.columns)
    # The same values as every column's file, column by column (the writer only drops columns).
    assert chosen.equals(every[list(chosen.columns)])
    assert read_audit_metadata(tmp_path / "default.parquet")["pairs_columns"] == list(chosen.columns)
    assert "pairs_columns" not in read_audit_metadata(tmp_path / "all.parquet")
    assert set(map(type, chosen["model_a"])) == {str}  # dictionary-encoded in the file, strings when read back


def test_a_list_adds_columns_to_the_default_set_in_table_order(tmp_path, capsys):
    out = tmp_path / "chosen.parquet"
    assert _audit(tmp_path, "--format", "parquet", "--out", str(out), "--columns", "required_n_anytime,default") == 0
    assert _audit(tmp_path, "--format", "csv", "--out", str(tmp_path / "all.csv")) == 0
    capsys.readouterr()
    every = pd.read_csv(tmp_path / "all.csv")
    wanted = [name for name in every.columns if column(name).default or name == "required_n_anytime"]
    assert pq.read_schema(out).names == wanted
    assert _audit(tmp_path, "--format", "csv", "--columns", "q,model_b,model_a") == 0
    assert capsys.readouterr().out.splitlines()[0] == "model_a,model_b,q"


def test_csv_and_jsonl_default_to_every_column_and_take_the_default_set(tmp_path, capsys):
    assert _audit(tmp_path, "--format", "csv") == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert header == [item.name for item in pair_columns("binary") if item.name in header]
    assert len(header) > len(_defaults(header))
    assert _audit(tmp_path, "--format", "jsonl", "--columns", "default") == 0
    first = pd.read_json(__import__("io").StringIO(capsys.readouterr().out), lines=True)
    assert list(first.columns) == _defaults(header)


_LIST = "reference/columns"


@pytest.mark.parametrize(
    "extra, fragment, remedy",
    [
        (["--format", "parquet", "--columns", "default,nope"], "argument --columns: unknown column 'nope'", _LIST),
        (["--format", "parquet", "--columns", "p_t"], "--columns p_t: not in this audit's pair table (a column", _LIST),
        (["--format", "parquet", "--columns", "icc"], "--columns icc: not in this audit's pair table (present", _LIST),
        (["--format", "json", "--columns", "default"], "--columns default: the JSON report holds", "--format csv"),
        (["--format", "table", "--columns", "icc"], "--columns icc: --format table shows the text", "parquet write"),
    ],
)
def test_a_request_the_table_cannot_meet_is_refused_in_one_line(tmp_path, capsys, extra, fragment, remedy):
    out = tmp_path / "refused.parquet"
    assert _audit(tmp_path, *extra, *(["--out", str(out)] if "parquet" in extra else [])) == 2
    error = capsys.readouterr().err
    assert fragment in error and remedy in error and len(error.strip().splitlines()) == 1
    assert not out.exists()


def test_json_takes_all(tmp_path, capsys):
    assert _audit(tmp_path, "--format", "json", "--columns", "all") == 0
    assert '"pairs": [' in capsys.readouterr().out


def _encodings(path, name: str) -> set[str]:
    metadata = pq.ParquetFile(path).metadata
    position = metadata.schema.names.index(name)
    return {
        encoding
        for group in range(metadata.num_row_groups)
        for encoding in metadata.row_group(group).column(position).encodings
    }


def test_model_names_are_dictionary_encoded_and_numbers_are_not(tmp_path):
    matrix = from_array(
        (np.random.default_rng(5).random((200, 8)) < 0.7).astype(float), models=[f"m{k}" for k in range(8)]
    )
    path = tmp_path / "audit.parquet"
    write(AuditRequest(matrix, AuditSettings(mode="all", n_resamples=0)), "parquet", path, columns="all")
    assert "RLE_DICTIONARY" in _encodings(path, "model_a") and "RLE_DICTIONARY" in _encodings(path, "model_b")
    assert "RLE_DICTIONARY" not in _encodings(path, "delta") | _encodings(path, "rank_a")
    # Strings when read back, with pyarrow (no dictionary type in the schema) and pandas.
    names = pq.read_schema(path).field("model_a").type
    assert not pa.types.is_dictionary(names) and (pa.types.is_string(names) or pa.types.is_large_string(names))
    read = pd.read_parquet(path)["model_b"].tolist()
    assert set(map(type, read)) == {str} and set(read) <= {f"m{k}" for k in range(8)} and len(read) == 28


def test_blocks_are_gathered_into_row_groups(tmp_path, monkeypatch):
    # Two blocks of the streamed audit (more than PAIR_BLOCK pairs) go into one row group of the file.
    models = 205
    assert models * (models - 1) // 2 > PAIR_BLOCK
    rng = np.random.default_rng(11)
    matrix = from_array((rng.random((40, models)) < 0.6).astype(float), models=[f"m{k:03d}" for k in range(models)])
    path = tmp_path / "audit.parquet"
    written = write(AuditRequest(matrix, AuditSettings(mode="all", n_resamples=0)), "parquet", path)
    assert written.pairs_written == models * (models - 1) // 2
    assert pq.ParquetFile(path).metadata.num_row_groups == 1
    # A row group is written when the rows gathered reach ROW_GROUP_ROWS: 7 blocks of 1,000 at 2,500 -> 3,000 rows,
    # 3,000 rows, then the last 1,000 at close.
    monkeypatch.setattr(machine, "ROW_GROUP_ROWS", 2_500)
    frame = pd.DataFrame({"model_a": ["x"] * 1_000, "model_b": ["y"] * 1_000, "delta": np.linspace(0, 1, 1_000)})
    with (tmp_path / "blocks.parquet").open("wb") as stream:
        sink = ParquetSink(stream)
        for _ in range(7):
            sink(frame)
        sink.close({b"k": b"v"})
    metadata = pq.ParquetFile(tmp_path / "blocks.parquet").metadata
    assert [metadata.row_group(group).num_rows for group in range(metadata.num_row_groups)] == [3_000, 3_000, 1_000]


def test_the_library_keeps_every_column_unless_asked(tmp_path):
    matrix = from_array((np.random.default_rng(2).random((100, 4)) < 0.6).astype(float), models=list("abcd"))
    request = AuditRequest(matrix, AuditSettings(mode="all", n_resamples=0))
    write(request, "parquet", tmp_path / "every.parquet")
    write(request, "parquet", tmp_path / "default.parquet", columns="default")
    every = pq.read_schema(tmp_path / "every.parquet").names
    assert every == list(request.run().pairs.columns)
    assert pq.read_schema(tmp_path / "default.parquet").names == _defaults(every)
    with pytest.raises(ArgumentError, match="--columns nope: not a pair column"):
        write(request, "csv", tmp_path / "x.csv", columns=["nope"])


def test_a_chosen_set_keeps_the_pair_names_and_a_long_unknown_name_is_cut(tmp_path, capsys):
    """--columns delta,q still names each pair (model_a, model_b); a 5,000-character name is not echoed whole."""
    from llm_power_verified.cli.main import main

    out = tmp_path / "a.parquet"
    assert main(["audit", "--quiet", "--format", "parquet", "--columns", "delta,q", "--out", str(out)]) == 0
    assert pq.read_schema(out).names == ["model_a", "model_b", "delta", "q"]
    assert main(["audit", "--quiet", "--format", "parquet", "--columns", "x" * 5000, "--out", str(out)]) == 2
    error = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(error) == 1 and "(cut at 80 characters)" in error[0] and len(error[0]) < 400
