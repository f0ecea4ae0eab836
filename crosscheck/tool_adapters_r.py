"""R ``stats`` and ``pwr`` functions of the conformance run, evaluated in a persistent R session.

Each template is an R expression; R prints its value at 17 significant digits
(:class:`crosscheck.r_session.RSession`).  The claims quote R's help pages: ``power.t.test``'s ``strict = FALSE``
(the default) counts only the tail in the direction of the effect, ``strict = TRUE`` both; ``mcnemar.test``
applies its continuity correction only where the table is not symmetric.
"""

from __future__ import annotations

from crosscheck.tool_adapters import ToolFunction
from crosscheck.tool_adapters_python import CHI2, CHI2_CORRECTED, EXACT, T_ONE_TAIL, T_TWO_TAILS

_UNIROOT = (
    "R solves for n with uniroot at its default tol = .Machine$double.eps^0.25 (an absolute error in n of up to "
    "about 1e-4, so a relative error up to 1e-4 at n near 1)"
)


def _t_test(strict: bool) -> tuple[ToolFunction, ToolFunction]:
    flag = "TRUE" if strict else "FALSE"
    claim = T_TWO_TAILS if strict else T_ONE_TAIL
    source = "R help ?power.t.test: 'strict: use strict interpretation in two-sided case'; " + (
        "TRUE adds the opposite tail's rejection probability" if strict else "the default FALSE counts one tail"
    )
    return (
        ToolFunction(
            key=f"R.power.t.test.n.strict={flag}",
            family="r-stats",
            tool="R stats",
            function=f'power.t.test(power, delta = d, sd = 1, type = "paired", strict = {flag})$n',
            quantity="required_n_paired_t",
            language="r",
            template=(
                f"power.t.test(delta = {{effect_size!r}}, sd = 1, sig.level = {{alpha!r}}, power = {{power!r}}, "
                f'type = "paired", strict = {flag})$n'
            ),
            claim=claim,
            claim_source=source,
            distribution="R",
            tolerance=1e-4,
            tolerance_reason=_UNIROOT,
        ),
        ToolFunction(
            key=f"R.power.t.test.power.strict={flag}",
            family="r-stats",
            tool="R stats",
            function=f'power.t.test(n, delta = d, sd = 1, type = "paired", strict = {flag})$power',
            quantity="power_paired_t",
            language="r",
            template=(
                f"power.t.test(n = {{n!r}}, delta = {{effect_size!r}}, sd = 1, sig.level = {{alpha!r}}, "
                f'type = "paired", strict = {flag})$power'
            ),
            claim=claim,
            claim_source=source,
            distribution="R",
        ),
    )


R_TOOLS = (
    ToolFunction(
        key="R.power.prop.test",
        family="r-stats",
        tool="R stats",
        function="power.prop.test(p1 = p_a, p2 = p_b, sig.level, power)$n",
        quantity="required_n",
        language="r",
        template="power.prop.test(p1 = {p_a!r}, p2 = {p_b!r}, sig.level = {alpha!r}, power = {power!r})$n",
        claim="two-proportion-z",
        claim_source="R help ?power.prop.test: n per group for a two-sample test for proportions (pooled null)",
        distribution="R",
        tolerance=1e-4,
        tolerance_reason=_UNIROOT,
    ),
    *_t_test(strict=False),
    *_t_test(strict=True),
    *(
        ToolFunction(
            key=f"R.mcnemar.test.correct={flag}",
            family="r-stats",
            tool="R stats",
            function=f"mcnemar.test(matrix(c(0, c, b, 0), 2), correct = {flag})$p.value",
            quantity="pvalue",
            language="r",
            template=f"mcnemar.test(matrix(c(0, {{c!r}}, {{b!r}}, 0), 2), correct = {flag})$p.value",
            claim=claim,
            claim_source=f"R help ?mcnemar.test: chi-squared statistic, correct = {flag} "
            + ("applies the continuity correction" if flag == "TRUE" else "without the continuity correction"),
            distribution="R",
        )
        for flag, claim in (("TRUE", CHI2_CORRECTED), ("FALSE", CHI2))
    ),
    ToolFunction(
        key="R.binom.test",
        family="r-stats",
        tool="R stats",
        function="binom.test(b, b + c)$p.value",
        quantity="pvalue",
        language="r",
        template="binom.test({b!r}, {b!r} + {c!r})$p.value",
        claim=EXACT,
        claim_source="R help ?binom.test: exact test of a simple null hypothesis about the probability of success",
        distribution="R",
    ),
    ToolFunction(
        key="R.pwr.2p.test",
        family="r-pwr",
        tool="R pwr",
        function="pwr.2p.test(h = ES.h(p_a, p_b), sig.level, power)$n",
        quantity="required_n",
        language="r",
        template="pwr.2p.test(h = ES.h({p_a!r}, {p_b!r}), sig.level = {alpha!r}, power = {power!r})$n",
        claim="two-sample-arcsine",
        claim_source="pwr docs, pwr.2p.test: power for two proportions (same sample sizes), n per group, Cohen's h",
        distribution="R:pwr",
        tolerance=1e-4,
        tolerance_reason=_UNIROOT,
    ),
    ToolFunction(
        key="R.pwr.p.test",
        family="r-pwr",
        tool="R pwr",
        function="pwr.p.test(h = ES.h(p_a, p_b), sig.level, power)$n",
        quantity="required_n",
        language="r",
        template="pwr.p.test(h = ES.h({p_a!r}, {p_b!r}), sig.level = {alpha!r}, power = {power!r})$n",
        claim="one-sample-arcsine",
        claim_source="pwr docs, pwr.p.test: power for a proportion test (one sample), Cohen's h",
        distribution="R:pwr",
        tolerance=1e-4,
        tolerance_reason=_UNIROOT,
    ),
    ToolFunction(
        key="R.pwr.t.test.n",
        family="r-pwr",
        tool="R pwr",
        function='pwr.t.test(d, sig.level, power, type = "paired")$n',
        quantity="required_n_paired_t",
        language="r",
        template='pwr.t.test(d = {effect_size!r}, sig.level = {alpha!r}, power = {power!r}, type = "paired")$n',
        claim=T_TWO_TAILS,
        claim_source="pwr docs, pwr.t.test: two-sided by default, both tails of the noncentral t",
        distribution="R:pwr",
        tolerance=1e-4,
        tolerance_reason=_UNIROOT,
    ),
    ToolFunction(
        key="R.pwr.t.test.power",
        family="r-pwr",
        tool="R pwr",
        function='pwr.t.test(n, d, sig.level, type = "paired")$power',
        quantity="power_paired_t",
        language="r",
        template='pwr.t.test(n = {n!r}, d = {effect_size!r}, sig.level = {alpha!r}, type = "paired")$power',
        claim=T_TWO_TAILS,
        claim_source="pwr docs, pwr.t.test: two-sided by default, both tails of the noncentral t",
        distribution="R:pwr",
    ),
)
