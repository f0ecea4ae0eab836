"""Calculators that cannot run here, reproduced from their documented formulas.

G*Power 3.1 is a Windows/macOS desktop program and Cohen (1988) is a book;
neither can be executed on this machine.  Each entry below states the
procedure, where its formula is documented, the formula we evaluate (through
this package's derived functions), and what could not be confirmed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llm_power_verified.power.conventions import required_n_unpaired
from llm_power_verified.power.shortcut import required_n_arcsine


@dataclass(frozen=True)
class DocumentedConvention:
    """A tool's documented sample-size convention: its formula, source and what could not be confirmed."""

    tool: str
    procedure: str
    source: str
    formula: str
    convention: str
    not_confirmed: str
    per_arm: Callable[[float, float, float, float], float]


DOCUMENTED = (
    DocumentedConvention(
        tool="Cohen (1988)",
        procedure="Ch. 6, difference between two independent proportions via h (equal n per sample)",
        source="Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed., Ch. 6",
        formula="z = h sqrt(n/2): n = 2K/h^2 per sample",
        convention="two-sample-arcsine",
        not_confirmed=(
            "the book is not available here: the chapter's equation and table numbers, and its tabled "
            "n at this h, are not checked; the formula follows from Var(2 arcsin sqrt(p-hat)) = 1/n per sample"
        ),
        per_arm=lambda p_a, p_b, alpha, power: float(
            required_n_arcsine(p_a, p_b, alpha, power, convention="two-sample")
        ),
    ),
    DocumentedConvention(
        tool="Cohen (1988)",
        procedure="Ch. 6, one sample tested against a fixed proportion (the form the paper cites as Eq. 6.3.2)",
        source="Cohen (1988), Ch. 6; the paper's Table 1 row 'Cohen 1988, Eq. 6.3.2, K/h^2'",
        formula="z = h sqrt(n): n = K/h^2",
        convention="one-sample-arcsine",
        not_confirmed="that Cohen's Eq. 6.3.2 is this one-sample form is the paper's statement, not checked here",
        per_arm=lambda p_a, p_b, alpha, power: float(
            required_n_arcsine(p_a, p_b, alpha, power, convention="one-sample")
        ),
    ),
    DocumentedConvention(
        tool="G*Power 3.1",
        procedure="z tests - Proportions: Difference between two independent proportions",
        source=(
            "Faul, Erdfelder, Buchner and Lang (2009), Behavior Research Methods 41, 1149-1160; "
            "G*Power 3.1 manual, z tests for two independent proportions"
        ),
        formula="pooled variance under H0, unpooled under H1: n = (z_{1-a/2} sqrt(2 pbar qbar) + z_{1-b} sqrt(pA qA + "
        "pB qB))^2 / delta^2 per group",
        convention="two-proportion-z",
        not_confirmed=(
            "G*Power cannot run here; the output at this case was not observed, and whether the "
            "program's default for this procedure pools the null variance exactly this way is our "
            "reading of its documentation"
        ),
        per_arm=lambda p_a, p_b, alpha, power: float(
            required_n_unpaired(p_a, p_b, alpha, power, variance="pooled-null")
        ),
    ),
)
