"""English words of the extractive engine: cues, chatter, filler, abbreviations, period wording."""

from __future__ import annotations

from toolkit.lang.base import word_set as _words
from toolkit.lang.en.lexicon import STOP_WORDS as STOP_WORDS_EN

CODE = "en"
SCRIPT = "latin"
QUOTES = "“”"
AND = "and"
NOUNS = {
    "message": "message|messages",
    "participant": "participant|participants",
    "post": "post|posts",
    "conversation": "conversation|conversations",
    "other": "other|others",
    "topic": "topic|topics",
}
"""Nouns the engine counts, by key, as ``count`` takes them."""


CHATTER_WORDS = (
    _words(
        """hi hii hello hey heya hiya yo sup morning evening night gm gn bye goodbye cya ya see
    you u later soon thanks thank thx ty tnx cheers welcome np ok okay okey k kk oki okie
    lol lolz haha hahaha hehe lmao rofl omg wow woah oh ah aha uh um hmm mm yes yeah yea yep
    yup no nope nah sure cool nice great good fine awesome perfect excellent super right
    true exactly indeed agreed same too me also alright all right got it sounds sound
    love xd xoxo bro dude guys mate dear man pls please sorry oops yay hooray congrats
    friend buddy pal now then ya doing going up whats hows friends dears folks everyone
    everybody ladies gentlemen"""
    )
    | STOP_WORDS_EN
)
"""Words that make up greetings, thanks and backchannels (stop words too)."""

FILLER_WORDS = _words(
    """thanks thank thx please hi hello hey yeah yep nope sure right good great cool nice
    lol got get gets going gonna want wants know think let make made maybe really still
    already anyway back done thing things said say says see well like need one much many
    time day days week month year today tomorrow yesterday haha hahaha lol lmao omg
    morning mornings afternoon evening evenings night nights weekend hour hours minute
    monday tuesday wednesday thursday friday saturday sunday
    kind sort lot lots bit way ways stuff person people guy guys someone something
    anything nothing everything everyone anyone somebody anybody thing things idea
    part kinds sorts point fact case cannot"""
)
"""Small talk, time words and generic nouns that never make a topic title."""

NOT_TOPICS = _words("mean means meant guess guessing feel feels felt sound sounds look looks")
"""Discourse verbs ("I mean", "I guess", "sounds good") that look like nouns to a
dictionary: never a topic, though they count as words of the conversation."""

ABBREVIATIONS = _words(
    """mr mrs ms dr prof sr jr st mt ft no nos vs etc e.g i.e a.m p.m approx dept inc ltd corp
    jan feb mar apr jun jul aug sep sept oct nov dec tue thu fri vol cf"""
)
"""Words that end with a dot inside a sentence ("Mr. Smith", "e.g. this")."""

FAREWELL = (
    r"\b(?:take care|(?:i )?(?:have|got|need|must) to (?:go|run)(?: now)?|gotta (?:go|run)|"
    r"talk (?:to you )?(?:later|soon|tomorrow)|ttyl|catch you later|"
    r"see (?:you|ya) (?:later|soon|tomorrow|around)|until next time|"
    r"(?:it was )?(?:nice|good|great|lovely) (?:talking|chatting|speaking) (?:to|with) you|"
    r"have a (?:good|nice|great|lovely) (?:day|night|evening|weekend|one|time)|"
    r"good night|sweet dreams)\b"
)
PROPOSAL = (
    r"\b(?:let'?s|let us|how about|what about|shall we|should we|why don'?t|we could|"
    r"you could|i suggest|i propose|i recommend|maybe we|wanna|would you like)\b"
)
DECISION = (
    r"\b(?:we|i|they|he|she)(?:'ve| have| has)?(?: just| already| finally| now)? (?:decided|"
    r"agreed|settled|booked|reserved|bought|paid|confirmed|ordered|signed|chose|picked|"
    r"went with|merged|fixed|switched|approved)\b|"
    r"^\W*(?:just )?(?:booked|reserved|bought|paid|confirmed|ordered|signed|decided|done|"
    r"approved|merged|fixed|switched|final)\b|"
    r"\b(?:booked|confirmed|ordered|merged|reserved|signed|approved|switched|paid|fixed)"
    r"(?: too| already)?\s*(?:[!✅.:]|$)|"
    r"\b(?:it'?s|that'?s|is) (?:decided|settled|a deal|booked|confirmed|reserved|final)\b|"
    r"\bwe(?:'re| are) going with\b|\bfinal decision\b|\bdecision:"
)
AGREEMENT = (
    r"^\W*(?:yes|yeah|yep|yup|sure|ok|okay|agreed|deal|sounds good|sounds great|"
    r"good idea|great idea|let'?s do it|perfect|fine|of course|absolutely|why not)\b"
)
REFUSAL = r"^\W*(?:no|nope|nah|i can'?t|can'?t|not really|i don'?t think so|sorry,? (?:i|we))\b"
PLAN = (
    r"\b(?:i'?ll|we'?ll|i will|we will|will do|i'?m going to|we'?re going to|gonna|"
    r"i plan|we plan|planning to|(?:i'?m|we'?re|i am|we are) (?:meeting|leaving|coming|flying|"
    r"seeing|taking|going|driving|heading|arriving|staying|checking|starting|moving|picking)|"
    r"we (?:take|leave|meet|fly|go|arrive|start|depart|check in|head|pick up|sign|move|land)|"
    r"(?:is|are|'s) (?:on|this|next) (?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"^\W*reminder\b|will|sign up|register|join us|rsvp)\b"
)
WHEN = (
    r"\b(?:today|tonight|tomorrow|(?:this|next) (?:week|weekend|month|morning|evening)|"
    r"(?:on )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"at \d{1,2}(?::\d\d)?\s*(?:am|pm)?|\d{1,2}(?::\d\d)\s*(?:am|pm)?|\d{1,2}\s*(?:am|pm)|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}(?:st|nd|rd|th)?|"
    r"\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december))\b"
)

