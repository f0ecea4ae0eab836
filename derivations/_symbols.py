"""Symbols shared by the derivations; a parameter is named after its symbol."""

import sympy as sp

p_a, p_b = sp.symbols("p_a p_b", positive=True)
p = sp.Symbol("p", positive=True)
rho = sp.Symbol("rho", real=True)
alpha = sp.Symbol("alpha", positive=True)
power = sp.Symbol("power", positive=True)
sides = sp.Symbol("sides", positive=True, integer=True)
variance = sp.Symbol("variance", positive=True)
delta = sp.Symbol("delta", real=True)
n = sp.Symbol("n", positive=True)
b, c = sp.symbols("b c", nonnegative=True)
n11, n10, n01, n00 = sp.symbols("n11 n10 n01 n00", nonnegative=True)
p11, p10, p01, p00 = sp.symbols("p11 p10 p01 p00", nonnegative=True)
family_size = sp.Symbol("family_size", positive=True)
cluster_size = sp.Symbol("cluster_size", positive=True)
icc = sp.Symbol("icc", real=True)
required_n = sp.Symbol("required_n", positive=True)
epsilon = sp.Symbol("epsilon", positive=True)
mean_diff = sp.Symbol("mean_diff", real=True)
sd_diff = sp.Symbol("sd_diff", positive=True)
