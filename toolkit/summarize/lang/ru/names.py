"""Russian names as a text may write them: every case form of a name word, for the
pseudonyms an LLM endpoint is sent (``toolkit.summarize.llm.pseudonyms``).

A chat writes «Борису» for the member who signs «Борис»: each of these forms must be
replaced by that member's placeholder. The forms are pymorphy3's (its dictionary, and
its predictor for a surname it does not know), as the pack's grammar is
(``toolkit.summarize.lang.morph``).
"""

from __future__ import annotations

from toolkit.summarize.lang.morph import NameForms

_NAMES = NameForms("ru")
forms = _NAMES.forms
lemma = _NAMES.lemma
everyday = _NAMES.everyday
