"""What a message does in a conversation: chatter, a question, a proposal, a decision, a share.

Rules, not a model, in English and Russian. Chatter (greetings, thanks, backchannels
such as "ok", "lol", "+1", "Hey..", bare reactions) is no content: a digest never
quotes it. The other acts choose the digest's verb: who *asked*, *proposed*,
*decided*, *shared* or *announced* what.
"""

from __future__ import annotations

import re
from enum import Enum

from toolkit.text import STOP_WORDS, URL_RE, tokenize


class Act(Enum):
    """A message's role, in the order a digest prefers them."""

    QUESTION = "question"
    PROPOSAL = "proposal"
    DECISION = "decision"
    SHARE = "share"
    STATEMENT = "statement"
    CHATTER = "chatter"


CHATTER_WORDS = (
    frozenset(
        """hi hii hello hey heya hiya yo sup morning evening night gm gn bye goodbye cya ya see
    you u later soon thanks thank thx ty tnx cheers welcome np ok okay okey k kk oki okie
    lol lolz haha hahaha hehe lmao rofl omg wow woah oh ah aha uh um hmm mm yes yeah yea yep
    yup no nope nah sure cool nice great good fine awesome perfect excellent super right
    true exactly indeed agreed same too me also alright all right got it sounds sound
    love xd xoxo bro dude guys mate dear man pls please sorry oops yay hooray congrats
    friend buddy pal now then
    привет приветик здравствуй здравствуйте хай салют пока доброе добрый утро вечер день
    спасибо спс благодарю пожалуйста ок окей ага угу да нет неа ладно хорошо отлично класс
    круто супер понятно ясно согласен согласна точно ну хах хаха ахах лол ого вау ой блин
    ya doing going up whats hows как дела""".split()  # noqa: SIM905
    )
    | STOP_WORDS
)
"""Words that make up greetings, thanks and backchannels in en and ru (stop words too)."""

_FAREWELL_RE = re.compile(
    r"\b(?:take care|(?:i )?(?:have|got|need|must) to (?:go|run)(?: now)?|gotta (?:go|run)|"
    r"talk (?:to you )?(?:later|soon|tomorrow)|ttyl|catch you later|"
    r"see (?:you|ya) (?:later|soon|tomorrow|around)|until next time|"
    r"(?:it was )?(?:nice|good|great|lovely) (?:talking|chatting|speaking) (?:to|with) you|"
    r"have a (?:good|nice|great|lovely) (?:day|night|evening|weekend|one|time)|"
    r"good night|sweet dreams|мне пора|пора идти|до встречи|до завтра|увидимся|"
    r"спокойной ночи|хорошего (?:дня|вечера)|береги себя)\b",
    re.IGNORECASE,
)
"""Leave-taking formulas ("Now I have to go! Take care", "мне пора, до завтра"): a
message made of them and chatter words is chatter."""

_QUESTION_RE = re.compile(r"\?\s*[)\]»”\"']*\s*$|\?\s")
_PROPOSAL_RE = re.compile(
    r"\b(?:let'?s|let us|how about|what about|shall we|should we|why don'?t|we could|"
    r"you could|i suggest|i propose|i recommend|maybe we|wanna|would you like|"
    r"давай|давайте|предлагаю|предлагаем|как насч[её]т|может быть|можем|не хочешь|"
    r"не хотите|стоит)\b",
    re.IGNORECASE,
)
_DECISION_RE = re.compile(
    r"\b(?:decided|agreed|deal|settled|we'?ll|we will|i'?ll|i will|will do|i'?m going to|"
    r"we'?re going to|done|confirmed|booked|approved|решили|решено|договорились|"
    r"сделаю|сделаем|беру|берём|берем|утвердили|подтверждаю|буду|будем)\b",
    re.IGNORECASE,
)
_MEDIA_RE = re.compile(r"^\[(?:photo|video|document|file|audio|voice|sticker|gif)[^\]]*\]$")
_PLACEHOLDER_RE = re.compile(r"^(?:\s*(?:<[\w .:-]{1,40}>|\[[\w .:-]{1,40}\]))+\s*$")


def is_placeholder(text: str) -> bool:
    """Whether ``text`` is only markup standing for an attachment ("<photo>",
    "[video]", "<Media omitted>"): a message without words of its own."""
    return bool(_PLACEHOLDER_RE.match(text))


def is_chatter(text: str) -> bool:
    """Whether ``text`` is a greeting, thanks, a leave-taking, a backchannel or a bare
    reaction."""
    words = _FAREWELL_RE.sub(" ", URL_RE.sub(" link ", text))
    tokens = [t for t in tokenize(words) if not t.isdigit()]
    return all(t in CHATTER_WORDS for t in tokens)


def act_of(text: str) -> Act:
    """The role of one message, from its own text."""
    stripped = text.strip()
    if is_chatter(stripped):
        return Act.CHATTER
    if URL_RE.search(stripped) or _MEDIA_RE.match(stripped):
        return Act.SHARE
    if _QUESTION_RE.search(stripped):
        return Act.QUESTION
    if _PROPOSAL_RE.search(stripped):
        return Act.PROPOSAL
    if _DECISION_RE.search(stripped):
        return Act.DECISION
    return Act.STATEMENT
