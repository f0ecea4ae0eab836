"""statsmodels, scipy and pingouin functions of the conformance run, and the documented formulas of G*Power and Cohen.

Each entry's claim is what the tool's own documentation says the function computes; the source names that
documentation.  The G*Power and Cohen entries evaluate the formulas of :mod:`crosscheck.documented` (those programs
and books cannot run here): their records say "reproduced from documentation", never that the tool was run.
"""

from __future__ import annotations

from crosscheck.tool_adapters import ToolFunction

#: Candidate names of the quantities' convention tables (llm_power_verified.testing), as the claims use them.
EXACT, CHI2, CHI2_CORRECTED = "exact", "chi2", "chi2-corrected"
T_TWO_TAILS, T_ONE_TAIL, T_NORMAL = "noncentral-t", "noncentral-t-upper-tail", "normal"

_STATSMODELS_POWER = "from statsmodels.stats.power import NormalIndPower, TTestPower\n"
_PROPORTION = "from statsmodels.stats.proportion import proportion_effectsize\n"
_MCNEMAR = "from statsmodels.stats.contingency_tables import mcnemar\n"
#: The time limit of one call of a function that builds a table or a Python list of b + c rows (its time-out threshold
#: is searched by bisection, one call per step).
SLOW_TIMEOUT = 0.25
_ROOT = "the tool solves for n with a root finder (brentq): its n carries the root finder's error, well below 1e-6"

