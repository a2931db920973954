"""What every benchmark records about where it ran: the machine and the measured commit."""

from __future__ import annotations

import os
import platform
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any


def machine_info() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
    }


def package_state() -> dict[str, Any]:
    """Which code was measured: the commit, and whether liveagent_memory/ had local edits."""
    repo = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=repo, capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            return ""
        return done.stdout.strip()

    changed = git("status", "--porcelain", "--", "liveagent_memory")
    return {
        "commit": git("rev-parse", "--short", "HEAD"),
        "package_files_modified": len(changed.splitlines()) if changed else 0,
    }
