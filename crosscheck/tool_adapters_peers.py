"""LLM-evaluation packages from PyPI in the conformance run: their power, sample-size and McNemar functions.

Install them with ``python -m pip install errorbars==0.2.4 deltagate==0.1.1 abeval==0.1.0 evalconfidence==0.1.1
ezpwr==0.0.8 abforge==0.1.0`` (none downgrades NumPy, SciPy or pandas; abforge adds plotly).  A package that is not
installed is recorded as skipped with the reason.

Where a package takes something other than (p_a, p_b, rho), the template computes its input the way the package's
documentation says to: the baseline accuracy is the lower of the two (errorbars requires baseline + delta <= 1),
``sd_diff`` from the package's own helper where it has one, deltagate's documented ``sqrt(r_ab + r_ba)`` from the
disagreement rates, evalconfidence's documented ``baseline_var = 2 p (1 - p)`` for planning without a pilot.  Those
recipes are part of the claim and are stated in each entry's source.
"""

from __future__ import annotations

from crosscheck.tool_adapters import ToolFunction
from crosscheck.tool_adapters_python import CHI2, CHI2_CORRECTED, EXACT, SLOW_TIMEOUT, T_TWO_TAILS

#: The versions the records were made with (the tests compare a regeneration only at these).
PEER_VERSIONS = {
    "errorbars": "0.2.4",
    "deltagate": "0.1.1",
    "abeval": "0.1.0",
    "evalconfidence": "0.1.1",
    "ezpwr": "0.0.8",
    "abforge": "0.1.0",
}
INSTALL = "python -m pip install " + " ".join(f"{name}=={version}" for name, version in PEER_VERSIONS.items())

# The discordant rate p_01 + p_10 at (p_a, p_b, rho): p_a + p_b - 2 p_11 with p_11 = p_a p_b + rho sd_a sd_b.
_DISAGREEMENT = (
    "def disagreement_rate(p_a, p_b, rho):\n"
    "    return p_a + p_b - 2 * (p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b)))\n"
)
_SCORES = "[1] * {b!r} + [0] * {c!r}, [0] * {b!r} + [1] * {c!r}"
_RESULTS = "[ItemResult(str(i), '{model}', float(s)) for i, s in enumerate([1] * {{b!r}} + [0] * {{c!r}} + [0, 1])]"


def _peer(
    key: str,
    family: str,
    function: str,
    quantity: str,
    template: str,
    claim: str | None,
    source: str,
    setup: str,
    timeout: float = 5.0,
    on_request: bool = False,
) -> ToolFunction:
    return ToolFunction(
        key=key,
        family=family,
        tool=family,
        function=function,
        quantity=quantity,
        language="python",
        template=template,
        claim=claim,
        claim_source=source,
        distribution=family,
        setup=setup,
        timeout=timeout,
        on_request=on_request,
    )


