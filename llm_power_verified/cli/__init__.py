"""Command line: ``llm-power-verified COMMAND``; errors print one line on stderr and exit with status 2.

One module per command (``add_parser`` declares its options, ``run`` does the
work).  Each ``run`` imports the rooms it needs when it runs, not at the top:
``llm-power-verified --help`` and a bad option then answer in about 0.7 s
instead of 2.3 s (measured with every room imported at the top).  That is the
one measured reason for imports inside functions in this folder.
"""

from llm_power_verified.cli.main import main

__all__ = ["main"]
