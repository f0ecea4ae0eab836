"""Closed forms derived in derivations/design_effect.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/design_effect.py
SymPy version: 1.14.0
"""


__all__ = ["design_effect", "cluster_adjusted_required_n"]


def design_effect(cluster_size, icc):
    """Design effect 1 + (m - 1) ICC for clusters of size m (size-weighted, sum m_g^2 / N, when unequal).

    Source: paper Section 6.4.
    SymPy: icc*(cluster_size - 1) + 1
    """
    return icc*(cluster_size - 1) + 1


def cluster_adjusted_required_n(required_n, cluster_size, icc):
    """Cluster-adjusted N*: the IID N* times the design effect.

    Source: paper Section 6.4, Table 4.
    SymPy: required_n*(icc*(cluster_size - 1) + 1)
    """
    return required_n*(icc*(cluster_size - 1) + 1)
