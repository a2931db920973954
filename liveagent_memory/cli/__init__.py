"""The `liveagent-memory` command line: `call COMMAND [JSON]` plus friendly subcommands.

Output is for a person; `--json` (and `call`, always) prints the JSON response or error.
Exit codes: 0 success, 1 a command error, 2 a usage error (and a --home that does not exist).
`entry.py` is the composition root of a run: it parses the arguments (`parser.py`), builds the
run's one AppContext and hands it to the command group of the subcommand (one module per
group, see `group.py`); `output.py` holds what they write with, `errors.py` how a typed error
reads, `chat.py` the terminal chat.
"""

from liveagent_memory.cli.entry import main

__all__ = ["main"]