PEERS = (
    _peer(
        "errorbars.questions_needed",
        "errorbars",
        "questions_needed(delta=|p_a - p_b|, baseline_accuracy=min(p_a, p_b), alpha, power, rho).n_questions",
        "required_n",
        "questions_needed(delta=abs({p_a!r} - {p_b!r}), baseline_accuracy=min({p_a!r}, {p_b!r}), alpha={alpha!r}, "
        "power={power!r}, rho={rho!r}).n_questions",
        "paired-one-p-lower",
        "errorbars.power.questions_needed docstring: 'Number of questions needed to detect a paired mean difference',"
        " n = (z_{a/2} + z_b)^2 2 V (1 - rho) / delta^2 with V = p (1 - p) of the baseline accuracy (a paired "
        "formula with one p; the baseline is the lower accuracy, as baseline + delta <= 1 is required)",
        "from errorbars.power import questions_needed\n",
    ),
    _peer(
        "errorbars.mcnemar_exact",
        "errorbars",
        "mcnemar_exact(scores_a, scores_b).p_value (b and c discordant pairs)",
        "pvalue",
        f"mcnemar_exact({_SCORES}).p_value",
        EXACT,
        "errorbars.compare.mcnemar_exact docstring: 'Exact (binomial) two-sided McNemar test ... Matches "
        "statsmodels ... mcnemar(..., exact=True)'",
        "from errorbars.compare import mcnemar_exact\n",
        SLOW_TIMEOUT,
    ),
    _peer(
        "deltagate.mcnemar_test.exact",
        "deltagate",
        "mcnemar_test(b, c, exact=True).p_value",
        "pvalue",
        "mcnemar_test({b!r}, {c!r}, exact=True).p_value",
        EXACT,
        "deltagate.mcnemar_test docstring: 'exact: use the exact binomial test'",
        "from deltagate import mcnemar_test\n",
        SLOW_TIMEOUT,
    ),
    _peer(
        "deltagate.mcnemar_test.chi2-corrected",
        "deltagate",
        "mcnemar_test(b, c, exact=False, continuity_correction=True).p_value",
        "pvalue",
        "mcnemar_test({b!r}, {c!r}, exact=False, continuity_correction=True).p_value",
        CHI2_CORRECTED,
        "deltagate.mcnemar_test docstring: 'continuity_correction: apply Edwards' continuity correction'",
        "from deltagate import mcnemar_test\n",
    ),
    _peer(
        "deltagate.mcnemar_test.chi2",
        "deltagate",
        "mcnemar_test(b, c, exact=False, continuity_correction=False).p_value",
        "pvalue",
        "mcnemar_test({b!r}, {c!r}, exact=False, continuity_correction=False).p_value",
        CHI2,
        "deltagate.mcnemar_test docstring: the chi-square with one degree of freedom",
        "from deltagate import mcnemar_test\n",
    ),
    _peer(
        "deltagate.min_samples_for_delta",
        "deltagate",
        "min_samples_for_delta(delta=p_a - p_b, sd_diff=sqrt(r_ab + r_ba), power, alpha)",
        "required_n",
        "min_samples_for_delta(delta={p_a!r} - {p_b!r}, sd_diff=math.sqrt(disagreement_rate({p_a!r}, {p_b!r}, "
        "{rho!r})), power={power!r}, alpha={alpha!r})",
        "paired-null-variance",
        "deltagate.min_samples_for_delta docstring: 'Minimum paired sample size'; 'For a paired binary metric, "
        "sd_diff = sqrt(r_ab + r_ba) approximately, where r_ab/r_ba are the disagreement rates' (with that recipe "
        "n = K (p_01 + p_10) / delta^2, the second moment sigma_D^2 + delta^2 in place of sigma_D^2)",
        "from deltagate import min_samples_for_delta\n" + _DISAGREEMENT,
    ),
    _peer(
        "deltagate.power_for_samples",
        "deltagate",
        "power_for_samples(n, delta=d, sd_diff=1, alpha)",
        "power_paired_t",
        "power_for_samples({n!r}, delta={effect_size!r}, sd_diff=1.0, alpha={alpha!r})",
        "normal-upper-tail",
        "deltagate.power_for_samples docstring: 'Power to detect delta with n paired samples (normal "
        "approximation)', power = Phi(|delta| sqrt(n) / sd_diff - z_a) (the upper tail only)",
        "from deltagate import power_for_samples\n",
    ),
    _peer(
        "abeval.sample_size",
        "abeval",
        "sample_size(delta=p_a - p_b, sd_diff=sd_diff_from_rates(p_a, p_b, rho), level=1 - alpha, power)",
        "required_n",
        "sample_size({p_a!r} - {p_b!r}, sd_diff_from_rates({p_a!r}, {p_b!r}, {rho!r}), level=1 - {alpha!r}, "
        "power={power!r})",
        "paired",
        "abeval.power.sample_size docstring: 'Paired items needed to detect a true difference delta', "
        "'Normal-approximation two-sided test on the mean of per-item differences'",
        "from abeval.power import sample_size, sd_diff_from_rates\n",
    ),
    _peer(
        "abeval.mcnemar_exact",
        "abeval",
        "mcnemar_exact(a, b)['p'] (b and c discordant pairs)",
        "pvalue",
        f"mcnemar_exact({_SCORES})['p']",
        EXACT,
        "abeval.compare.mcnemar_exact docstring: 'the exact two-sided binomial sign test on the discordant pairs'",
        "from abeval.compare import mcnemar_exact\n",
        SLOW_TIMEOUT,
    ),
    _peer(
        "evalconfidence.power.baseline_var",
        "evalconfidence",
        "power(baseline_var=2 p (1 - p), mde=|p_a - p_b|, alpha, power).n_required with p = min(p_a, p_b)",
        "required_n",
        "power(baseline_var=2 * min({p_a!r}, {p_b!r}) * (1 - min({p_a!r}, {p_b!r})), mde=abs({p_a!r} - {p_b!r}), "
        "alpha={alpha!r}, power={power!r}).n_required",
        "unpaired-wald-one-p-lower",
        "evalconfidence.power docstring: 'For binary unpaired planning without a pilot, pass baseline_var = 2 * p * "
        "(1 - p)' (n counts items per arm; unpaired per arm with one p, taken as the lower accuracy)",
        "from evalconfidence.power import power\n",
    ),
    _peer(
        "evalconfidence.compare.mcnemar",
        "evalconfidence",
        "compare(results_a, results_b).p_value (binary single-shot results: McNemar)",
        "pvalue",
        f"compare({_RESULTS.format(model='a')}, "
        "[ItemResult(str(i), 'b', float(s)) for i, s in enumerate([0] * {b!r} + [1] * {c!r} + [0, 1])]).p_value",
        None,
        "evalconfidence.compare docstring: binary single-shot results pair via McNemar; exact binomial at <= 25 "
        "discordant pairs (MCNEMAR_EXACT_MAX_DISCORDANT), else the continuity-corrected chi-square (a hybrid of "
        "two candidates: no single claim)",
        "from evalconfidence.compare import compare\nfrom evalconfidence.types import ItemResult\n",
        SLOW_TIMEOUT,
        # Two lists of b + c ItemResult objects: at 10^7 pairs several GB, and the time limit's alarm can land in a
        # garbage-collector callback, where Python ignores it, so the call runs on (the run is then done by name).
        on_request=True,
    ),
    _peer(
        "ezpwr.proportion.independent.solve_size",
        "ezpwr",
        "proportion.independent.inequality.solve_size(treatment_proportion=p_a, reference_proportion=p_b, "
        "alternative='two-sided', alpha, power)[1] (z-unpooled)",
        "required_n",
        "solve_size(treatment_proportion={p_a!r}, reference_proportion={p_b!r}, alternative='two-sided', "
        "alpha={alpha!r}, power={power!r})[1]",
        "unpaired-wald",
        "ezpwr docs, proportion.independent.inequality.solve_size: sample sizes of two independent groups, "
        "method='z-unpooled' by default",
        "from ezpwr.proportion.independent.inequality import solve_size\n",
    ),
    _peer(
        "ezpwr.mean.single.solve_power",
        "ezpwr",
        "mean.single.inequality.solve_power(diff=d, std=1, size=n, alpha) (dist='t')",
        "power_paired_t",
        "solve_power(diff={effect_size!r}, std=1.0, size={n!r}, alpha={alpha!r})",
        T_TWO_TAILS,
        "ezpwr docs, mean.single.inequality.solve_power: one-sample t (the paired t on differences), two-sided",
        "from ezpwr.mean.single.inequality import solve_power\n",
    ),
    _peer(
        "ezpwr.mean.single.solve_size",
        "ezpwr",
        "mean.single.inequality.solve_size(diff=d, std=1, alpha, power) (dist='t')",
        "required_n_paired_t",
        "solve_size(diff={effect_size!r}, std=1.0, alpha={alpha!r}, power={power!r})",
        T_TWO_TAILS,
        "ezpwr docs, mean.single.inequality.solve_size: one-sample t sample size, two-sided",
        "from ezpwr.mean.single.inequality import solve_size\n",
    ),
    _peer(
        "abforge.sample_size",
        "abforge",
        "sample_size(baseline_rate=p_b, min_detectable_effect=p_a / p_b - 1, alpha, power)",
        "required_n",
        "sample_size(baseline_rate={p_b!r}, min_detectable_effect={p_a!r} / {p_b!r} - 1, alpha={alpha!r}, "
        "power={power!r})",
        "two-proportion-z",
        "abforge.power.sample_size docstring: 'required sample size per variant for a proportions test' (pooled "
        "null variance)",
        "from abforge.power import sample_size\n",
    ),
)
