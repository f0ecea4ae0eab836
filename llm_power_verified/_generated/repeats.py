"""Closed forms derived in derivations/repeats.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/repeats.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["item_mean_variance", "required_items_repeated", "resolution_ratio_repeated", "optimal_generations", "generation_share"]


def item_mean_variance(between_variance, within_variance, generations):
    """Variance of an item mean over K generations, sigma_b^2 + sigma_w^2 / K.

    Source: one-way random-effects model y_ij = mu + b_i + e_ij.
    SymPy: between_variance + within_variance/generations
    """
    return between_variance + within_variance/generations


def required_items_repeated(gap, between_variance, within_variance, generations, alpha, power, sides):
    """Unrounded items N*(K) for a paired Wald test of item means over K generations of both models.

    Source: paper Eq. 3 with Var(D_i) = sigma_item^2 + sigma_w^2 / K.
    SymPy: (between_variance + within_variance/generations)*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/gap**2
    """
    return (between_variance + within_variance/generations)*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/gap**2


def resolution_ratio_repeated(n, gap, between_variance, within_variance, generations, alpha, power, sides):
    """Resolution ratio q(K) = N / N*(K) with K generations of both models per item.

    Source: paper Definition 1 with Var(D_i) = sigma_item^2 + sigma_w^2 / K.
    SymPy: gap**2*n/((between_variance + within_variance/generations)*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2)
    """
    return gap**2*n/((between_variance + within_variance/generations)*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2)


def optimal_generations(cost_item, cost_generation, models, between_variance, within_variance):
    """K* minimising the cost N*(K) (c_I + m K c_G) over real K > 0.

    Source: dC/dK = 0 for C(K) = N*(K) (c_I + m K c_G).
    SymPy: sqrt(cost_item)*sqrt(within_variance)/(sqrt(between_variance)*sqrt(cost_generation)*sqrt(models))
    """
    return numpy.sqrt(cost_item)*numpy.sqrt(within_variance)/(numpy.sqrt(between_variance)*numpy.sqrt(cost_generation)*numpy.sqrt(models))


def generation_share(between_variance, within_variance, generations):
    """Share (sigma_w^2 / K) / (sigma_b^2 + sigma_w^2 / K) of the variance more generations could remove.

    Source: one-way random-effects model y_ij = mu + b_i + e_ij.
    SymPy: within_variance/(generations*(between_variance + within_variance/generations))
    """
    _t0 = within_variance/generations
    return _t0/(_t0 + between_variance)
