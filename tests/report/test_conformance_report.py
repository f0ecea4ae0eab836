"""The calculator conformance report in every format, from real ``check_calculator`` results.

The calculators are written here, outside the package: the (1 - rho) shortcut claiming to be the shortcut (it is:
conforms to its claim, about half the paired N*), and a McNemar exact p from ``math.comb`` and float powers that
overflows above a thousand discordant pairs.  Each format is checked for the facts a reader needs: the convention
found against the one claimed, the two errors apart (against its claim, against the correct quantity), the failures
with their counterexamples and threshold, the deviation map.  The JSON is validated against the shipped schema
(and the shipped schema is what the generator writes); the HTML page is opened in headless Chromium.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from statistics import NormalDist

import jsonschema
import pytest

from llm_power_verified.report.conformance import convention_meaning, render_conformance
from llm_power_verified.report.conformance_map import map_rows
from llm_power_verified.report.conformance_schema import CONFORMANCE_SCHEMA_FILE, generated_file
from llm_power_verified.testing.conformance import check_calculator

SCHEMA = json.loads((resources.files("llm_power_verified") / "report" / "conformance.schema.json").read_text())
BROWSER = next(
    (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None
)


def shortcut(p_a, p_b, rho, alpha, power):
    """The (1 - rho) shortcut (1 - rho) K / h^2."""
    z = NormalDist().inv_cdf
    h = 2 * math.asin(math.sqrt(p_a)) - 2 * math.asin(math.sqrt(p_b))
    return (1 - rho) * (z(1 - alpha / 2) + z(power)) ** 2 / h**2


def naive_exact(b, c):
    """The exact McNemar p written the naive way: 2 sum C(n, k) / 2^n overflows a float at n = 1,024."""
    n, k = b + c, min(b, c)
    scale = 2.0**n  # OverflowError from n = 1,024 on (before any sum is formed)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / scale)


@pytest.fixture(scope="module")
def claimed():
    return check_calculator(shortcut, claims="shortcut", max_examples=3, grid="small")


@pytest.fixture(scope="module")
def overflowing():
    return check_calculator(naive_exact, "pvalue", max_examples=3, grid="small")


def test_the_committed_schema_is_what_the_declaration_generates():
    ((path, text),) = generated_file().items()
    assert path == CONFORMANCE_SCHEMA_FILE and path.read_text() == text, "run llm-power-verified contract regenerate"


def test_json_is_valid_and_keeps_the_claim_and_the_correct_quantity_apart(claimed, overflowing):
    for result in (claimed, overflowing):
        document = json.loads(render_conformance(result, "json", source="--python x.py:f"))
        jsonschema.validate(document, SCHEMA)
        assert document["source"] == "--python x.py:f" and len(document["deviations"]) == len(result.deviations)
    document = json.loads(render_conformance(claimed, "json"))
    assert document["claimed_convention"] == document["convention"] == "shortcut"
    assert document["error_against_claim"] <= 1e-9  # the same formula as the candidate: rounding only
    assert document["error_against_correct"] > 0.4  # about N*/2 (Lemma 1)


def test_a_damaged_document_is_refused_by_the_schema(claimed):
    document = json.loads(render_conformance(claimed, "json"))
    for damage in ({"unknown": 1}, {"conforms": "yes"}, {"failures": [{"kind": "boom", "message": ""}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**document, **damage}, SCHEMA)


def test_terminal_and_markdown_state_what_each_number_is_against(claimed):
    for kind in ("table", "markdown"):
        text = render_conformance(claimed, kind)
        assert claimed.summary in text
        assert "claimed convention" in text and "error against its claim" in text
        assert "error against the correct quantity (the paired N*)" in text
        assert "the (1 - rho) shortcut" in text  # what the found convention computes
        assert "Deviation map over (delta, rho to 0.1)" in text
    markdown = render_conformance(claimed, "markdown")
    assert "| delta | rho to 0.1 | points | failed | worst error vs the paired N* | worst error vs claim |" in markdown


def test_an_overflow_is_reported_with_its_threshold_and_counterexample(overflowing):
    failure = next(item for item in overflowing.failures if item.kind == "overflow")
    assert 1000 < failure.threshold <= 1100  # 2.0 ** 1024 overflows a double
    text = render_conformance(overflowing, "table")
    assert "overflow" in text and f"{failure.threshold:,.0f}" in text.replace(".0 ", " ")
    assert "Deviation map over (b + c, b / (b + c) to 0.1)" in text
    rows = map_rows(overflowing)
    assert {row["b + c"] for row in rows} <= {
        point["b"] + point["c"] for point in (d.inputs for d in overflowing.deviations)
    }
    assert any(math.isinf(row["error_against_correct"]) for row in rows if row["b + c"] >= failure.threshold)


def test_convention_meanings_name_the_tails():
    assert "one-sided" in convention_meaning("paired-one-sided") and "z_{1-alpha}" in convention_meaning(
        "paired-one-sided"
    )
    assert "both arms' total" in convention_meaning("two-sample-arcsine-total")
    assert convention_meaning(None).startswith("no candidate")


def _dom(path):
    if BROWSER is None:
        if os.environ.get("CI"):
            pytest.fail("CI runs the HTML report in Chromium; .ci/run installs Debian's chromium")
        pytest.skip("no Chromium installed (CI installs it)")
    command = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-logging=stderr",
        "--v=0",
        f"--user-data-dir={path.parent / 'profile'}",
        "--dump-dom",
        path.as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, result.stderr


def test_html_page_renders_in_a_browser_with_the_figure_and_the_facts(claimed, overflowing, tmp_path):
    for name, result in (("claimed", claimed), ("overflowing", overflowing)):
        path = tmp_path / f"{name}.html"
        page = render_conformance(result, "html", source="--command 'tool <b>{p_a}</b>'")
        # Self-contained: nothing is fetched (XML namespace names in the SVG are names, not addresses).
        assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//)""", page) and "<link" not in page
        path.write_text(page, encoding="utf-8")
        dom, log = _dom(path)
        body = re.search(r"<body[^>]*>", dom).group(0)
        assert 'data-ready="ok"' in body and "data-errors" not in body, body
        assert "Uncaught" not in log
        assert "&lt;b&gt;{p_a}&lt;/b&gt;" in dom  # the source is text, not markup
        figure = dom[dom.index('id="figure-deviation-map"') :]
        assert figure.index("<svg") < figure.index("</figure>")
        assert dom.count("<tr>") >= len(result.deviations)  # the map's cells and every grid point
        for part in ('id="headline"', 'id="failures"', 'id="map-table"', 'id="point-table"', 'id="candidate-table"'):
            assert part in dom
    assert "error against its claim" in dom and "error against the correct quantity (the exact McNemar p)" in dom


def test_without_matplotlib_the_page_says_so_in_place_of_the_figure(claimed, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an import of it now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    page = render_conformance(claimed, "html")
    assert "the deviation figure needs matplotlib: pip install" in page and "<svg" not in page
    assert 'id="map-table"' in page  # the map is still there, as a table
