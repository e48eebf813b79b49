"""``python -m uno_env``: the ``uno-env`` command, as the console script starts it."""

import sys

from .launch import main

sys.exit(main())
