"""Reported speech in English: a chat message retold in the third person, naming people.

"Amanda: I baked cookies. Do you want some?" becomes "Amanda baked cookies and asks
whether Jerry wants some." The first person becomes the speaker (by name, then
"they"), "we" becomes "they", and "you" becomes the addressee when one is known (a
two-party chat). Greetings, interjections and vocatives at the start of a sentence,
chatter sentences and emoji go; a verb after a replaced subject agrees with it
("I think" -> "Amanda thinks", through ``lemminflect``'s dictionary for base forms).
A yes/no question is reported with "whether", any other question with "asks", both in
the word order of a statement ("where the party is", ``indirect``); a question is known
by its mark or by its inverted order ("did Ann pay"). What is left out first is in
``cleanup``. The result is a paraphrase, never a quote: it carries no quotation marks.
Rules only, no model; English only (other languages are quoted).
"""

from __future__ import annotations

import re

from toolkit.lang.chatter import is_chatter
from toolkit.lang.en.agreement import BE_HAVE, third_person
from toolkit.lang.en.cleanup import before_question, clean
from toolkit.lang.en.ellipsis import drops_i
from toolkit.lang.en.indirect import (
    PAST,
    WH,
    asks,
    common_word,
    embedded,
    indirect,
    is_verb,
    is_verb_form,
    opens_question,
    verb_lemma,
)
from toolkit.lang.en.shapes import directive, split_tail_question
from toolkit.lang.en.words import CHATTER_WORDS
from toolkit.lang.sentences import split_sentences

_WANNA = re.compile(r"^(?:do you )?wanna\s+", re.IGNORECASE)
_YOU_ING = re.compile(r"^(you|u)\s+(?=\w+ing\b)", re.IGNORECASE)
"""A question that drops its "are" ("you coming tonight?")."""
_LETS = re.compile(
    r"^(?:(?:ya|yeah|yes|yep|ok|okay|so|well|oh|hey)[,!]?\s+)?let'?s\s+", re.IGNORECASE
)
"""A proposal ("let's go", "Ya lets pin our calls": the "ya" before it is "yeah", never "you")."""
MAX_CLAUSES = 1
_DIRECTIVES = {
    "asks_to": "asks {whom} to {rest}",
    "tells_not_to": "tells {whom} not to {rest}",
    "thanks": "thanks {whom} {rest}",
}
"""How many sentences of a message a digest retells (references are short)."""
_WORD = re.compile(r"[\w#@]+(?:['\-/][\w#@]+)*|[^\s\w#@]+")
_ADVERB_WORDS = (
    "just really also still never always already only even actually totally probably "
    "definitely usually often sometimes kinda"
)
_ADVERBS = frozenset(_ADVERB_WORDS.split())
_FIRST = {  # first person singular -> (form after a name, form after "they")
    "i'm": ("is", "are"),
    "i've": ("has", "have"),
    "i'll": ("will", "will"),
    "i'd": ("would", "would"),
    "im": ("is", "are"),
    "ive": ("has", "have"),
}
_BARE_CONTRACTIONS = {"ill": "i'll", "id": "i'd"}
""""I'll" and "I'd" typed without the apostrophe, read so only before a verb's base
form ("ill have time"; "I'm ill" stays an adjective)."""
_SECOND = {"you're": "is", "you've": "has", "you'll": "will", "you'd": "would"}
_AUXILIARIES = frozenset(
    {"will", "would", "can", "could", "shall", "should", "may", "might", "must"}
    | {"do", "does", "did", "are", "were", "have", "has", "had"}
)
"""Words after which "you" is the subject of a question ("will you be home")."""
_SECOND_THEY = {
    "you're": "they're",
    "you've": "they've",
    "you'll": "they'll",
    "you'd": "they'd",
    "your": "their",
    "ur": "their",
    "yours": "theirs",
}
"""The second person once the addressee is named: the pronoun, never the name again."""
_IDIOMS = re.compile(
    r"\b(?:here (?:you|u) (?:go|are)|there (?:you|u) (?:go|are)|you too|"
    r"see (?:you|u|ya)|bless you|mind you|you bet|you'?re welcome|love (?:you|u)|miss (?:you|u)|"
    r"wana|wan)\b",
    re.IGNORECASE,
)
"""Formulas whose "you" or spelling no rewrite keeps true ("here you go" is no "Susan
goes"): a sentence with one is left out, and a message with nothing else is quoted."""
_SMILEY_BREAK = re.compile(r"\s+[:;=]-?[()DPp]+\s+(?=[A-Z])")
_FRAGMENT = frozenset(
    {"because", "cause", "cuz", "coz", "when", "and", "but", "so", "if", "or", "then"}
    | {"while", "as", "since", "though", "although", "that", "which", "who", "whom"}
    | {"whose", "where", "why", "how", "what", "whether"}
)
"""Words that open a clause, not a sentence: a rewrite starting with one is a fragment."""
_WE = {"we're": "they're", "we've": "they've", "we'll": "they'll", "we'd": "they'd"}
_OBJECT = {"me": None, "us": "them", "myself": None, "ourselves": "themselves"}
_POSSESSIVE = {"my": None, "mine": None, "our": "their", "ours": "theirs"}
_CLAUSE_WORDS = (
    "and but if that when so because or then while as since though what where how why who "
    "whether , ; :"
)
_CLAUSE_START = frozenset(_CLAUSE_WORDS.split())
_AUX_Q = re.compile(
    r"^(do|does|are|is|can|could|will|would|should|shall|have|has|may)\s+(you|u|ya|we|i)\b\s*(.*)$",
    re.IGNORECASE,
)


