"""An Inspect log whose samples carry no scores is refused saying so (it used to say 'no scorer None')."""

from __future__ import annotations

import json

import pytest

from llm_power_verified.io import AlignmentError, read_scores


def test_a_log_without_scores_is_refused_saying_it_was_not_scored(tmp_path):
    paths = []
    for model in ("a", "b"):
        samples = [{"id": item, "epoch": 1, "input": f"q{item}", "target": "x"} for item in range(3)]
        log = {"version": 2, "status": "success", "eval": {"model": f"mock/{model}", "task": "t"}, "samples": samples}
        paths.append(tmp_path / f"{model}.json")
        paths[-1].write_text(json.dumps(log))
    with pytest.raises(AlignmentError, match=r"a\.json: no sample of the log has a score \(3 samples\).*inspect score"):
        read_scores(paths)
