"""``python -m llm_power_verified.cli``."""

import sys

from llm_power_verified.cli.main import main

# Guarded: the API reference's recursive autosummary imports this module, and an unguarded call ran the CLI with
# Sphinx's own arguments (printing "invalid choice: 'html'" to the build's stderr, which -W does not catch).
if __name__ == "__main__":
    sys.exit(main())
