"""How common a query's words are in the store: which of them more than a share of the memories
hold (issue 17).

retrieval/query_focus.py asks it to leave a store's most common words (a person's name that
starts half the memories) out of the query it embeds for the vector side. A word is counted as
the keyword search matches it (FTS5's Porter stems and the irregular forms' bases,
store/lemmas.py: "painted" counts the memories saying "painting"), in what a memory says (its
description, headline and body; not its type or slug, where "user" or "project" would be found
in every memory of that type), by one SQL statement over the full-text index's posting lists:
no memory is read.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from liveagent_memory.store.lemmas import lemma
from liveagent_memory.store.text import fts_quote

# memory_search's columns that hold what a memory says (store/schema.py MEMORY_SEARCH_DDL)
SAYS_COLUMNS = "{description headline body}"
WORDS_PER_STATEMENT = 500


def common_words(
    conn: sa.Connection, words: Sequence[str], share: float, minimum: int
) -> list[str]:
    """The `words` (Latin-script, lowercase) found in more than `share` of the store's memories,
    in the order given; none when the store holds fewer than `minimum` memories."""
    unique = list(dict.fromkeys(word for word in words if word))
    if not unique:
        return []
    total = conn.exec_driver_sql("SELECT count(*) FROM memory_meta").scalar() or 0
    if total < minimum:
        return []
    found: list[str] = []
    # A statement's columns are limited (SQLite: 2,000 by default): long lists in parts.
    for start in range(0, len(unique), WORDS_PER_STATEMENT):
        part = unique[start : start + WORDS_PER_STATEMENT]
        counts = ", ".join(
            f"(SELECT count(*) FROM memory_search WHERE memory_search MATCH :w{n})"
            for n in range(len(part))
        )
        row = conn.execute(
            sa.text(f"SELECT {counts}"),
            {f"w{n}": f"{SAYS_COLUMNS} : {fts_quote(lemma(word))}" for n, word in enumerate(part)},
        ).one()
        found += [word for word, count in zip(part, row, strict=True) if count > share * total]
    return found