class _Rewriter:
    """Replaces pronouns in one message, remembering whom it has named already."""

    def __init__(self, speaker: str, addressee: str | None) -> None:
        self.speaker = speaker
        self.addressee = addressee
        self.named = False
        self.addressed = False
        """Whether the addressee has been named: "you" then becomes "they" ("Kai asks Ugo
        whether they are coming", never "whether Ugo is coming")."""

    def _me(self) -> str:
        if self.named:
            return "they"
        self.named = True
        return self.speaker

    def words(self, text: str) -> str:
        line = text.replace("’", "'")
        matches = list(_WORD.finditer(line))
        out: list[str] = []
        agree = False  # the next verb agrees with a third-person singular subject
        plural = False  # the next "am"/"was" follows "they"
        pieces: list[str] = []
        pending = False  # a space before a word that left nothing
        for k, match in enumerate(matches):
            token, mark = match.group(0), len(out)
            after = matches[k + 1].group(0).lower() if k + 1 < len(matches) else ""
            spaced = match.start() == 0 or line[match.start() - 1].isspace()
            try:
                if token == PAST:  # a verb already in the past agrees with nothing
                    agree = False
                    continue
                low = token.lower()
                if low in _BARE_CONTRACTIONS and is_verb(after):  # "if ill have time"
                    low = _BARE_CONTRACTIONS[low]
                prev = out[-1].lower() if out else ","
                subject_slot = prev in _CLAUSE_START or not out
                shared = self.named and prev in ("and", "but", "or")  # "… and doesn't think"
                if low in _FIRST:
                    name = self._me()
                    out += [_FIRST[low][0]] if shared else [name, _FIRST[low][name == "they"]]
                elif low == "i" and shared:
                    agree = True
                    continue
                elif low == "i":
                    name = self._me()
                    out.append(name)
                    agree = name != "they"
                    if not agree and after in ("am", "was"):  # "I am" -> "they are"
                        plural = True
                    continue
                elif low in _WE:
                    out.append(_WE[low])
                elif low == "we":
                    out.append("they")
                elif low in _OBJECT:
                    out.append(_OBJECT[low] or (self.speaker if not self.named else "them"))
                    self.named = True
                elif low in _POSSESSIVE:
                    # "my": "their" once the speaker is named and nobody else is (else the
                    # name: "asks Omar where Rita can park Rita's bike")
                    mine = "their" if low == "my" else "theirs"
                    clear = self.named and not self.addressed
                    out.append(_POSSESSIVE[low] or (mine if clear else f"{self.speaker}'s"))
                elif self.addressee and self.addressed and low in _SECOND_THEY:
                    out.append(_SECOND_THEY[low])
                elif self.addressee and self.addressed and low in ("you", "u", "ya"):
                    # "how old you are", "sure you need": a verb after "you" makes it the subject
                    subject = (
                        subject_slot
                        or prev in _AUXILIARIES
                        or after in BE_HAVE
                        or (not is_verb_form(prev) and is_verb(after))
                    )
                    out.append("they" if subject else "them")
                elif self.addressee and low in _SECOND:
                    out += [self.addressee, _SECOND[low]]
                    self.addressed = True
                elif self.addressee and low in ("you", "u", "ya"):
                    out.append(self.addressee)
                    self.addressed = True
                    # "how old you are", "sure you need": a verb after "you" makes it the subject
                    agree = (
                        subject_slot
                        or after in BE_HAVE
                        or (not is_verb_form(prev) and is_verb(after))
                    )
                    continue
                elif self.addressee and low in ("your", "ur", "yours"):
                    out.append(f"{self.addressee}'s")
                    self.addressed = True
                elif plural:
                    out.append({"am": "are", "was": "were"}.get(low, token))
                elif agree and low in _ADVERBS:
                    out.append(token)
                    continue
                elif agree:
                    out.append(third_person(token))
                else:
                    out.append(token)
                agree = plural = False
            finally:
                piece = " ".join(out[mark:])
                if piece:  # a dropped word passes its space on
                    pieces.append((" " if spaced or pending else "") + piece)
                pending = not piece and (spaced or pending)
        return "".join(pieces).strip()


