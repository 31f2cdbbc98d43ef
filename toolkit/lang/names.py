"""Output languages: the ISO 639-1 codes a request may name, and their names in words.

Prompts name the output language in words ("Russian"), because models follow a named
language more reliably than a bare code. The extractive engine writes only the
languages it has a phrasebook for (``toolkit.summarize.extractive.templates``).
"""

from __future__ import annotations

from toolkit.errors import InvalidRequest

# ISO 639-1 (the 183 current codes and the deprecated 'sh'), English names.
_TABLE = """
aa Afar|ab Abkhazian|ae Avestan|af Afrikaans|ak Akan|am Amharic|an Aragonese|ar Arabic|
as Assamese|av Avaric|ay Aymara|az Azerbaijani|ba Bashkir|be Belarusian|bg Bulgarian|
bi Bislama|bm Bambara|bn Bengali|bo Tibetan|br Breton|bs Bosnian|ca Catalan|ce Chechen|
ch Chamorro|co Corsican|cr Cree|cs Czech|cu Church Slavonic|cv Chuvash|cy Welsh|da Danish|
de German|dv Divehi|dz Dzongkha|ee Ewe|el Greek|en English|eo Esperanto|es Spanish|
et Estonian|eu Basque|fa Persian|ff Fulah|fi Finnish|fj Fijian|fo Faroese|fr French|
fy Western Frisian|ga Irish|gd Scottish Gaelic|gl Galician|gn Guarani|gu Gujarati|
gv Manx|ha Hausa|he Hebrew|hi Hindi|ho Hiri Motu|hr Croatian|ht Haitian Creole|
hu Hungarian|hy Armenian|hz Herero|ia Interlingua|id Indonesian|ie Interlingue|ig Igbo|
ii Sichuan Yi|ik Inupiaq|io Ido|is Icelandic|it Italian|iu Inuktitut|ja Japanese|
jv Javanese|ka Georgian|kg Kongo|ki Kikuyu|kj Kuanyama|kk Kazakh|kl Kalaallisut|
km Khmer|kn Kannada|ko Korean|kr Kanuri|ks Kashmiri|ku Kurdish|kv Komi|kw Cornish|
ky Kyrgyz|la Latin|lb Luxembourgish|lg Ganda|li Limburgish|ln Lingala|lo Lao|
lt Lithuanian|lu Luba-Katanga|lv Latvian|mg Malagasy|mh Marshallese|mi Maori|
mk Macedonian|ml Malayalam|mn Mongolian|mr Marathi|ms Malay|mt Maltese|my Burmese|
na Nauru|nb Norwegian Bokmål|nd North Ndebele|ne Nepali|ng Ndonga|nl Dutch|
nn Norwegian Nynorsk|no Norwegian|nr South Ndebele|nv Navajo|ny Chichewa|oc Occitan|
oj Ojibwa|om Oromo|or Oriya|os Ossetian|pa Punjabi|pi Pali|pl Polish|ps Pashto|
pt Portuguese|qu Quechua|rm Romansh|rn Kirundi|ro Romanian|ru Russian|rw Kinyarwanda|
sa Sanskrit|sc Sardinian|sd Sindhi|se Northern Sami|sg Sango|sh Serbo-Croatian|si Sinhala|sk Slovak|
sl Slovenian|sm Samoan|sn Shona|so Somali|sq Albanian|sr Serbian|ss Swati|
st Southern Sotho|su Sundanese|sv Swedish|sw Swahili|ta Tamil|te Telugu|tg Tajik|th Thai|
ti Tigrinya|tk Turkmen|tl Tagalog|tn Tswana|to Tonga|tr Turkish|ts Tsonga|tt Tatar|
tw Twi|ty Tahitian|ug Uyghur|uk Ukrainian|ur Urdu|uz Uzbek|ve Venda|vi Vietnamese|
vo Volapük|wa Walloon|wo Wolof|xh Xhosa|yi Yiddish|yo Yoruba|za Zhuang|zh Chinese|zu Zulu
"""

LANGUAGES: dict[str, str] = dict(
    entry.strip().split(" ", 1) for entry in _TABLE.replace("\n", "").split("|") if entry.strip()
)


def normalise_language(code: str) -> str:
    """Return a request's language as a lower-case ISO 639-1 code.

    Args:
        code: the code as given (``"en"``, ``"RU"``, ``" de "``).

    Returns:
        The code in lower case.

    Raises:
        InvalidRequest: (field ``language``) when it is no ISO 639-1 code.
    """
    value = (code or "").strip().lower()
    if value not in LANGUAGES:
        raise InvalidRequest(
            f"language {code!r} is not an ISO 639-1 code (two letters, e.g. 'en', 'ru')",
            field="language",
        )
    return value


def language_name(code: str) -> str:
    """The English name of an ISO 639-1 code (``"ru"`` -> ``"Russian"``)."""
    return LANGUAGES[normalise_language(code)]
