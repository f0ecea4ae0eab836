"""Closed forms derived in derivations/e_process.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/e_process.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["log_e_beta_mixture", "log_e_normal_mixture", "normal_mixture_boundary"]


def log_e_beta_mixture(b, c, prior_a, prior_b):
    """log e-value of the Beta(prior_a, prior_b) mixture over the discordant signs (b won by A, c by B).

    Source: paper Eq. 24 with a Beta prior.
    SymPy: (b + c)*log(2) - loggamma(prior_a) - loggamma(prior_b) + loggamma(b + prior_a) + loggamma(c + prior_b) + loggamma(prior_a + prior_b) - loggamma(b + c + prior_a + prior_b)
    """
    _t0 = prior_a + prior_b
    _t1 = b + c
    return _t1*numpy.log(2) + scipy.special.gammaln(_t0) - scipy.special.gammaln(prior_a) - scipy.special.gammaln(prior_b) - scipy.special.gammaln(_t0 + _t1) + scipy.special.gammaln(b + prior_a) + scipy.special.gammaln(c + prior_b)


def log_e_normal_mixture(s, v, rho_mix):
    """log of the normal-mixture supermartingale sqrt(rho/(v + rho)) exp(s^2 / (2 (v + rho))).

    Source: Howard et al. (2021), two-sided normal mixture.
    SymPy: s**2/(2*(rho_mix + v)) + log(rho_mix)/2 - log(rho_mix + v)/2
    """
    _t0 = rho_mix + v
    return -1/2*numpy.log(_t0) + (1/2)*numpy.log(rho_mix) + (1/2)*s**2/_t0


def normal_mixture_boundary(v, rho_mix, alpha):
    """Two-sided normal-mixture boundary on |S_t|, crossed with probability <= alpha over all t.

    Source: Howard et al. (2021), Ville's inequality.
    SymPy: sqrt(rho_mix + v)*sqrt(log((rho_mix + v)/(alpha**2*rho_mix)))
    """
    _t0 = rho_mix + v
    return numpy.sqrt(_t0)*numpy.sqrt(numpy.log(_t0/(alpha**2*rho_mix)))