def report(
    text: str,
    speaker: str,
    addressee: str | None,
    names: tuple[str, ...] = (),
    max_clauses: int = MAX_CLAUSES,
) -> str | None:
    """``text`` (one message or a passage of it) as reported speech of ``speaker``.

    Args:
        text: the message's words.
        speaker: the author's name.
        addressee: whom "you" means (None: "you" stays).
        names: the participants' names, dropped when they open a sentence as a vocative.
        max_clauses: how many of its sentences to retell (the length prior: the first).

    Returns:
        One sentence without its full stop, starting with ``speaker``; "" when nothing
        but chatter is left; None when a rewrite would not be sure (a formula such as
        "here you go", a fragment): the caller quotes the message instead.
    """
    rewriter = _Rewriter(speaker, addressee)
    names = (*names, speaker, *((addressee,) if addressee else ()))  # "Will's" keeps its capital
    clauses: list[str] = []
    # An emoticon before a capital ends a sentence: "I'm great :) And you?" is two.
    text = _SMILEY_BREAK.sub(". ", text)
    pieces = [piece for part in split_sentences(text) for piece in split_tail_question(part)]
    unsure = False
    for raw in pieces:
        if _IDIOMS.search(raw) or raw.rstrip().endswith("…"):
            # A formula, or a sentence a quote's limit cut: no rewrite keeps it true.
            unsure = True  # "here you go" is no "Susan goes"
            continue
        shaped = directive(raw) if rewriter.addressee else None
        if shaped is not None:
            verb, rest = shaped
            rewriter.addressed = True
            said = _lower(rewriter.words(rest), names)
            clauses.append(_DIRECTIVES[verb].format(whom=rewriter.addressee, rest=said))
            continue
        sentence = clean(raw, names)
        if not sentence or is_chatter(sentence):
            continue
        body = sentence.rstrip(" .!?;:,")
        question = sentence.rstrip().endswith("?") or bool(_AUX_Q.match(body))
        question = question or asks(body, names)
        body = _WANNA.sub("do you want to ", body)
        if question:
            body = _YOU_ING.sub(r"\1 are ", before_question(body))
        if not body:
            continue
        if question:
            asked = _question(rewriter, body, names)
            if asked:
                clauses.append(asked)
            continue
        rewriter.named = False
        if _LETS.match(body):
            clauses.append(f"suggests they {rewriter.words(_LETS.sub('', body))}")
            continue
        said = rewriter.words(f"I {_lower(body, names)}" if drops_i(body) else body)
        if said.startswith(f"{speaker} "):
            clauses.append(said.removeprefix(speaker).strip())
        else:
            clauses.append(f"says {_lower(said, names)}")
    whole = [clause for clause in clauses if not _fragment(clause)]  # "says because when …"
    if not whole:
        return None if unsure or clauses else ""
    return f"{speaker} {_and(whole[:max_clauses])}"


