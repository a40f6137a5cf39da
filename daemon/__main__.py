"""`python -m daemon` is the `talkbox` command."""

import sys

from daemon.cli import main

sys.exit(main())
