"""Chat ellipsis: a statement that drops its "I" ("just got back", "need a lift").

Reported speech gives such a sentence its speaker back ("Tim just got back"). Rules of
English grammar over ``lemminflect``'s dictionary, no model.
"""

from __future__ import annotations

from toolkit.lang.en.indirect import inflect, is_verb, verb_lemma

_STATIVE = frozenset(
    "love like hope need want wish miss hate bet prefer doubt".split()  # noqa: SIM905
)
"""Verbs of feeling a chat message opens with when it drops "I" ("Love it", "Need a
lift"); seldom an order, unlike "think harder" or "guess what"."""
_MODAL_I = frozenset("will would can could should must can't won't wouldn't couldn't".split())  # noqa: SIM905
_NEGATED_I = frozenset("don't dont didn't didnt".split())  # noqa: SIM905
_OWN_MIND = frozenset(
    """know think care remember understand mind like want need feel get believe agree
    wanna see have recall expect""".split()  # noqa: SIM905
)
"""Verbs a negated chat statement without its "I" opens with ("Don't know what to do",
"Didn't see it"): the speaker's own mind, not an order to the reader."""
_ADVERB_LEAD = frozenset("just really also still never always already only even actually".split())  # noqa: SIM905
_OBJECT_LEAD = frozenset(
    """the a an my your his her our their this that these those it him them me us you to
    up out in on at for with from about back home over off by""".split()  # noqa: SIM905
)


_SUBJECTS = frozenset("i i'm i've i'll i'd we they he she".split())  # noqa: SIM905
"""Subject pronouns: after one, a verb of feeling was a filler ("like I said")."""


def drops_i(body: str) -> bool:
    """Whether a statement starts with its verb, its "I" dropped as chat does ("just came
    back from a trek", "will call you later", "need a lift"): a verb in the past (an
    "-ed" form only before an object or a particle: "roasted chicken" is no verb), a
    modal before a verb other than "be" ("could be worse" drops "it"), a verb of
    feeling, or a negated verb of the speaker's own mind ("don't know what to do")."""
    tokens = body.replace("’", "'").split()
    while tokens and tokens[0].lower() in _ADVERB_LEAD:
        tokens = tokens[1:]
    if len(tokens) < 2:
        return False
    first, second = tokens[0].lower(), tokens[1].lower()
    if first in _MODAL_I:
        return is_verb(second) and second != "be"
    if first in _NEGATED_I:
        return second in _OWN_MIND
    if first in _STATIVE:
        # "like I love it", "like we said": a filler before a subject, not a dropped "I"
        return second not in _SUBJECTS
    lemma = verb_lemma(first)
    if not lemma or lemma == first or inflect(lemma, "VBD") != first:
        return False
    return not first.endswith("ed") or second in _OBJECT_LEAD