def _fragment(clause: str) -> bool:
    """Whether a retold clause is a fragment: what follows "says", "asks whether" or
    "asks" opens with a word that only opens a clause, or has fewer than two words."""
    words = clause.split()
    if words[:1] == ["asks"] and "whether" in words[:5]:
        rest = words[words.index("whether") + 1 :]
    elif words[:1] == ["says"]:
        rest = words[1:]
    else:
        return False
    first = rest[0].lower().strip(",") if rest else ""
    if len(rest) < 2 or first in _FRAGMENT:
        return True
    if words[0] == "asks" and (first in _AUXILIARIES or first.endswith("n't")):
        return True  # "asks whether aren't two computers …": the order was not turned
    # "says try to cast spells": an imperative, or a subject dropped, is no report.
    return words[0] == "says" and rest[0].islower() and verb_lemma(rest[0]) == rest[0]


def _lower(text: str, names: tuple[str, ...]) -> str:
    """``text`` with its first word in lower case when it is a common word (chatter, a
    contraction, a word the dictionary knows), not a name or an acronym."""
    first = text.split(" ", 1)[0]
    if first.removesuffix("'s") in names or len(first) < 2 or first.isupper():
        return text
    low, second = first.lower().rstrip(",;:"), text.split(" ", 2)[1:2]
    rest = text.split(" ", 1)[1] if second else ""
    if first.endswith(",") and rest and opens_question(second[0]):
        return text  # "Harry, do you like it": whom a question is for keeps its capital
    if low not in CHATTER_WORDS and "'" not in low:
        if not common_word(low):
            return text
        nxt = second[0].removesuffix("'s") if second else ""
        if nxt[:1].isupper() and nxt not in names:
            return text  # "Capital Hotel", "Miss Ames": a name of several words
    return text[:1].lower() + text[1:]


def _question(rewriter: _Rewriter, body: str, names: tuple[str, ...]) -> str:
    whom = f" {rewriter.addressee}" if rewriter.addressee else ""
    head, _, tail = body.partition(", ")
    if tail and head[:1].isupper() and len(head.split()) <= 2 and opens_question(tail.split()[0]):
        # "Harry, do you like the opera": the name it calls is whom it asks.
        body, whom = tail, f" {head}"
    rewriter.addressed = rewriter.addressed or bool(whom)
    order = indirect(body, names)
    said = _lower(rewriter.words(embedded(order if order is not None else body, names)), names)
    if said.split(" ", 1)[0].lower().replace("’", "'").removesuffix("'s") in WH:
        return f"asks{whom} {said}"
    if order is None and len(body.split()) < 4:
        return ""  # a bare fragment ("Not much, you?", "Tomorrow?") reports nothing
    return f"asks{whom} whether {said}"


def _and(clauses: list[str]) -> str:
    if len(clauses) == 1:
        return clauses[0]
    return f"{', '.join(clauses[:-1])} and {clauses[-1]}"
