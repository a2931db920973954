"""English irregular word forms: the one table search reads to match "bought" with "buy".

FTS5's Porter stemmer folds regular endings ("painting", "painted", "paints" -> "paint") but not
irregular forms: "found" is not "find", "children" is not "child", "better" is not "good". So the
index and the query both write an irregular form as its base (`lemma`: "bought" -> "buy"):
store/text.py `index_text` when a memory or an episode is indexed, store/search.py
`query_terms` and store/episode_index.py `match_expression` when a query is made. A memory
saying "I bought a car" is then found by "buy", "buying" or "bought", and one saying "I buy" by
"bought", as one FTS5 term weighted by the rarity of the whole group (listing each form as a
term of its own let a common group such as go/went/gone count twice and pushed out better
hits: measured in bench/README.md). `lemma_forms` gives the whole group for what looks at the
raw text (search's coverage boost, the snippet).

`narrower` is the second, smaller table: a broader word's common members ("pets" -> dog, cat),
which a query adds to its words (store/search.py `query_terms`); the index is not changed.
"""

from __future__ import annotations

# base: irregular forms (past, past participle, plural, comparative ...). Regular forms are the
# stemmer's job and are not listed.
_GROUPS = """
arise arose arisen
awake awoke awoken
be was were been
beat beaten
become became
begin began begun
bend bent
bet
bind bound
bite bit bitten
bleed bled
blow blew blown
break broke broken
breed bred
bring brought
build built
burn burnt
buy bought
catch caught
choose chose chosen
cling clung
come came
creep crept
deal dealt
dig dug
do did done
draw drew drawn
dream dreamt
drink drank drunk
drive drove driven
eat ate eaten
fall fell fallen
feed fed
feel felt
fight fought
find found
flee fled
fly flew flown
forbid forbade forbidden
forget forgot forgotten
forgive forgave forgiven
freeze froze frozen
get got gotten
give gave given
go went gone goes
grind ground
grow grew grown
hang hung
have had has
hear heard
hide hid hidden
hold held
keep kept
kneel knelt
know knew known
lay laid
lead led
lean leant
leap leapt
learn learnt
leave left
lend lent
lie lay lain
light lit
lose lost
make made
mean meant
meet met
pay paid
prove proven
ride rode ridden
ring rang rung
rise risen
run ran
say said
see saw seen
seek sought
sell sold
send sent
sew sewn
shake shook shaken
shine shone
shoot shot
show shown
shrink shrank shrunk
sing sang sung
sink sank sunk
sit sat
sleep slept
slide slid
speak spoke spoken
speed sped
spend spent
spin spun
spit spat
spread
spring sprang sprung
stand stood
steal stole stolen
stick stuck
sting stung
stink stank stunk
strike struck stricken
string strung
strive strove striven
swear swore sworn
sweep swept
swim swam swum
swing swung
take took taken
teach taught
tear tore torn
tell told
think thought
throw threw thrown
tread trod trodden
understand understood
wake woke woken
wear wore worn
weave wove woven
weep wept
win won
wind wound
withdraw withdrew withdrawn
write wrote written
child children
person people
man men
woman women
mouse mice
tooth teeth
foot feet
goose geese
ox oxen
life lives
wife wives
knife knives
leaf leaves
half halves
wolf wolves
shelf shelves
thief thieves
loaf loaves
calf calves
"""

# Comparatives ("better" -> good) are not listed: "get better" and "a better job" are about
# improving, not about "good". Forms dropped because they are mostly another word: "bound" (a
# boundary), "ground" (soil), "wound" (an injury), "bit" (a small piece), "lay" (lie and lay),
# "lives" and "leaves" (more often the verbs "live" and "leave", which the stemmer already
# folds). "bear/born" and "rose" are left out for the animal and the flower.
_AMBIGUOUS = frozenset({"bound", "ground", "wound", "lay", "bit", "lives", "leaves"})


def _build() -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """(form -> its base, base -> every form of its group, the base first)."""
    bases: dict[str, str] = {}
    groups: dict[str, tuple[str, ...]] = {}
    for line in _GROUPS.strip().splitlines():
        forms = tuple(w for w in line.split() if w not in _AMBIGUOUS)
        if len(forms) < 2:
            continue
        groups[forms[0]] = forms
        for form in forms:
            bases.setdefault(form, forms[0])  # a form in two lines belongs to the first
    return bases, groups


BASES, GROUPS = _build()


def lemma(word: str) -> str:
    """The base of an irregular form ("bought" -> "buy"), else `word` (lowercase in, out)."""
    return BASES.get(word, word)


def _bases(word: str) -> list[str]:
    """What `word` may be with a regular ending taken off: "making" -> make, "running" -> run,
    "goes" -> go, "finds" -> find."""
    out: list[str] = []
    if word.endswith("ing") and len(word) > 4:
        stem = word[:-3]
        out += [stem, stem + "e"]
        if len(stem) > 2 and stem[-1] == stem[-2]:
            out.append(stem[:-1])
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and len(word) > 2:
        out.append(word[:-1])
    return out


def lemma_forms(word: str) -> tuple[str, ...]:
    """Every form of `word`'s group, base first, `word` itself left out; () if it has none.
    A regular ending is taken off first ("buying" -> buy: "buy", "bought")."""
    base = BASES.get(word) or next((BASES[b] for b in _bases(word) if b in BASES), None)
    if base is None:
        return ()
    return tuple(form for form in GROUPS[base] if form != word)


# A broader word and common words it covers: a question about "pets" whose memory says "my dog"
# shares no word with it. A query word listed first on a line also searches for the rest (one
# way: a query about a dog does not want every pet). Only general, everyday categories; on
# LoCoMo-dev this found 7 more questions and lost 4 (R_any@10 0.691 -> 0.694, bench/README.md).
_BROADER = """
pet dog cat puppy kitten hamster parrot rabbit
instrument guitar piano violin drums flute saxophone cello ukulele
sport football soccer basketball tennis baseball volleyball hockey golf rugby
family mom dad mother father sister brother wife husband son daughter kids parents
art painting drawing sculpture pottery sketch
vehicle car truck bike motorcycle van
"""
NARROWER: dict[str, tuple[str, ...]] = {
    line.split()[0]: tuple(line.split()[1:]) for line in _BROADER.strip().splitlines()
}


def narrower(word: str) -> tuple[str, ...]:
    """The members of a broader word ("pets" -> dog, cat ...); () for any other word."""
    found = NARROWER.get(word)
    if found is None:
        found = next((NARROWER[b] for b in _bases(word) if b in NARROWER), ())
    return found
