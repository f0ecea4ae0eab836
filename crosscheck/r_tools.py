"""Run R through Rscript, with numbers passed back at 17 significant digits.

The functions called are pwr's (pwr.2p.test, pwr.p.test, ES.h) and stats' (power.prop.test, mcnemar.test,
binom.test).

R is needed only here.  Without it, :class:`RUnavailable` says which Debian
packages to install.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

DEBIAN_PACKAGES = "r-base-core r-cran-pwr"


class RUnavailable(RuntimeError):
    """R or its pwr package is missing."""


def rscript_path() -> str | None:
    """The path of Rscript, or None when R is not installed."""
    return shutil.which("Rscript")


def run_r(code: str, timeout: float = 120) -> list[str]:
    """Run R code; return its standard output lines.  Raise RUnavailable if R or pwr is missing."""
    path = rscript_path()
    if path is None:
        raise RUnavailable(
            "Rscript not found: install R and pwr with "
            f"`apt-get install -y --no-install-recommends {DEBIAN_PACKAGES}` (Debian packages {DEBIAN_PACKAGES})"
        )
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "call.R"
        script.write_text(code, encoding="utf-8")
        result = subprocess.run([path, "--vanilla", str(script)], capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        if "there is no package called" in result.stderr:
            raise RUnavailable(
                f"the R package pwr is missing: install the Debian package r-cran-pwr ({DEBIAN_PACKAGES})"
            )
        raise RuntimeError(
            f"Rscript failed: {result.stderr.strip().splitlines()[-1] if result.stderr.strip() else result.returncode}"
        )
    return result.stdout.splitlines()


EMIT = 'emit <- function(key, name, value) cat(key, name, sprintf("%.17g", value), "\\n")\n'


def run_calls(calls: dict[str, dict[str, str]]) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Evaluate R expressions; ``calls[key][output] = "R expression"``.

    Returns the values and the environment: R version and pwr version.
    """
    lines = ["suppressPackageStartupMessages(library(pwr))", EMIT]
    for key, outputs in calls.items():
        for name, expression in outputs.items():
            lines.append(f"emit({key!r}, {name!r}, {expression})")
    lines.append('cat("ENV", R.version.string, "\\n"); cat("PWR", as.character(packageVersion("pwr")), "\\n")')
    values: dict[str, dict[str, float]] = {}
    environment = {}
    for line in run_r("\n".join(lines)):
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "ENV":
            environment["R"] = " ".join(parts[1:])
        elif parts[0] == "PWR":
            environment["pwr"] = parts[1]
        else:
            key, name, value = parts[0], parts[1], parts[2]
            values.setdefault(key, {})[name] = float(value)
    return values, environment
