"""Which reader the inputs call for: told from what the paths are and what the files begin with, never guessed.

Each reader claims its inputs by something only its harness writes:

* a folder with ``samples_*.jsonl``: lm-evaluation-harness ``--log_samples`` output (also the Open LLM Leaderboard v2
  details layout, ``ORG__MODEL/samples_leaderboard_TASK_STAMP.jsonl``);
* a folder with ``per_instance_stats.json`` or ``run_spec.json`` (a HELM run; the reader names a missing one), or
  with HELM runs in it (a suite);
* a folder with lighteval's ``details_*.parquet`` files (or timestamp folders of them), or a ``.parquet`` file named
  so or whose schema has lighteval's details columns: lighteval
  (:func:`~llm_power_verified.io.lighteval.is_lighteval_details`);
* a ``.jsonl`` file whose first line is an object with the key ``spec``: an OpenAI ``evals`` log (``oaieval``;
  :func:`~llm_power_verified.io.openai_evals.is_openai_evals_log`);
* ``.eval`` / ``.json`` files: Inspect logs;
* one other ``.csv``/``.tsv``[``.gz``], ``.parquet``/``.pq`` or ``.jsonl``[``.gz``]/``.ndjson`` file: a table;
* two other files: plain score files.

An input two readers claim (a folder holding both lm-eval samples and a HELM run) is refused naming
``--input-format``, which chooses; inputs that different readers claim are refused as a mix.  The sniffs read a
bounded prefix (the first line, up to 1 MiB) or a Parquet file's schema, never a whole file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from llm_power_verified.io.errors import InputError
from llm_power_verified.io.lm_eval_runs import SAMPLES

__all__ = ["INPUT_FORMATS", "TABLE_SUFFIXES", "input_kind", "refuse_twins"]

TABLE_SUFFIXES = (".csv", ".tsv", ".csv.gz", ".tsv.gz", ".parquet", ".pq", ".jsonl", ".jsonl.gz", ".ndjson")
INSPECT_SUFFIXES = (".eval", ".json")
#: The values of ``--input-format`` (``input_format``): "auto" detects, the others choose the reader.
INPUT_FORMATS = ("auto", "table", "score-files", "lm-eval", "inspect", "helm", "lighteval", "openai-evals", "records")
_FOLDER_FORMATS = ("lm-eval", "helm", "lighteval")
_NAMES = {"openai-evals": "OpenAI evals logs", "lighteval": "lighteval details"}
_DESCRIBED = {
    "lm-eval": "lm-eval samples (samples_*.jsonl)",
    "helm": "a HELM run (per_instance_stats.json)",
    "lighteval": "lighteval details (details_*.parquet)",
    "inspect": "Inspect logs (*.eval)",
}


def input_kind(paths: Sequence[Path], input_format: str = "auto") -> str:
    r"""Which reader the paths call for.

    Parameters
    ----------
    paths : sequence of pathlib.Path
        The inputs as given.
    input_format : str, default "auto"
        One of ``INPUT_FORMATS``: "auto" detects (module notes); another value chooses the reader, whose own
        checks then apply (``--input-format``).

    Returns
    -------
    {"lm-eval", "inspect", "table", "score-files", "helm", "lighteval", "openai-evals", "records"}
        The reader (module notes); "records" only when chosen.

    Raises
    ------
    InputError
        No input, a missing path, one given twice, a folder named like a file, a pipe or device whose format a name
        cannot tell, folders mixed with files, an input two readers claim, inputs different readers claim, a folder
        no reader claims, one file of unknown format, or more than two plain files.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = [pathlib.Path(folder) / name for name in ("a.txt", "b.txt")]
    ...     _ = [path.write_text("1\n0\n") for path in paths]
    ...     kind = input_kind(paths)
    >>> kind
    'score-files'
    >>> input_kind([pathlib.Path("/nonexistent/scores.csv")])
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: /nonexistent/scores.csv: no such file or folder
    """
    if input_format not in INPUT_FORMATS:
        raise InputError(f"--input-format {input_format!r}: choose one of {', '.join(INPUT_FORMATS)}")
    if not paths:
        raise InputError("no input given")
    for path in paths:
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
    refuse_twins(paths)
    for path in paths:
        if path.is_dir() and path.name.lower().endswith(TABLE_SUFFIXES + INSPECT_SUFFIXES):
            raise InputError(f"{path}: a folder, not a file, although its name ends like a table or log file")
    if input_format != "auto":
        return input_format
    _refuse_stream(paths)
    if all(path.is_dir() for path in paths):
        return _folder_kind(paths)
    if any(path.is_dir() for path in paths):
        raise InputError("give either harness output folders or files, not both")
    return _file_kind(paths)


def _refuse_stream(paths: Sequence[Path]) -> None:
    for path in paths:
        stream = not path.is_file() or str(path.absolute()).startswith(("/dev/", "/proc/"))  # /dev/stdin: a link
        if (
            len(paths) == 1
            and not path.is_dir()
            and stream
            and not path.name.lower().endswith(TABLE_SUFFIXES + INSPECT_SUFFIXES)
        ):
            raise InputError(
                f"{path}: a pipe or device (standard input?), whose format cannot be told from its name; save the "
                "input to a file named .csv, .tsv, .parquet, .jsonl, .eval or .json (or two plain score files)"
            )


def _folder_claims(folder: Path) -> list[str]:
    """The readers that claim a folder, by the files only their harness writes."""
    # Lazy: each harness's detection lives with its reader, imported when a folder is given.
    from llm_power_verified.io import helm, lighteval

    claims = []
    if any(folder.glob("samples_*.jsonl")) or any(folder.glob("samples_*.json")):
        claims.append("lm-eval")
    # One of a run's two files is enough to claim it: the HELM reader then names the one missing.
    if any((folder / name).exists() for name in ("per_instance_stats.json", "run_spec.json")) or helm.is_helm_suite(
        folder
    ):
        claims.append("helm")
    if lighteval.is_lighteval_details(folder):
        claims.append("lighteval")
    if any(folder.glob("*.eval")):
        claims.append("inspect")
    return claims


def _refuse_unclaimed(folder: Path) -> None:
    """A folder no reader claims; when its subfolders hold harness output (lm-eval's --output_path), name them."""
    held = [child for child in _subfolders(folder) if _folder_claims(child)][:50]
    if held:
        shown = ", ".join(child.name for child in held[:5]) + (", ..." if len(held) > 5 else "")
        raise InputError(
            f"{folder}: holds harness output in its folders ({shown}): give those folders ({folder}/*, or the ones to "
            "compare), not the folder that holds them"
        )
    raise InputError(
        f"{folder}: no harness output recognised in this folder: lm-eval --log_samples output "
        "(samples_*.jsonl), a HELM run or suite (per_instance_stats.json) or lighteval details "
        "(details_*.parquet) is read from a folder; tables and logs are given as files"
    )


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(child for child in folder.iterdir() if child.is_dir())
    except OSError:  # unreadable: the reader says what is wrong
        return []


def _folder_kind(paths: Sequence[Path]) -> str:
    kinds = []
    for folder in paths:
        claims = _folder_claims(folder)
        if not claims:
            _refuse_unclaimed(folder)
        if len(claims) > 1:
            held = " and ".join(_DESCRIBED[claim] for claim in claims)
            choices = " or ".join(f"--input-format {claim}" for claim in claims if claim != "inspect")
            raise InputError(f"{folder}: holds {held}: choose the reader with {choices}")
        if claims == ["inspect"]:
            raise InputError(
                f"{folder}: a folder of Inspect logs: give the logs to compare, one per model ({folder}/*.eval)"
            )
        kinds.append(claims[0])
    if len(set(kinds)) > 1:
        shown = ", ".join(f"{folder} ({kind})" for folder, kind in zip(paths, kinds, strict=True))
        raise InputError(f"the folders hold different harnesses' output: {shown}; give one kind at a time")
    return kinds[0]


def _file_kind(paths: Sequence[Path]) -> str:
    names = [path.name.lower() for path in paths]
    for path, name in zip(paths, names, strict=True):
        _refuse_part_of_a_run(path, name)
    claims = [_file_claim(path, name) for path, name in zip(paths, names, strict=True)]
    if "lm-eval samples" in claims:
        _refuse_samples_files(paths, claims)
    for special in ("openai-evals", "lighteval"):
        if special in claims:
            if all(claim == special for claim in claims):
                return special
            shown = ", ".join(
                f"{path} ({claim or 'not recognised'})" for path, claim in zip(paths, claims, strict=True)
            )
            damaged = (
                ""
                if any(claim not in (special, None) for claim in claims)
                else f", or, if they are all {_NAMES[special]} (one damaged), read them with --input-format "
                f"{special}, whose reader says what is wrong"
            )
            raise InputError(f"cannot mix these inputs: {shown}; give one kind at a time{damaged}")
    if all(claim == "inspect" for claim in claims):
        return "inspect"
    if len(paths) == 1 and names[0].endswith(TABLE_SUFFIXES):
        return "table"
    if any(name.endswith(TABLE_SUFFIXES + INSPECT_SUFFIXES) for name in names):
        raise InputError(
            f"cannot mix these inputs ({', '.join(map(str, paths))}): give one table file, Inspect logs "
            "(.eval/.json), harness output folders, OpenAI evals logs, or two plain score files"
        )
    if len(paths) == 2:
        return "score-files"
    if len(paths) == 1:
        raise InputError(
            f"{paths[0]}: unknown input format; name a table .csv, .tsv, .parquet or .jsonl (optionally .gz), "
            "give Inspect logs (.eval/.json), OpenAI evals logs (.jsonl), harness output folders, or two plain score "
            "files (one number per line)"
        )
    raise InputError(
        f"{len(paths)} plain files given: plain score files (one number per line) come in pairs; "
        "several models go in one table (.csv, .parquet, .jsonl)"
    )


def _refuse_samples_files(paths: Sequence[Path], claims: list[str | None]) -> None:
    """lm-eval samples files given as files: their folder is the input (it names the model and holds the run)."""
    samples = [path for path, claim in zip(paths, claims, strict=True) if claim == "lm-eval samples"]
    folders = " ".join(str(path.parent) for path in samples)
    raise InputError(
        f"{samples[0]}: an lm-eval samples file: give the folders that hold them, one per model ({folders}), with "
        "--task and --metric; or read the files as plain JSON records with --item-field doc_id --score-field METRIC"
    )


#: Files of a harness run that hold no per-item results of their own, or only as part of a folder.
_RUN_PARTS = {
    "per_instance_stats.json": "a HELM run's file: give the run folder (it also holds run_spec.json, which names "
    "the model)",
    "stats.json": "a HELM run's aggregates: give the run folder for per-item results, or audit-accuracies for the "
    "aggregates",
    "run_spec.json": "a HELM run's specification: give the run folder",
}


def _refuse_part_of_a_run(path: Path, name: str) -> None:
    if name in _RUN_PARTS:
        raise InputError(f"{path}: {_RUN_PARTS[name]}")
    if name.startswith("results_") and name.endswith(".json"):
        raise InputError(
            f"{path}: an lm-eval or lighteval results file, which holds each model's aggregate, not per-item results: "
            "give the lm-eval output folder (with samples_*.jsonl) or the lighteval details, or audit the aggregates "
            "with audit-accuracies"
        )


def _file_claim(path: Path, name: str) -> str | None:
    """Which reader a file's name and beginning point to: 'openai-evals', 'lighteval', 'inspect', 'lm-eval samples'."""
    # Lazy: each harness's detection lives with its reader, imported when such a file is given.
    from llm_power_verified.io import lighteval, openai_evals

    if openai_evals.is_openai_evals_log(path):
        return "openai-evals"
    if lighteval.is_lighteval_details(path):
        return "lighteval"
    if SAMPLES.match(path.name):
        return "lm-eval samples"
    if name.endswith(INSPECT_SUFFIXES):
        return "inspect"
    return None


def refuse_twins(paths: Sequence[Path]) -> None:
    """Refuse one file or folder given twice (by the same name, another spelling of its path, or a link to it).

    Parameters
    ----------
    paths : sequence of pathlib.Path
        The inputs, which exist.

    Raises
    ------
    InputError
        The first input given twice, with the path it repeats.
    """
    for later, path in enumerate(paths):
        twin = next((earlier for earlier in paths[:later] if _same(earlier, path)), None)
        if twin is not None:
            shown = str(path) if str(path) == str(twin) else f"{path} (the same as {twin})"
            raise InputError(
                f"{shown} is given twice: give each input once (a model compared with itself tells nothing)"
            )


def _same(first: Path, second: Path) -> bool:
    try:
        return first.samefile(second)
    except OSError:  # a path that vanished meanwhile, or a pipe: the readers say what is wrong
        return False
