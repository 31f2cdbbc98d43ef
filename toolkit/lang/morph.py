"""pymorphy3 for the packs of Slavic languages (Russian, Ukrainian): agreement and forms.

pymorphy3 reads its dictionaries from installed packages (``pymorphy3-dicts-ru``,
``pymorphy3-dicts-uk``), so it works offline. One analyzer per language per process.
The rules of each language (which case follows which number) stay in its pack; this
module only asks pymorphy3.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Any

from toolkit.lang import morph_analyzer


def analyzer(lang: str) -> Any:
    """The shared analyzer of ``lang`` (``ru`` or ``uk``): the one the lexicons stem with
    (``toolkit.lang.morph_analyzer``)."""
    return morph_analyzer(lang)


def pack_grammar(lang: str) -> dict[str, Any]:
    """The fields of ``lang``'s pack that pymorphy3 serves (``base.LanguagePack``):
    ``phrase_form``, ``noun_role``, ``warm`` (its dictionaries loaded ahead) and
    ``name_forms`` (``NameForms``: its names change form)."""
    return {
        "phrase_form": partial(phrase_form, lang),
        "noun_role": partial(role, lang),
        "warm": partial(analyzer, lang),
        "name_forms": NameForms(lang),
    }


def _inflected(parse: Any, grammemes: set[str]) -> Any:
    """``parse`` inflected; the Ukrainian dictionary leaves the singular unmarked, so a
    form asked "sing" is tried without it too."""
    form = parse.inflect(grammemes)
    if form is None and "sing" in grammemes:
        form = parse.inflect(grammemes - {"sing"})
    return form


@lru_cache(maxsize=8192)
def inflect(lang: str, word: str, grammemes: frozenset[str]) -> str:
    """``word`` inflected to ``grammemes`` (itself when pymorphy3 cannot)."""
    form = _inflected(analyzer(lang).parse(word)[0], set(grammemes))
    return str(form.word) if form is not None else word


_GUESSERS = frozenset({"FakeDictionary", "UnknownPrefixAnalyzer", "KnownSuffixAnalyzer"})
"""pymorphy3's analyzers that guess a word the dictionary lacks (a typo, slang)."""
_PERSON_TAGS = frozenset({"Name", "Patr"})


def guessed(parse: Any) -> bool:
    """Whether a reading is pymorphy3's guess at a word its dictionary lacks: its forms
    may be no word at all (a typo «верте» read as a case of a made-up «верот»)."""
    return any(type(method[0]).__name__ in _GUESSERS for method in parse.methods_stack)


@lru_cache(maxsize=65536)
def role(lang: str, word: str) -> str:
    """``noun``, ``adj``, ``guess`` or ``other``: what a word can be in a topic's noun phrase.

    A person's first name or patronymic («Лены», «Даша») is no topic. A lower-case noun
    the dictionary lacks is a ``guess`` (slang «созвон», or a typo «верте»): a topic only
    where it recurs (``keyphrases``). Acronyms and capitalised unknown words (a brand, a
    place) are nouns."""
    parse = analyzer(lang).parse(word.lower())[0]
    tag = parse.tag
    if word.isupper() and len(word) >= 2:
        return "noun"
    if _PERSON_TAGS & set(tag.grammemes):
        return "other"
    if tag.POS == "NOUN":
        return "guess" if guessed(parse) and not word[:1].isupper() else "noun"
    return "adj" if tag.POS in ("ADJF", "PRTF") else "other"


def phrase_form(lang: str, words: Sequence[str], keep_case: Sequence[bool]) -> str:
    """A noun phrase in the nominative, adjectives agreeing with the first noun (its head);
    a capitalised word the dictionary knows keeps its capital in its nominative («Южной
    Калифорнии» → «Южная Калифорния»: the genitive read as no topic), an acronym and a
    word it lacks (a brand) stay as written."""
    shown = [w if keep else w.lower() for w, keep in zip(words, keep_case, strict=True)]
    heads = [i for i, w in enumerate(words) if role(lang, w) in ("noun", "guess")]
    if not heads:
        return " ".join(shown)
    head = heads[0]
    parse = analyzer(lang).parse(words[head].lower())[0]
    if guessed(parse):
        return " ".join(shown)  # a guessed word's forms may be no word: shown as written
    number = "plur" if "plur" in parse.tag or "Pltm" in parse.tag else "sing"
    nominative = _inflected(parse, {"nomn", number}) if not _acronym(words[head]) else None
    if nominative is not None:
        shown[head] = _cased(nominative.word, words[head], keep_case[head])
    gender = nominative.tag.gender if nominative is not None else parse.tag.gender
    for i in range(head):
        if _acronym(words[i]):
            continue
        grammemes = {"nomn", "plur"} if number == "plur" or gender is None else {"nomn", gender}
        reading = analyzer(lang).parse(words[i].lower())[0]
        adj = None if guessed(reading) else _inflected(reading, grammemes)
        if adj is not None:
            shown[i] = _cased(adj.word, words[i], keep_case[i])
    return " ".join(shown)


