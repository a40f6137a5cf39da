"""`python -m daemon` is the `talkbox` command."""

import sys

from daemon.cli.main import main

sys.exit(main())
