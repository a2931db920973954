"""The web bridge's tunables (issue 16: `liveagent-memory serve`, its panel, the app's "Web and
agents" page, the MCP servers' presence records), named once with the reason beside each; the
rest of the domain's are in `domain/config.py`."""

from __future__ import annotations

# --- The local web bridge (issue 16, web/, `liveagent-memory serve`) ---------------------------
# Loopback only unless asked: another machine on the network must never reach the memory.
BRIDGE_DEFAULT_HOST = "127.0.0.1"
# A fixed default port, so a browser bookmark and an agent's config keep working across starts;
# 0 asks the system for a free one (the tests).
BRIDGE_DEFAULT_PORT = 8765
# The names a loopback bind answers to in the Host header (DNS rebinding: any other name is a
# page of another site that resolved its own name to 127.0.0.1).
BRIDGE_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# 32 random bytes (256 bits, 43 URL-safe characters): not guessable at any request rate.
BRIDGE_TOKEN_BYTES = 32
# The keyring entry (under KEYRING_SERVICE) that keeps the token across starts.
BRIDGE_TOKEN_KEY = "bridge-token"
# A request body: a memory (8 KiB) or an episode trace with its logs fits many times over; a
# 1 MiB cap keeps a runaway client from filling memory before validation reads the JSON.
BRIDGE_MAX_REQUEST_BYTES = 1024 * 1024
# Requests per second across all clients (token bucket): an agent makes a few per turn, the web
# panel a burst when a page loads; a loop gone wrong is slowed before it fills the disk or log.
BRIDGE_RATE_PER_SECOND = 20
BRIDGE_RATE_BURST = 60  # requests allowed at once after a quiet spell (a page load's burst)
# Commands a browser or an agent must not run through the bridge, a person runs them in the app or
# the CLI: wiping the store, saving the settings that pick models and schedules, applying a review
# queue (writes as the person), pinning a project (writes into its repository), merging its folders
# (moves files). Commands with an `actor` need none: the store's gate refuses BRIDGE_ACTOR those.
BRIDGE_PERSON_ONLY_COMMANDS = (
    "memory_wipe_all",
    "settings_save_memory",
    "organize_apply",
    "project_pin",
    "project_merge",
    "sync_init",  # a sync sends every memory to a remote: a person chooses where, and when
    "sync_fetch",
    "sync_run",
)
# The actor of every bridge request, an agent or a model: the review gate applies (no accepting).
BRIDGE_ACTOR = "tool"
# How long `serve` waits for a run in progress to record its end when told to stop.
BRIDGE_SHUTDOWN_SECONDS = 10

# --- The web panel the bridge serves (issue 16, web/panel.py, web/static/) ---------------------
# A person's page, not an agent's: a panel key made when the bridge starts (in memory only) opens
# a session; the session's cookie, never the bearer token, admits the panel's routes.
PANEL_SESSION_COOKIE = "liveagent_panel"
# A session lasts a working day; after that the person opens the panel's link again.
PANEL_SESSION_SECONDS = 12 * 60 * 60
# Sessions kept at once (in memory; the oldest dropped first): a few browsers and tabs fit, and a
# loop opening sessions with the key cannot grow memory without bound.
PANEL_SESSIONS_KEPT = 32
# The panel is the person: accepts and applies pass the review gate (agents cannot).
PANEL_ACTOR = "user"
# The only commands the panel's page needs (what the desktop's Memories, Review, Organizer and
# Journal pages call); anything else from a browser is refused (ActionNotAllowed).
PANEL_COMMANDS = (
    "memory_list",
    "memory_search",
    "memory_read",
    "memory_accept",
    "memory_update",
    "memory_delete",
    "memory_undo",
    "memory_history",
    "memory_projects",
    "memory_paths_info",
    "memory_quota_summary",
    "memory_journal_days",
    "memory_journal_entries",
    "organize_run_create",
    "organize_run_list",
    "organize_run_read",
    "organize_apply",
    "organize_review_queue",
    "organize_contradictions",
    "organize_resolve",
)
# The WebSocket re-reads the organizer's runs this often (one indexed read): the runner may be
# another process, so the store is the truth, and a phase change shows within about a second.
PANEL_PROGRESS_POLL_MS = 1000
# The runs the WebSocket pushes: the newest, enough for the Organizer tab's history.
PANEL_RUNS_PUSHED = 20
# A queued run nobody claimed for this long: the page says no runner seems to be running (the
# app and `serve` claim within ORGANIZE_PENDING_POLL_MS, 3 s; 10 s leaves room for a busy box).
PANEL_UNCLAIMED_NOTICE_MS = 10 * 1000

# --- The bridge in the desktop app (issue 16, the "Web and agents" page) -----------------------
# Callers the bridge remembers (by User-Agent, in memory only): a few agents and a browser fit;
# the oldest is forgotten first.
BRIDGE_CALLERS_KEPT = 20
# A User-Agent longer than this is cut: the page shows a line, not a header of any length.
BRIDGE_CALLER_AGENT_CHARS = 160
# How often the page re-reads the callers while the bridge runs (a cheap in-memory copy).
BRIDGE_CALLERS_REFRESH_MS = 2000
# MCP servers running now (store/presence.py): each `liveagent-memory mcp` process keeps a small
# record in the store folder while it runs, so the app can list the agents using memory through
# stdio too (a stdio server talks to its client only, never to the app).
RUNTIME_DIRNAME = ".runtime"  # what running processes of this machine keep (store/ignore_files.py)
PRESENCE_DIRNAME = f"{RUNTIME_DIRNAME}/mcp"  # per machine, like the index: never worth syncing
PRESENCE_WRITE_EVERY_MS = 30_000  # a busy agent's calls rewrite its record at most this often
PRESENCE_MAX_RECORDS = 50  # more records than this are not read (a folder gone wrong)
PRESENCE_MAX_BYTES = 4096  # a record is a few hundred bytes; anything bigger is not ours
# How often the Web and agents page re-reads them while it is shown (a glob of a small folder).
AGENTS_REFRESH_MS = 5000
