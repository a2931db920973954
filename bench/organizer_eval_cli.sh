#!/bin/sh
# The CLI for ../shared/tools/organizer_eval.py: the scorer names a --home that does not exist
# yet, and an explicit --home is refused unless --create starts a store there.
exec "$(dirname "$0")/../.venv/bin/liveagent-memory" --create "$@"
