"""Lower tail of Binomial(n, 1/2) in log space, accurate far below 1e-300.

P(X <= k) is written as pmf(k) * F / 2, where F is the continued fraction of
the regularised incomplete beta function I_{1/2}(n - k, k + 1) (Numerical
Recipes 6.4, modified Lentz); at x = 1/2 its prefactor is exactly pmf(k)/2.
The log pmf uses Loader's (2000) saddle-point form, which keeps full relative
precision for n up to 10^9 and beyond.  Everything is vectorised.

References
----------
Loader, C. (2000). Fast and accurate computation of binomial probabilities.
Press, W. H. et al. (2007). Numerical Recipes, 3rd ed., Section 6.4.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betaln, gammaln

_LOG_2PI = math.log(2 * math.pi)
_LOG_2 = math.log(2.0)
_S0, _S1, _S2, _S3, _S4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188


def stirling_error(n: np.ndarray) -> np.ndarray:
    """log(n!) - log(sqrt(2 pi n) (n/e)^n), for n >= 1."""
    out = np.empty_like(n)
    large = n > 15
    nl = n[large]
    n2 = nl * nl
    out[large] = (_S0 - (_S1 - (_S2 - (_S3 - _S4 / n2) / n2) / n2) / n2) / nl
    ns = n[~large]
    out[~large] = gammaln(ns + 1) - (ns + 0.5) * np.log(ns) + ns - 0.5 * _LOG_2PI
    return out


def deviance(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """x log(x / mean) + mean - x, by a series when x is close to mean."""
    out = np.empty_like(x)
    close = np.abs(x - mean) < 0.1 * (x + mean)
    xf, mf = x[~close], mean[~close]
    out[~close] = xf * np.log(xf / mf) + mf - xf
    xc, mc = x[close], mean[close]
    v = (xc - mc) / (xc + mc)
    total = (xc - mc) * v
    term = 2 * xc * v
    v2 = v * v
    j = 1
    while True:
        term = term * v2
        updated = total + term / (2 * j + 1)
        if np.array_equal(updated, total):
            break
        total = updated
        j += 1
    out[close] = total
    return out


def log_pmf_half(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """log P(X = k) for X ~ Binomial(n, 1/2); k and n float arrays of whole numbers, 0 <= k <= n."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    out = -n * _LOG_2
    inner = (k > 0) & (k < n)
    ki, ni = k[inner], n[inner]
    mean = ni / 2
    lc = stirling_error(ni) - stirling_error(ki) - stirling_error(ni - ki) - deviance(ki, mean) - deviance(ni - ki, mean)
    lf = _LOG_2PI + np.log(ki) + np.log1p(-ki / ni)
    out = np.array(out, copy=True)
    out[inner] = lc - 0.5 * lf
    return out


def _continued_fraction(a: np.ndarray, b: np.ndarray, x: float | np.ndarray = 0.5) -> np.ndarray:
    """Numerical Recipes' betacf(a, b, x) by modified Lentz, vectorised over a, b (and x).

    Converges quickly for x < (a + 1) / (a + b + 2), which every caller ensures.
    """
    tiny = 1e-300
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), a.shape)
    qab, qap, qam = a + b, a + 1, a - 1
    c = np.ones_like(a)
    d = 1 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1 / d
    h = d.copy()
    active = np.ones(a.shape, dtype=bool)
    limit = int(20 * math.sqrt(float(np.max(a + b, initial=1.0)))) + 200
    for m in range(1, limit):
        index = np.flatnonzero(active)
        if index.size == 0:
            return h
        aa_, bb, qabi, qapi, qami, xi = a[index], b[index], qab[index], qap[index], qam[index], x[index]
        ci, di, hi = c[index], d[index], h[index]
        m2 = 2 * m
        coefficient = m * (bb - m) * xi / ((qami + m2) * (aa_ + m2))
        di = 1 + coefficient * di
        di = np.where(np.abs(di) < tiny, tiny, di)
        ci = 1 + coefficient / ci
        ci = np.where(np.abs(ci) < tiny, tiny, ci)
        di = 1 / di
        hi = hi * di * ci
        coefficient = -(aa_ + m) * (qabi + m) * xi / ((aa_ + m2) * (qapi + m2))
        di = 1 + coefficient * di
        di = np.where(np.abs(di) < tiny, tiny, di)
        ci = 1 + coefficient / ci
        ci = np.where(np.abs(ci) < tiny, tiny, ci)
        di = 1 / di
        step = di * ci
        hi = hi * step
        c[index], d[index], h[index] = ci, di, hi
        active[index[np.abs(step - 1) <= 2e-16]] = False
    raise ArithmeticError("binomial tail continued fraction did not converge")  # pragma: no cover


def log_lower_tail_half(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log P(X <= k), log P(X = k)) for X ~ Binomial(n, 1/2), with 0 <= k <= n/2.

    Also returns the log pmf, which the mid-p value needs.
    """
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    log_pmf = log_pmf_half(k, n)
    fraction = _continued_fraction((n - k).ravel(), (k + 1).ravel()).reshape(k.shape)
    return log_pmf + np.log(fraction) - _LOG_2, log_pmf


def log_t_survival(t: float, df: float) -> float:
    """log P(T >= t) for Student's t with df degrees of freedom and t > 0, accurate far below 1e-300.

    P(T >= t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2); the incomplete beta
    is x^a (1 - x)^b / (a B(a, b)) times the continued fraction, all in logs.
    """

    ratio = t * t / df
    log_x = -math.log1p(ratio)
    log_one_minus_x = math.log(ratio) - math.log1p(ratio)
    a, b = df / 2, 0.5
    fraction = _continued_fraction(np.array([a]), np.array([b]), math.exp(log_x))[0]
    return -_LOG_2 + a * log_x + b * log_one_minus_x - math.log(a) - betaln(a, b) + math.log(fraction)
