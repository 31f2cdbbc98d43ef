"""No word of any language outside its pack: every regex and word list of a language lives in
``toolkit/lang/<code>/lexicon.py`` (what the whole toolkit reads by: stop words, letters, stems) or
``toolkit/lang/<code>/`` (what the summary engine reads and writes).

The scan reads the syntax tree of every module of the toolkit and its faces outside those
packs and flags, in any string that is not a docstring:

- a Cyrillic letter (a word, or a letter, of Russian or Ukrainian);
- a regex alternation of words (``you|your|ya``);
- a regex (an argument of ``re.compile``, ``re.search`` …) holding one of the packs' own
  words (their stop, chatter, filler and cue words);
- a word list: a set, list, tuple or dict, or a string split into words, holding two or
  more of the packs' own words.

``ALLOWED`` names what is provably not language, each entry with its reason. The scanner
is itself tested on a module that holds each kind of word, so the test can fail.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from toolkit.lang import CODES, packs
from toolkit.lang import CODES as LEXICON_CODES

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("toolkit", "cli", "service", "app_pages", "mcp_face")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")
ALTERNATION = re.compile(r"(?<![\\\w])[^\W\d_]{2,}(?: [^\W\d_]+)*\|[^\W\d_]{2,}")
REGEX_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall",
               "finditer"}  # fmt: skip
WORD_SET_CALLS = {"frozenset", "set", "words", "word_set", "_words"}

ALLOWED: dict[tuple[str, str], str] = {
    ("toolkit/summarize/extractive/draft/keys.py", "first last position asks"):
        "the key-sentence model's feature names: the columns of key_weights.json",
    ("toolkit/delivery/periods.py", "mon tue wed thu fri sat sun"):
        "the weekday codes of a schedule's rule (its wire format, the same in every language)",
    ("app_pages/schedules.py", "mon tue wed thu fri sat sun"):
        "the weekday codes of a schedule's rule (its wire format)",
    ("cli/destinations.py", "kind url secret"):
        "the field names of a destination (its wire format)",
    ("app_pages/destinations.py", "kind url secret"):
        "the field names of a destination (its wire format)",
    ("toolkit/evaluate/corpus/labels.py", "decision plan open_question"):
        "the act names of the label file (real_acts.jsonl): field names of its format",
    ("toolkit/ingest/export/html/service.py", ""):
        "the service sentences Telegram Desktop's HTML exporter writes, in English whatever "
        "the chat's language (export_output_html.cpp): its file format, read back into the "
        "JSON export's actions; nothing here reads or writes a chat's language",
    ("toolkit/ingest/export/html/page.py", "via @"):
        "the exporter's own mark of a message sent via a bot (its file format, English "
        "whatever the chat's language)",
    ("toolkit/ingest/export/html/page.py", "January February March"):
        "the month names of the exporter's date headings (its file format, English "
        "whatever the chat's language)",
    ("toolkit/text.py", "com|org|net|io|ru|me|dev|ai|app|info|co|uk|de|su|рф"):
        "top-level domains of bare host names (DNS labels, not words; .рф is a domain)",
    ("toolkit/limits.py", "^(?:user|channel|chat)[1-9]"):
        "the prefixes of a peer id (user123, channel42): identifiers of the wire format",
    ("toolkit/ingest/export/json/messages.py", "^(?:user|chat|channel)(\\d+)$"):
        "the prefixes of a peer id in Telegram Desktop's export: identifiers of its format",
    ("toolkit/timeparse.py", "^(?:UTC|GMT)?"):
        "names of time standards in an offset (UTC+3): identifiers, not words",
    ("toolkit/lang/names.py", "aa Afar|ab Abkhazian"):
        "ISO 639-1 codes and their English names: the table of codes an LLM is asked to "
        "write in and errors name (the UI is English); no pack reads or writes them",
    ("toolkit/lang/script.py", "A-ZА-ЯЁІЇЄҐ"):
        "the capital letters of the Latin and Cyrillic alphabets: a script, not a language",
    ("toolkit/lang/script.py", "a-zа-яёіїєґ"):
        "the small letters of the Latin and Cyrillic alphabets: a script, not a language",
    ("toolkit/summarize/llm/client.py", "context (window|length|size)"):
        "error messages of LLM servers (llama.cpp, vLLM, OpenAI): the protocol's text, "
        "matched to tell a context overflow, not a language of the chat",
    ("toolkit/summarize/credentials.py", "[?&#](?:pwd|pass|password|passcode|token"):
        "the names of a link's query parameters that carry a secret (?pwd=, &token=): "
        "identifiers of web protocols, the same in a chat of any language",
    ("toolkit/summarize/extractive/draft/adverts.py", "(?:usd|eur|gbp|rub|uah|usdt|btc)"):
        "ISO 4217 currency codes (and two coins' tickers) beside a number: a price's "
        "identifiers, the same in a chat of any language (a pack's words for money are its cue)",
    ("toolkit/summarize/credentials.py", "(?:AKIA|ASIA)"):
        "the prefixes of AWS access key ids: a key's format, not words",
    ("toolkit/summarize/credentials.py", "(?:sk|rk|pk)_(?:live|test)_"):
        "the prefixes of Stripe's keys: a key's format, not words",
    ("toolkit/summarize/llm/plaintext.py", "javascript|vbscript|livescript"):
        "URL schemes a model may write (javascript:, mailto:): identifiers, not words",
    ("toolkit/summarize/llm/plaintext.py", "com|org|net|io|ru|me|dev|ai|app"):
        "top-level domains of bare host names (DNS labels, .рф and .укр are domains)",
    ("toolkit/summarize/llm/plaintext.py", "(?:java|vb|live)script"):
        "URL schemes a model may write: identifiers, not words",
    ("toolkit/summarize/llm/plaintext.py", "рф|укр"):
        "top-level domains of bare host names (.рф and .укр are domains, not words)",
    ("toolkit/summarize/llm/pseudonyms.py", ""):
        "the pseudonyms the LLM engine itself writes (Person 3, PHONE_2, Title 5), the "
        "look-alike letters a spoofed one may use (Unicode confusables: Latin, Cyrillic, "
        "Greek and full-width forms of the same shapes) and Telegram's link forms "
        "(t.me/…): its own tokens and a URL grammar, no language of a chat",
    ("toolkit/summarize/llm/spellings.py", ""):
        "the look-alike letters of the Latin and Cyrillic alphabets (Unicode confusables: "
        "one shape in two scripts), the Cyrillic block's range and the host names of "
        "social platforms' profile links: a script and a URL grammar, no language",
    ("toolkit/summarize/llm/language.py", "(?:person|title)"):
        "the engine's own placeholders (Person 3, Title 5, PHONE_2), taken out of an answer "
        "before its language is detected: its tokens, not words",
    ("toolkit/summarize/llm/grounding.py", "(?P<k>\\s?[kк]\\b)"):
        "the thousands sign after a number (12k, 12к) in the Latin and Cyrillic letter: a "
        "unit sign the grounding check reads in any language, as it reads digits",
    ("toolkit/summarize/llm/prompts.py", "You describe what the"):
        "the LLM's instructions: English is the prompt's language, whatever the summary's",
    ("toolkit/evaluate/digests/calibration.py", "decision open_question plan"):
        "the act labels of the calibration file (digest_acts.jsonl): its format's keys",
    ("toolkit/store/postgres.py", "s ids before after"):
        "the names of a query's SQL parameters: identifiers, not words",
    ("cli/serve.py", "Франция"):
        "an example request in the help of `mlens serve` (the demo's Russian channel): a "
        "sample of data, not a word the code reads or writes",
}  # fmt: skip
"""(file, a piece of the flagged string) → why it is not a word of a language."""


def in_a_pack(relative: str) -> bool:
    """Whether a file is a language's own: ``toolkit/lang/<code>.py`` or under
    ``toolkit/lang/<code>/``."""
    if relative in {f"toolkit/lang/{code}.py" for code in LEXICON_CODES}:
        return True
    return any(relative.startswith(f"toolkit/lang/{code}/") for code in CODES)


@cache
def vocabulary() -> frozenset[str]:
    """The packs' own words of three letters or more: stop, chatter, filler, non-topic
    words and the words of their cue patterns."""
    found: set[str] = set()
    for book in packs():
        found |= book.chatter_words | book.filler_words | book.not_topics
        for pattern in vars(book.cue).values():
            found |= set(_regex_words(pattern.pattern))
    return frozenset(w.casefold() for w in found if len(w) >= 3 and w.isalpha())


def _regex_words(pattern: str) -> list[str]:
    """The words of a regex, its escapes (``\\b``, ``\\w``) taken out."""
    return re.findall(r"[^\W\d_]{3,}", re.sub(r"\\[A-Za-z]", " ", pattern))


def _docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def _strings(node: ast.AST) -> list[str]:
    """The string constants of one expression (an f-string's literal parts too)."""
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _known(words: list[str]) -> list[str]:
    return [w for w in words if w.casefold() in vocabulary()]


def _literal_values(tree: ast.AST) -> set[int]:
    """The value tuples of ``Literal[...]`` types: a type's values are identifiers."""
    return {
        id(node.slice)
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and (getattr(node.value, "id", None) or getattr(node.value, "attr", None)) == "Literal"
    }


def findings(source: str) -> Iterator[tuple[int, str, str]]:
    """``(line, kind, string)`` of every word of a language in one module's source."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    types = _literal_values(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if CYRILLIC.search(node.value):
                yield node.lineno, "cyrillic", node.value
            elif ALTERNATION.search(node.value):
                yield node.lineno, "alternation", node.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in REGEX_CALLS and node.args:
                pattern = " ".join(_strings(node.args[0]))
                if _known(_regex_words(pattern)):
                    yield node.lineno, "regex", pattern
            if node.func.attr == "split" and isinstance(node.func.value, ast.Constant):
                text = str(node.func.value.value)
                if len(_known(text.split())) >= 2:
                    yield node.lineno, "word list", text
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in WORD_SET_CALLS
            and node.args
        ):
            text = " ".join(_strings(node.args[0]))
            if len(_known(text.split())) >= 2:
                yield node.lineno, "word list", text
        if isinstance(node, ast.Set | ast.List | ast.Tuple | ast.Dict) and id(node) not in types:
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            words = [
                i.value
                for i in items
                if isinstance(i, ast.Constant) and isinstance(i.value, str) and id(i) not in docs
            ]
            if len(_known(words)) >= 2:
                yield node.lineno, "word list", " ".join(words)


def _allowed(relative: str, text: str) -> bool:
    return any(path == relative and piece in text for path, piece in ALLOWED)


def scanned_files() -> list[Path]:
    """Every module of the toolkit and its faces that is not a language's own."""
    files = [p for top in SCANNED for p in sorted((ROOT / top).rglob("*.py"))]
    return [p for p in files if not in_a_pack(p.relative_to(ROOT).as_posix())]


def test_no_word_of_any_language_outside_its_pack() -> None:
    found = []
    for path in scanned_files():
        relative = path.relative_to(ROOT).as_posix()
        for line, kind, text in findings(path.read_text(encoding="utf-8")):
            if not _allowed(relative, text):
                found.append(f"{relative}:{line}: {kind}: {text[:80]!r}")
    assert not found, "words of a language outside lang/<code>/:\n" + "\n".join(found)


def test_every_allowed_entry_is_still_there() -> None:
    """An allowance whose string is gone is removed, so the list only names real cases."""
    stale = []
    for (relative, piece), _ in ALLOWED.items():
        path = ROOT / relative
        source = path.read_text(encoding="utf-8") if path.exists() else ""
        hits = [text for _, _, text in findings(source) if piece in text]
        if not hits:
            stale.append((relative, piece))
    assert not stale, stale


LEAKY_MODULE = """
import re

_YOU = re.compile(r"\\b(?:you|your|ya|u|ur)\\b", re.IGNORECASE)
_PLEASE = re.compile(r"\\bplease\\b")
_LAUGH = re.compile("ха+")
STOP = frozenset("the and of".split())
FILLER = {"thanks", "hello", "table"}
"""


@pytest.mark.parametrize(
    ("kind", "piece"),
    [
        ("alternation", "you|your"),
        ("regex", "please"),
        ("cyrillic", "ха+"),
        ("word list", "the and of"),
        ("word list", "thanks"),
    ],
)
def test_the_scan_finds_each_kind_of_word(kind: str, piece: str) -> None:
    found = [(k, text) for _, k, text in findings(LEAKY_MODULE)]
    assert any(k == kind and piece in text for k, text in found), found


def test_the_packs_themselves_are_not_scanned_and_their_neighbours_are() -> None:
    assert in_a_pack("toolkit/lang/en/words.py")
    assert in_a_pack("toolkit/lang/uk.py")
    assert not in_a_pack("toolkit/lang/base.py")
    assert not in_a_pack("toolkit/lang/__init__.py")
    assert not in_a_pack("toolkit/summarize/extractive/compose/digest.py")
    assert ROOT / "toolkit" / "text.py" in scanned_files()
