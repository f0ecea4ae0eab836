"""``python -m llm_power_verified.cli``."""

import sys

from llm_power_verified.cli.main import main

sys.exit(main())
