#!/usr/bin/env bash
# Build the one-folder bundle and check that it starts (packaging/README.md explains each step).
#
#   packaging/build.sh            # build into /tmp/lam-dist, then run the checks
#   DIST=/opt/out packaging/build.sh
#
# Build output never goes inside the repository (DIST and WORK default to /tmp).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-$REPO/.venv/bin/python}"
DIST="${DIST:-/tmp/lam-dist}"
WORK="${WORK:-/tmp/lam-build}"
APP="$DIST/liveagent-memory/liveagent-memory"

cd "$REPO"
if ! "$PYTHON" -c "import PyInstaller" 2>/dev/null; then
    echo "PyInstaller is missing: $PYTHON -m pip install -e '.[package]'" >&2
    exit 2
fi

start=$(date +%s)
"$PYTHON" -m PyInstaller packaging/liveagent-memory.spec --noconfirm --clean \
    --distpath "$DIST" --workpath "$WORK"
echo "built in $(( $(date +%s) - start )) s: $(du -sh "$DIST/liveagent-memory" | cut -f1)"

# The bundle starts: help, a store command, the hidden import check, offscreen screenshots.
check_home="$(mktemp -d)"
shots="$(mktemp -d)"
trap 'rm -rf "$check_home"' EXIT
"$APP" --help >/dev/null
"$APP" status --home "$check_home"
"$APP" --check-bundle >/dev/null  # exit 1 (and a JSON report) when something is missing
QT_QPA_PLATFORM=offscreen "$APP" screenshots "$shots" --home "$check_home"
echo "bundle OK: $APP (screenshots in $shots)"