PYTHON_TOOLS = (
    ToolFunction(
        key="statsmodels.NormalIndPower.solve_power",
        family="statsmodels",
        tool="statsmodels",
        function="NormalIndPower().solve_power(effect_size=proportion_effectsize(p_a, p_b), ratio=1)",
        quantity="required_n",
        language="python",
        template=(
            "NormalIndPower().solve_power(effect_size=proportion_effectsize({p_a!r}, {p_b!r}), alpha={alpha!r}, "
            "power={power!r}, ratio=1.0)"
        ),
        claim="two-sample-arcsine",
        claim_source=(
            "statsmodels docs, NormalIndPower: z-test for two independent samples, nobs1 per sample with "
            "ratio = nobs2/nobs1; proportion_effectsize is Cohen's h"
        ),
        distribution="statsmodels",
        setup=_STATSMODELS_POWER + _PROPORTION,
    ),
    ToolFunction(
        key="statsmodels.TTestPower.solve_power.nobs",
        family="statsmodels",
        tool="statsmodels",
        function="TTestPower().solve_power(effect_size=d, alpha=alpha, power=power) (solves nobs)",
        quantity="required_n_paired_t",
        language="python",
        template="TTestPower().solve_power(effect_size={effect_size!r}, alpha={alpha!r}, power={power!r})",
        claim=T_TWO_TAILS,
        claim_source=(
            "statsmodels docs, TTestPower: power of a one-sample (or paired) t-test, two-sided by default "
            "(both tails of the noncentral t)"
        ),
        distribution="statsmodels",
        setup=_STATSMODELS_POWER,
        tolerance=1e-6,
        tolerance_reason=_ROOT,
    ),
    ToolFunction(
        key="statsmodels.TTestPower.power",
        family="statsmodels",
        tool="statsmodels",
        function="TTestPower().power(effect_size=d, nobs=n, alpha=alpha)",
        quantity="power_paired_t",
        language="python",
        template="TTestPower().power(effect_size={effect_size!r}, nobs={n!r}, alpha={alpha!r})",
        claim=T_TWO_TAILS,
        claim_source="statsmodels docs, TTestPower.power: two-sided by default (both tails of the noncentral t)",
        distribution="statsmodels",
        setup=_STATSMODELS_POWER,
    ),
    ToolFunction(
        key="statsmodels.mcnemar.exact",
        family="statsmodels",
        tool="statsmodels",
        function="mcnemar([[0, b], [c, 0]], exact=True).pvalue",
        quantity="pvalue",
        language="python",
        template="mcnemar([[0, {b!r}], [{c!r}, 0]], exact=True).pvalue",
        claim=EXACT,
        claim_source="statsmodels docs, contingency_tables.mcnemar: exact=True uses the binomial distribution",
        distribution="statsmodels",
        setup=_MCNEMAR,
    ),
    ToolFunction(
        key="statsmodels.mcnemar.chi2-corrected",
        family="statsmodels",
        tool="statsmodels",
        function="mcnemar([[0, b], [c, 0]], exact=False, correction=True).pvalue",
        quantity="pvalue",
        language="python",
        template="mcnemar([[0, {b!r}], [{c!r}, 0]], exact=False, correction=True).pvalue",
        claim=CHI2_CORRECTED,
        claim_source="statsmodels docs, contingency_tables.mcnemar: exact=False, correction=True is the "
        "continuity-corrected chi-square",
        distribution="statsmodels",
        setup=_MCNEMAR,
    ),
    ToolFunction(
        key="statsmodels.mcnemar.chi2",
        family="statsmodels",
        tool="statsmodels",
        function="mcnemar([[0, b], [c, 0]], exact=False, correction=False).pvalue",
        quantity="pvalue",
        language="python",
        template="mcnemar([[0, {b!r}], [{c!r}, 0]], exact=False, correction=False).pvalue",
        claim=CHI2,
        claim_source="statsmodels docs, contingency_tables.mcnemar: exact=False, correction=False is the chi-square",
        distribution="statsmodels",
        setup=_MCNEMAR,
    ),
    ToolFunction(
        key="scipy.binomtest",
        family="scipy",
        tool="scipy",
        function="binomtest(b, b + c, 0.5).pvalue",
        quantity="pvalue",
        language="python",
        template="binomtest({b!r}, {b!r} + {c!r}, 0.5).pvalue",
        claim=EXACT,
        claim_source="scipy docs, scipy.stats.binomtest: exact two-sided binomial test (the exact McNemar test "
        "on the discordant pairs)",
        distribution="scipy",
        setup="from scipy.stats import binomtest\n",
    ),
    ToolFunction(
        key="pingouin.power_ttest.power",
        family="pingouin",
        tool="pingouin",
        function='power_ttest(d=d, n=n, alpha=alpha, contrast="paired")',
        quantity="power_paired_t",
        language="python",
        template='power_ttest(d={effect_size!r}, n={n!r}, alpha={alpha!r}, contrast="paired")',
        claim=T_TWO_TAILS,
        claim_source="pingouin docs, power_ttest: noncentral t power, alternative='two-sided' by default",
        distribution="pingouin",
        setup="from pingouin import power_ttest\n",
    ),
    ToolFunction(
        key="pingouin.power_ttest.n",
        family="pingouin",
        tool="pingouin",
        function='power_ttest(d=d, power=power, alpha=alpha, contrast="paired") (solves n)',
        quantity="required_n_paired_t",
        language="python",
        template='power_ttest(d={effect_size!r}, power={power!r}, alpha={alpha!r}, contrast="paired")',
        claim=T_TWO_TAILS,
        claim_source="pingouin docs, power_ttest: n solved with brentq on the two-sided noncentral t power",
        distribution="pingouin",
        setup="from pingouin import power_ttest\n",
        tolerance=1e-6,
        tolerance_reason=_ROOT,
    ),
    *(
        ToolFunction(
            key=f"pingouin.chi2_mcnemar.{label}",
            family="pingouin",
            tool="pingouin",
            function=f"chi2_mcnemar(data, 'x', 'y', correction={correction})[1]['{column}']",
            quantity="pvalue",
            language="python",
            # One concordant pair of each kind keeps the crosstab 2 x 2 (concordant pairs do not enter McNemar).
            template=(
                "chi2_mcnemar(DataFrame({{'x': [1] * {b!r} + [0] * {c!r} + [0, 1], 'y': [0] * {b!r} + [1] * {c!r} "
                "+ [0, 1]}}), 'x', 'y', correction=CORRECTION)[1]['COLUMN'].iloc[0]"
            )
            .replace("CORRECTION", str(correction))
            .replace("COLUMN", column),
            claim=claim,
            claim_source=f"pingouin docs, chi2_mcnemar: '{column}' is the {description}",
            distribution="pingouin",
            setup="from pandas import DataFrame\nfrom pingouin import chi2_mcnemar\n",
            timeout=SLOW_TIMEOUT,
        )
        for label, correction, column, claim, description in (
            ("p_exact", True, "p_exact", EXACT, "exact binomial p-value"),
            ("p_approx.corrected", True, "p_approx", CHI2_CORRECTED, "chi-square p with the continuity correction"),
            ("p_approx", False, "p_approx", CHI2, "chi-square p without the continuity correction"),
        )
    ),
    *(
        ToolFunction(
            key=f"documented.{name}",
            family="documented",
            tool=tool,
            function=procedure,
            quantity="required_n",
            language="documented",
            template=f"DOCUMENTED[{index}].per_arm({{p_a!r}}, {{p_b!r}}, {{alpha!r}}, {{power!r}})",
            claim=convention,
            claim_source=f"reproduced from documentation: {source}",
            distribution=f"{tool} (documented formula; the program was not run)",
            setup="from crosscheck.documented import DOCUMENTED\n",
        )
        for index, name, tool, procedure, convention, source in (
            (
                2,
                "gpower.two-proportions",
                "G*Power 3.1",
                "z tests, proportions: difference between two independent proportions",
                "two-proportion-z",
                "Faul, Erdfelder, Buchner and Lang (2009); G*Power 3.1 manual",
            ),
            (
                0,
                "cohen.two-sample-h",
                "Cohen (1988)",
                "Ch. 6, two independent proportions via h",
                "two-sample-arcsine",
                "Cohen (1988), Ch. 6",
            ),
            (
                1,
                "cohen.one-sample-h",
                "Cohen (1988)",
                "Ch. 6, one sample against a fixed proportion via h",
                "one-sample-arcsine",
                "Cohen (1988), Ch. 6",
            ),
        )
    ),
)
