"""Under an address-space limit (ulimit -v): one BLAS thread, and a library that cannot be mapped is one line."""

import importlib

import pytest

from llm_power_verified.cli import streams

cli_main = importlib.import_module("llm_power_verified.cli.main")  # the module (the package exports its function)


def test_one_blas_thread_only_under_a_limit_and_only_when_not_chosen(monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setattr(streams, "address_space_limit", lambda: None)
    streams.one_blas_thread_under_a_limit()
    assert "OPENBLAS_NUM_THREADS" not in streams.os.environ
    monkeypatch.setattr(streams, "address_space_limit", lambda: 600_000_000)
    streams.one_blas_thread_under_a_limit()
    assert streams.os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")  # the user's choice is kept
    streams.one_blas_thread_under_a_limit()
    assert streams.os.environ["OPENBLAS_NUM_THREADS"] == "2"


@pytest.mark.parametrize("limit", [600_000_000, None])
def test_a_library_that_cannot_be_mapped_is_one_line_under_a_limit(monkeypatch, capsys, limit):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.setattr(streams, "address_space_limit", lambda: limit)

    def run(arguments):
        raise ImportError("/site-packages/scipy/stats/_stats.so: failed to map segment from shared object")

    monkeypatch.setattr(cli_main.COMMANDS["audit"], "run", run)
    if limit is None:  # without a limit an ImportError is a broken installation: not hidden
        with pytest.raises(ImportError):
            cli_main.main(["audit", "x.csv"])
        return
    assert cli_main.main(["audit", "x.csv"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "address-space limit (ulimit -v: 0.60 GB" in error and "raise the limit" in error
