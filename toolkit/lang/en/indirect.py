"""Questions in the word order of reported speech: "where is the party" -> "where the
party is".

Rules of English grammar, no model. A question inverts its auxiliary and its subject;
reported, the subject comes first again: "can you come" -> "you can come", "how's the
job going" -> "how the job is going". "do"/"does" go ("where does the bus stop" ->
"where the bus stops") and "did" puts the verb in the past ("where did you read that"
-> "where you read that", the verb marked with ``PAST`` so that no agreement touches
it). A subject is a personal or indefinite pronoun, a name, or a noun phrase opened by
a determiner; a question whose subject is none of these (the wh-word itself: "who is
coming") keeps its order. Part of speech comes from ``lemminflect``'s dictionary.
"""

from __future__ import annotations

from functools import lru_cache

import lemminflect  # type: ignore[import-untyped]

PAST = "\x00"
"""Marks a verb put in the past here: the rewriter leaves its form alone."""
WH = frozenset(("what", "where", "when", "how", "why", "who", "which", "whose", "whom"))
_AUX_WORDS = """is are was were am can could will would should shall may might must has have
had do does did isn't aren't wasn't weren't can't couldn't won't wouldn't shouldn't hasn't
haven't don't doesn't didn't"""
_AUX = frozenset(_AUX_WORDS.split())
_MODALS = frozenset("can could will would should shall may might".split())  # noqa: SIM905
_CONTRACTED = {f"{wh}'s": wh for wh in ("how", "what", "where", "who", "when", "why")}
_PRONOUN_WORDS = """you u ya i we he she it they there anybody anyone somebody someone
everybody everyone nobody sb"""
_PRONOUNS = frozenset(_PRONOUN_WORDS.split())
_AGREEING = frozenset("you u ya i we they".split())  # noqa: SIM905
"""Subjects whose verb the rewriter agrees itself (or that take the plain form)."""
_ARTICLES = frozenset("the a an my your ur his her our their".split())  # noqa: SIM905
_DEMONSTRATIVES = frozenset("this that these those any some".split())  # noqa: SIM905
_PHRASE_END = frozenset(
    """in on at to for with from about into after before by during over under near than
    now today tonight tomorrow yesterday then here there yet already still again ever
    really actually also just too not n't""".split()  # noqa: SIM905
)
MAX_PHRASE = 4
"""Words of a noun phrase after its determiner."""


@lru_cache(maxsize=16384)
def _is_verb_only(word: str) -> bool:
    """A word the dictionary knows as a verb and not as a noun ("said", "going")."""
    lemmas = lemminflect.getAllLemmas(word.lower())
    return "VERB" in lemmas and "NOUN" not in lemmas and "PROPN" not in lemmas


@lru_cache(maxsize=16384)
def _can_be_noun(word: str) -> bool:
    """A noun, or a word the dictionary does not know (a name, slang)."""
    lemmas = lemminflect.getAllLemmas(word.strip(",;:"))
    return not lemmas or "NOUN" in lemmas or "PROPN" in lemmas


@lru_cache(maxsize=16384)
def common_word(word: str) -> bool:
    """Whether the dictionary knows ``word`` (lower case) as a word, not only as a name."""
    lemmas = lemminflect.getAllLemmas(word)
    return bool(lemmas) and set(lemmas) != {"PROPN"}


def is_verb(word: str) -> bool:
    """Whether ``word`` is a verb's base form ("need", not "needs" or "said")."""
    return verb_lemma(word) == word.lower() and word.isalpha()


def opens_question(word: str) -> bool:
    """Whether a question can start with ``word`` (a wh-word or an auxiliary)."""
    low = word.lower().replace("’", "'")
    return low in WH or low in _AUX or low in _CONTRACTED


def is_verb_form(word: str) -> bool:
    """Whether ``word`` is any form of a verb or an auxiliary ("helps", "could")."""
    return word.lower() in _AUX or verb_lemma(word) is not None


@lru_cache(maxsize=16384)
def verb_lemma(word: str) -> str | None:
    """The verb ``word`` is a form of, if the dictionary knows it as a verb."""
    lemmas = lemminflect.getAllLemmas(word.lower()).get("VERB")
    return str(lemmas[0]) if lemmas else None


def inflect(word: str, tag: str) -> str:
    """``word``, a verb's base form, in the form ``tag`` ("VBD", "VBZ"); any other word
    (or form: "said") unchanged."""
    lemma = verb_lemma(word)
    if lemma != word.lower():
        return word
    forms = lemminflect.getInflection(lemma, tag)
    return str(forms[0]) if forms else word


def _titled(word: str) -> bool:
    return word[:1].isupper() and word[1:].islower() and word.isalpha()


