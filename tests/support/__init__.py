"""Test support: the mpmath oracles, the reference evaluator, the damaged and hostile input corpora, the golden comparison."""