def _acronym(word: str) -> bool:
    return len(word) >= 2 and word.isupper()


def _cased(form: str, written: str, keep: bool) -> str:
    """``form`` with ``written``'s capital when it keeps its case."""
    return form[:1].upper() + form[1:] if keep and written[:1].isupper() else form


_NAME_TAGS = frozenset({"Name", "Surn", "Patr"})


def _is_name_parse(parse: Any) -> bool:
    return bool(_NAME_TAGS & set(parse.tag.grammemes))


@lru_cache(maxsize=16384)
def name_forms(lang: str, word: str) -> frozenset[str]:
    """Every form of a name word that pymorphy3 knows (lower case, ``word`` among them):
    the forms of each reading as a first name, surname or patronymic («Борис»: «Бориса»,
    «Борису» …), else of each reading as a noun. A word missing from the dictionary is
    declined by pymorphy3's predictor, which learns endings from the words it knows
    («Лундквист»: «Лундквиста», «Лундквисту» …); an indeclinable one stays as it is."""
    lower = word.lower()
    parses = analyzer(lang).parse(lower)
    chosen = [p for p in parses if _is_name_parse(p)] or [p for p in parses if p.tag.POS == "NOUN"]
    forms = {lower}
    for parse in chosen:
        forms.update(str(form.word) for form in parse.lexeme)
    return frozenset(forms)


def _known(parse: Any) -> bool:
    """Whether a reading comes from the dictionary (not guessed by the predictor)."""
    return any(type(method[0]).__name__ == "DictionaryAnalyzer" for method in parse.methods_stack)


@lru_cache(maxsize=65536)
def name_lemma(lang: str, word: str) -> str | None:
    """The dictionary form of ``word`` when pymorphy3's likeliest reading of it, from its
    dictionary, is a first name, surname or patronymic («Дмитрию» → «дмитрий»; not
    «вера», «роман», «Москва»); else ``None``."""
    parses = analyzer(lang).parse(word.lower())
    if parses and _known(parses[0]) and _is_name_parse(parses[0]):
        return str(parses[0].normal_form)
    return None


@lru_cache(maxsize=65536)
def everyday_word(lang: str, word: str) -> bool:
    """Whether the dictionary knows ``word`` and its likeliest reading is no name: an
    everyday word («вера», «роман», «олени»), not a name («борису»)."""
    parses = analyzer(lang).parse(word.lower())
    return bool(parses) and _known(parses[0]) and not _is_name_parse(parses[0])


class NameForms:
    """One Slavic pack's name helpers for the pseudonyms (its ``name_forms``): each case
    form of a name word, a word's name lemma, and whether it is an everyday word.

    A chat writes «Борису» for the member who signs «Борис»: each of these forms must be
    replaced by that member's placeholder. The forms are pymorphy3's (its dictionary,
    and its predictor for a surname it does not know)."""

    def __init__(self, code: str) -> None:
        """``code``: the pack's language (``ru``, ``uk``)."""
        self.code = code

    def forms(self, word: str) -> frozenset[str]:
        """Every case form of the name word ``word`` (lower case, itself among them)."""
        return name_forms(self.code, word)

    def lemma(self, word: str) -> str | None:
        """The dictionary form of a word that reads first as a name, else ``None``."""
        return name_lemma(self.code, word)

    def everyday(self, word: str) -> bool:
        """Whether ``word`` is, first of all, an everyday word (left alone in lower case)."""
        return everyday_word(self.code, word)
