"""Verb agreement for reported speech: a verb after a third-person singular subject.

"I want" retold is "Amanda wants": a base form the dictionary knows (``lemminflect``)
takes its "-s" form, "am"/"are"/"have"/"don't" their third-person forms; modals, past
forms and adverbs stay as they are.
"""

from __future__ import annotations

from toolkit.lang.en.indirect import inflect

_NO_AGREE = frozenset(
    """can could will would shall should must might may did didn't can't won't wouldn't
    couldn't shouldn't cant wont didnt wouldnt couldnt shouldnt had was wasn't just really
    also still never always already only even
    actually totally probably definitely usually often sometimes rather got went saw
    made thought told said came took gave found knew left felt bought brought met ran sent
    spent lost won forgot heard kept paid put slept wrote ate drove began became broke chose
    fell flew held hurt let meant sat sold stood taught understood woke wore gotta gonna
    to not a an the""".split()  # noqa: SIM905
)
BE_HAVE = {"am": "is", "are": "is", "were": "was", "have": "has", "do": "does"}
BE_HAVE.update({"don't": "doesn't", "haven't": "hasn't", "aren't": "isn't", "go": "goes"})
BE_HAVE.update({"dont": "doesn't", "havent": "hasn't", "arent": "isn't"})
"""First-person forms and their third-person singular."""


def third_person(verb: str) -> str:
    """``verb`` agreeing with a third-person singular subject ("want" -> "wants")."""
    low = verb.lower()
    if low in BE_HAVE:
        return BE_HAVE[low]
    if low in _NO_AGREE or not low.isalpha():
        return verb
    agreed = inflect(low, "VBZ")
    if agreed != low:  # a base form the dictionary knows ("need" -> "needs")
        return agreed
    if low.endswith(("ed", "ing", "ly")):
        return verb
    if low.endswith("s") and not low.endswith("ss"):
        return verb
    if low.endswith(("sh", "ch", "x", "z", "o", "ss")):
        return f"{verb}es"
    if low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"
