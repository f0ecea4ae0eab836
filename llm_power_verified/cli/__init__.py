"""Command line: ``llm-power-verified COMMAND``; errors print one line on stderr and exit with status 2."""

from llm_power_verified.cli.main import main

__all__ = ["main"]
