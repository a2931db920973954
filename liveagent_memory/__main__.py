"""`python -m liveagent_memory` runs the command-line interface."""

from liveagent_memory.cli import main

raise SystemExit(main())
