"""Test support: the mpmath oracles, the reference evaluator, the input corpora, the golden comparison.

The input corpora are the damaged and the hostile ones.
"""