def subject_length(tokens: list[str], names: tuple[str, ...] = ()) -> int:
    """How many of ``tokens`` make the subject they open (0: none recognised)."""
    if not tokens:
        return 0
    first, low = tokens[0], tokens[0].lower()
    if low in _PRONOUNS:
        return 1
    if first in names or _titled(first):
        n = 1
        while n < len(tokens) and _titled(tokens[n]) and n < MAX_PHRASE:
            n += 1  # "Elon Musk"
        return n
    if low not in _ARTICLES and low not in _DEMONSTRATIVES:
        return 0
    n = 1
    while n < len(tokens) and n <= MAX_PHRASE:
        word = tokens[n].lower().rstrip(",;:")
        if (
            not word.replace("'", "").replace("-", "").isalpha()
            or word in _PHRASE_END
            or word in _AUX
            or word in _ARTICLES
            or word.endswith("ing")
            or _is_verb_only(word)
            or (n > 1 and not _can_be_noun(word) and _can_be_noun(tokens[n - 1].lower()))
        ):
            break  # after its noun, an adjective is the predicate ("this seat free")
        n += 1
        if tokens[n - 1][-1] in ",;:":
            break  # a comma closes the phrase ("your goals, Ann")
    while n > 1 and tokens[n - 1].lower() in ("of", "and", "or"):
        n -= 1  # a phrase ends on a noun ("the process" of getting …)
    if n == 1 and low in _ARTICLES:
        return 0  # "my" alone is no subject
    return n


def _is_be(word: str) -> bool:
    """Whether ``word`` is a form of "be" that can open a question."""
    return word.lower() in ("is", "are", "was", "were", "am")


def asks(body: str, names: tuple[str, ...] = ()) -> bool:
    """Whether ``body``, without a question mark, is a question by its word order ("did
    Ann pay the bill", "what do you mean")."""
    tokens = body.replace("’", "'").split()
    first = tokens[0].lower() if tokens else ""
    if first in WH or first in _CONTRACTED:
        return indirect(body, names, elided=False) is not None
    # An auxiliary first asks only before a pronoun or a name ("did Ann pay"), not
    # before a noun phrase ("have a great day", "are the fish").
    return (
        first in _AUX
        and subject_length(tokens[1:2], names) == 1
        and (indirect(body, names, elided=False) is not None)
    )


def embedded(text: str, names: tuple[str, ...] = ()) -> str:
    """``text`` with a question inside it in reported order too ("whether Ann knows
    where is the room" -> "… where the room is")."""
    tokens = text.split()
    for k in range(1, len(tokens) - 1):
        if tokens[k].lower() in WH or tokens[k].lower().replace("’", "'") in _CONTRACTED:
            inner = indirect(" ".join(tokens[k:]), names)
            if inner is not None:
                return " ".join([*tokens[:k], inner])
    return text


def indirect(body: str, names: tuple[str, ...] = (), *, elided: bool = True) -> str | None:
    """A question's words in reported order, or None when ``body`` is not an inverted
    question (the wh-word, if any, stays first; "whether" is the caller's). ``elided``:
    a modal before a verb asks "you" ("could let me know")."""
    tokens = body.replace("’", "'").split()
    if tokens and tokens[0].lower() in _CONTRACTED:
        tokens = [_CONTRACTED[tokens[0].lower()], "is", *tokens[1:]]
    # Chat spelling of "are" after a wh-word or first ("where r u", "r u coming").
    tokens = [("are" if t.lower() == "r" and k < 3 else t) for k, t in enumerate(tokens)]
    head: list[str] = []
    if tokens and tokens[0].lower() in WH:
        head = tokens[:1]
        for k in (2, 3):  # "what time is it", "how many years have you …"
            words = [t.lower() for t in tokens[1:k]]
            if (
                len(tokens) > k
                and tokens[k].lower() in _AUX
                and not (set(words) & (_AUX | _PRONOUNS))
                and all(w.isalpha() for w in words)
            ):
                head = tokens[:k]
                break
    i = len(head)
    if i >= len(tokens) or tokens[i].lower() not in _AUX:
        return None
    aux = tokens[i]
    n = subject_length(tokens[i + 1 :], names)
    if (
        n == 0
        and elided
        and i + 1 < len(tokens)
        and tokens[i].lower() in _MODALS
        and is_verb(tokens[i + 1])
    ):
        tokens, n = [*tokens[: i + 1], "you", *tokens[i + 1 :]], 1  # "could let me know": you
    if n == 0:
        return None
    subject, rest = tokens[i + 1 : i + 1 + n], tokens[i + 1 + n :]
    if _is_be(tokens[i]) and rest[:1] and rest[0].lower() == "of" and "," not in body:
        subject, rest = [*subject, *rest], []  # "how is the price of a ticket"
    mark = subject[-1][-1] if subject[-1][-1] in ",;:" else ""
    if mark:  # "what are your goals, Ann" -> "what your goals are, Ann"
        subject = [*subject[:-1], subject[-1][:-1]]
    low = aux.lower()
    if low in ("do", "does", "did"):
        if not any(verb_lemma(w) for w in rest[:2]) and not (
            len(subject) > 1 and verb_lemma(subject[-1])
        ):
            return None  # "do it now" asks nothing
        if len(subject) > 1 and verb_lemma(subject[-1]) and not (rest and verb_lemma(rest[0])):
            subject, rest = subject[:-1], [subject[-1], *rest]  # "does the bus stop"
        if rest and low == "did":
            rest = [PAST + inflect(rest[0], "VBD"), *rest[1:]]
        elif rest and low == "does" and subject[0].lower() not in _AGREEING:
            rest = [inflect(rest[0], "VBZ"), *rest[1:]]
        clause = [*subject, *rest]
    else:
        clause = [*subject, low, *rest]
    if mark:
        clause[len(clause) - len(rest) - 1] += mark
    return " ".join([*head, *clause])
