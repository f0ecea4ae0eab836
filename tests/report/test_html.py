"""The HTML report in a real browser (headless Chromium), and the figure folder.

The browser test is skipped only when no Chromium is installed and CI is not
set; ``.ci/run`` installs Debian's ``chromium``, so in CI a missing browser
fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import llm_power_verified as lpv
from llm_power_verified.cli.main import main
from llm_power_verified.examples import shipped_example
from llm_power_verified.report import render

BROWSER = next(
    (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None
)
HOSTILE = "<script>document.body.dataset.ready='owned'</script>"


def _browser():
    if BROWSER is None:
        if os.environ.get("CI"):
            pytest.fail("CI runs the HTML report in Chromium; .ci/run installs Debian's chromium")
        pytest.skip("no Chromium installed (CI installs it)")
    return BROWSER


def _dom(path, fragment: str = "") -> tuple[str, str]:
    """The rendered DOM after the page's script ran, and the browser's console log."""
    command = [
        _browser(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-logging=stderr",
        "--v=0",
        f"--user-data-dir={path.parent / 'profile'}",
        "--dump-dom",
        f"{path.as_uri()}{fragment}",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, result.stderr


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    rng = np.random.default_rng(0)
    scores = (rng.random((400, 5)) < [0.75, 0.7, 0.69, 0.6, 0.5]).astype(float)
    matrix = lpv.from_array(scores, models=["alpha", "beta", HOSTILE, "delta & co", "eps"])
    result = lpv.audit_leaderboard(matrix, "all", n_resamples=100)
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(render(result, "html"), encoding="utf-8")
    return path, result


def test_page_renders_in_a_browser_with_headline_one_row_per_pair_and_no_script_error(page):
    path, result = page
    dom, log = _dom(path, "#selftest")
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-ready="ok"' in body and "data-errors" not in body, body
    assert 'data-selftest="sorted"' in body  # clicking the q header sorted the pair table
    assert "Uncaught" not in log
    assert dom.count('<tr class="pair">') == len(result.pairs) == 10
    assert dom.count('<tr class="model">') == 5
    headline = dom[dom.index('id="headline"') : dom.index('id="legend"')]
    assert "400 items x 5 models" in headline and "Adjacent gaps" in headline and "All 10 pairs" in headline
    assert dom.index('id="headline"') < dom.index('id="legend"') < dom.index('id="models"')


def test_input_text_is_escaped_and_nothing_is_fetched(page):
    path, _ = page
    text = path.read_text(encoding="utf-8")
    assert HOSTILE not in text and "&lt;script&gt;" in text
    assert text.count("<script>") == 1
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "Content-Security-Policy" in text
    dom, _ = _dom(path)
    assert 'data-ready="ok"' in re.search(r"<body[^>]*>", dom).group(0)


def test_figures_are_inline_svg():
    result = lpv.audit_leaderboard(shipped_example(), n_resamples=0, n_cluster_resamples=0)
    text = render(result, "html")
    for name in ("resolution", "forest", "efficiency"):
        assert f'<figure id="figure-{name}"><svg' in text


def test_plot_folder_gets_every_figure_as_png_and_svg(tmp_path, capsys):
    folder = tmp_path / "figures"
    assert (
        main(["audit", "--n-resamples", "0", "--n-cluster-resamples", "0", "--plot", str(folder), "--format", "json"])
        == 0
    )
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        f"{name}.{kind}" for name in ("resolution", "efficiency", "forest") for kind in ("png", "svg")
    )
    assert (folder / "forest.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (folder / "forest.svg").read_text().lstrip().startswith("<?xml")
    capsys.readouterr()
    assert main(["audit", "--plot", str(tmp_path / "missing" / "figures"), "--n-resamples", "0"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_accuracies_only_page_renders_in_a_browser(tmp_path):
    import pandas as pd

    from llm_power_verified.io.accuracy_table import read_accuracies
    from llm_power_verified.leaderboard.accuracies import audit_accuracies

    frame = pd.DataFrame({"model": ["a", HOSTILE, "c"], "accuracy": ["71.20", "70.95", "64.00"], "n": 2000})
    audit = audit_accuracies(read_accuracies(frame), rho=0.5)
    path = tmp_path / "summary.html"
    path.write_text(render(audit, "html"), encoding="utf-8")
    assert HOSTILE not in path.read_text(encoding="utf-8")
    dom, log = _dom(path)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-ready="ok"' in body and "data-errors" not in body and "Uncaught" not in log
    assert dom.count('<tr class="pair">') == 2 and dom.count('<tr class="model">') == 3
    assert "ASSUMING rho = 0.5" in dom[dom.index('id="headline"') : dom.index('id="legend"')]
