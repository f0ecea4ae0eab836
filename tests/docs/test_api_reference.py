"""The API reference has a page for every room of the package: each public subpackage and top-level module is an
autosummary entry of a page under reference/api/, and each page is in the reference's toctree."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import llm_power_verified

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "source" / "reference"


def _entries(page: Path) -> set[str]:
    """The names an ``.. autosummary::`` directive of ``page`` lists."""
    names, inside = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(".. autosummary::"):
            inside = True
        elif inside and line.startswith("   ") and not line.strip().startswith(":"):
            names.add(line.strip())
        elif inside and line and not line.startswith(" "):
            inside = False
    return names


def test_every_room_has_an_api_page():
    rooms = {
        f"llm_power_verified.{info.name}"
        for info in pkgutil.iter_modules(llm_power_verified.__path__)
        if not info.name.startswith("_")
    }
    documented = set().union(*(_entries(page) for page in (REFERENCE / "api").glob("*.rst")))
    assert {"llm_power_verified.cli", "llm_power_verified.parallel", "llm_power_verified.errors"} <= rooms
    assert sorted(rooms - documented) == []


def test_every_api_page_is_in_the_toctree():
    index = (REFERENCE / "index.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (api/[\w-]+)$", index, re.M))
    pages = {f"api/{page.stem}" for page in (REFERENCE / "api").glob("*.rst")}
    assert pages and sorted(pages - listed) == [] and sorted(listed - pages) == []
