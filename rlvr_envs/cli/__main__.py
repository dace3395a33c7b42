"""``python -m rlvr_envs.cli``: the same as the ``rlvr-envs`` command."""

import sys

from rlvr_envs.cli import main

sys.exit(main())