HEDGE = (
    r"\b(?:i think|i thought|i guess|i believe|i suppose|i assume|i hope|maybe|might|perhaps|"
    r"probably|possibly|not sure|unsure|if|unless|whether|not|never|no longer|\w+n['’]t|"
    # "dont", "cant" without the apostrophe; a bare "\w+nt" would hedge "went", "rent", "important"
    r"(?:do|does|did|is|are|was|were|have|has|had|ca|could|would|should|wo|must|need)nt|"
    r"hopefully|seems?|apparently|supposedly|would|could|should|but|though|although|"
    r"pending|tentative(?:ly)?|yet|(?:those|everyone|anyone|all) who|"
    # an attempt or a wish decides nothing: "ill try to have it fixed", "we want to book"
    r"try|tries|trying|tried|attempt\w*|(?:want|wants|wanted|need|needs|hope) to|wanna)\b"
)
PAST = (
    r"\b(?:was|were|did|had|went|watched|saw|came|yesterday|ago|used to|last (?:night|week|"
    r"weekend|month|year|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:we|i|they|he|she) (?:\w+ed|got|went|saw|ate|took|had|made|did|came|left|met|"
    r"bought|paid|spent|found|lost))\b"
)
WISH = (
    r"\b(?:enjoy|good luck|best of luck|happy (?:birthday|holidays?|new year|easter|"
    r"christmas|hanukkah|anniversary)|merry christmas|congrat\w*|have (?:a )?(?:good|nice|"
    r"great|safe|lovely|wonderful|fun)|hope you|wish(?:ing)? you|get well|safe (?:travels?|"
    r"trip|flight|journey)|bon voyage|cheers to|let'?s (?:celebrate|toast|drink to|raise a glass)|"
    r"here'?s to)\b"
)
US = r"\b(?:we|we'?ve|we'?re|we'?ll|our|us)\b"
SECRET = (
    r"\b(?:pass(?:word|code|phrase)?s?|passwd|pwd|pin(?: code)?|log-?in|user ?name|user ?id|"
    r"access (?:code|key)|api[ _-]?(?:key|token)|secret(?: key)?|private key|seed phrase|"
    r"(?:auth|access) token|wi-?fi (?:key|code))\b"
)
"""What names a password, login or key: the value after it is a secret ("password: x")."""
OFFER = (
    r"\b(?:dm|pm me|text me|contact (?:me|us)|call (?:me|us|now)|whatsapp|"
    r"order now|buy now|shop now|sign up|register now|subscribe|join (?:us|now|our)|"
    r"limited (?:offer|time)|discount|promo ?code|free (?:shipping|delivery|trial)|for sale|"
    r"selling|best offer|hurry)\b"
)
"""Calls to action and offers ("DM me", "for sale", "discount"): an advert's evidence."""
PRICE = r"\b(?:price[sd]?|costs?|per (?:month|night|hour|person)|bucks|dollars?|euros?|pounds?)\b"
"""Words of a price ("price", "per night", "dollars"): beside a number, an offer's price."""
YOU = r"\b(?:you|your|ya|u|ur)\b"
DAY_PART = r"(?<![\w:])(?:\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.))(?!\w)"
ASKS_WHOM = (
    r"(?:asks|tells|reminds|wants)\s+{who}(?!\w),?\s+"
    r"(?:whether|if|what|when|where|why|how|who|which|to|that|about)\b"
)
"""The reported speech of ``retell`` that asks someone something ("asks Ann whether")."""
RESOLVED = (
    r"\b(?:never ?mind|nvm|found it|figured (?:it )?out|sorted (?:it )?out|solved it|"
    r"got it working|no longer needed|all sorted)\b"
)
RHETORICAL = (
    r"\b(?:who (?:would have|would've|knew|cares)|why not|isn'?t it|aren'?t (?:they|we|you)|"
    r"don'?t you think|what could (?:possibly )?go wrong|guess what|you know what|"
    r"how (?:cool|great|nice|sweet|awesome|lovely) is that|right|"
    r"who (?:doesn'?t|does not|wouldn'?t|would not|isn'?t|didn'?t) [^?]*|"
    r"how (?:great|cool|amazing|awesome|good|bad|funny|cute|sad|crazy|weird) "
    r"(?:is|was|are|were)\b[^?]*)\s*\?"
)
LEANING = (
    r"(?:so|therefore|thus|hence|that'?s why|which|otherwise|although|"
    r"though|as a result|in conclusion|for (?:example|instance)|because|"
    r"that means|this means)(?![\w'])"
)
"""Opening words of a sentence that leans on the one before it (``Cues.leaning``)."""
INTERROGATIVE = r"(?:what|which|who|whose|why|how)(?![\w'’-])"
"""A question's opening word (``Cues.interrogative``): "what coin ser" asks back."""
LEANS_BACK = (
    r"(?:(?:he|she|they|it|this|that|these|those)(?:['’](?:s|re|ll|d|ve))?|"
    r"him|them|his|her|their|and|but|or|then|cause|['’]cause|cuz|coz|also|i agree|me too|"
    r"same here)(?![\w'’])"
)
"""Opening words of a message that points back to the one before it: a pronoun, a
demonstrative, a conjunction, an agreement with what was said ("I agree", "me too")
(``Cues.leans_back``). An answer word ("yes", "well") is none: what follows it often
stands alone; nor a verb without its subject ("can be…"):
chats ask that way without a question mark ("did you pay the bill")."""
DANGLING = r"(?<![\w'])(?:and|or|but|nor|the|an?|of|because|than|whether|my|your|our|their)$"
"""Words no sentence ends on (``Cues.dangling``): a text that stops on one was cut off."""

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_MONTHS_SHORT = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
_UNITS = r"(?:period|week|weekend|month|year|day|quarter|fortnight|time ?frame|date range)"
PERIOD_PATTERNS = (
    rf"\b(?:this|last|past|previous|next|current|same|that|coming) {_UNITS}s?\b",
    rf"\b(?:during|over|in|within|for|throughout|across|through) the (?:\w+ )?{_UNITS}s?\b",
    r"\b(?:today|yesterday|tomorrow|tonight|recently|lately|nowadays|currently)\b",
    r"\b(?:this|tomorrow|yesterday|on \w+day) (?:morning|afternoon|evening|night)\b",
    r"\b(?:right now|just now|at the moment|at present|these days|earlier today|later today|"
    r"the other day|a (?:few|couple of) (?:days|weeks|hours) ago|(?:\d+|an?) (?:hours?|days?|"
    r"weeks?|minutes?) ago)\b",
    rf"\b(?:{_MONTHS}|(?:{_MONTHS_SHORT})\.?) \d{{1,2}}(?:st|nd|rd|th)?\b",
    rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS})\b",
    r"\b(?:in|since|until|till|by|during|through) (?:early |late |mid-)?"
    rf"(?:{_MONTHS}|(?:19|20)\d\d)\b",
    r"\b(?:selected|given|reporting|covered|whole|entire|summary|this|the) period\b",
)
"""Wording that names a time: a source summary never uses it."""

MONTHS = tuple(m.capitalize() for m in _MONTHS.split("|"))

LAUGHTER = r"x+d+|lo+l+z?|lmf?ao+|rofl|a?(?:h+a+){2,}h*|(?:he){2,}h?"
"""Laughter as English chats write it ("XD", "LOL", "hahah"), matched against a whole
lower-case token: never a topic, even in capitals."""

MEDIA = {
    "photo": "photo",
    "video": "video",
    "video file": "video",
    "video message": "video message",
    "animation": "GIF",
    "gif": "GIF",
    "voice message": "voice message",
    "audio file": "audio",
    "audio": "audio",
    "file": "file",
    "document": "document",
    "sticker": "sticker",
    "contact": "contact",
    "venue": "place",
    "location": "location",
    "live location": "live location",
    "poll": "poll",
    "todo": "to-do list",
    "dice": "dice",
    "game": "game",
    "invoice": "invoice",
    "story": "story",
}
"""Attachment kinds, by the importers' names, as English quotes show their marks."""
