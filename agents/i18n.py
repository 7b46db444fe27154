"""The languages of ``ddz play``: gettext catalogues, the language chosen, the words typed.

Messages are looked up at run time with the standard library's :mod:`gettext` in the compiled
catalogues shipped with the package (``agents/locale/<lang>/LC_MESSAGES/ddz.mo``, compiled from
the ``.po`` sources next to them with ``python -m agents.i18n`` — Babel, a development tool only).
English is the source language: its messages are the ``msgid`` themselves.

The words a player may type for a command (``pass``, ``hint``, ``quit``, ...) are messages too,
with the context ``"input"``: each translation is a space-separated list of extra words accepted
in that language, on top of the English ones. None of them reads as cards (a test checks).
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path

DOMAIN = "ddz"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: Languages of ``ddz play --lang``, English first (the fallback).
LANGUAGES = ("en", "pt", "it", "es", "id", "zh")
LANGUAGE_NAMES = {
    "en": "English",
    "pt": "Português",
    "it": "Italiano",
    "es": "Español",
    "id": "Bahasa Indonesia",
    "zh": "中文",
}

_current: gettext.NullTranslations = gettext.NullTranslations()
_lang = "en"


def detect_language(environ: Mapping[str, str] | None = None) -> str:
    """The language from ``LANGUAGE``, ``LC_ALL`` or ``LANG`` (the first that names one of
    :data:`LANGUAGES`, as gettext reads them), else English. ``C``/``POSIX`` mean English."""
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LANG"):
        value = env.get(var, "")
        if not value:
            continue
        for part in value.split(":"):
            code = part.split(".")[0].split("@")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
            if code in ("c", "posix"):
                return "en"
        if var != "LANGUAGE":  # LC_ALL or LANG set but unknown: English (as gettext would)
            return "en"
    return "en"


def set_language(lang: str) -> None:
    """Use the catalogue of ``lang`` (one of :data:`LANGUAGES`); ``ValueError`` otherwise.
    A missing compiled catalogue falls back to English."""
    global _current, _lang
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    _lang = lang
    if lang == "en":
        _current = gettext.NullTranslations()
        return
    _current = gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def language() -> str:
    return _lang


def _(message: str) -> str:
    """The current language's text of ``message``."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _current.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """The current language's text of ``message`` in ``context`` (e.g. ``"bid"``)."""
    return _current.pgettext(context, message)


def N_(message: str) -> str:
    """Mark a message for the catalogue without translating it (translated where it is shown)."""
    return message


def words(command: str) -> frozenset[str]:
    """The words accepted for ``command`` (``"pass"``, ``"hint"``, ...): the English ones from
    :data:`INPUT_WORDS` plus the current language's (context ``"input"``)."""
    english = INPUT_WORDS[command]
    local = _current.pgettext("input", command)
    extra = local.split() if local != command else []
    return frozenset(english) | frozenset(w.lower() for w in extra)


#: English words of each command; the catalogues add each language's words.
INPUT_WORDS = {
    "pass": ("pass", "p", "no", "none", "-"),
    "hint": ("hint", "h"),
    "quit": ("quit", "exit", ":q"),
    "undo": ("undo", "u"),
    "history": ("history",),
}

# The input-word messages, so that extraction finds them (context "input").
_INPUT_MESSAGES = (
    gettext.pgettext("input", "pass"),
    gettext.pgettext("input", "hint"),
    gettext.pgettext("input", "quit"),
    gettext.pgettext("input", "undo"),
    gettext.pgettext("input", "history"),
)


def compile_catalogues() -> list[Path]:
    """Compile every ``.po`` under :data:`LOCALE_DIR` to its ``.mo`` (needs Babel)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    done = []
    for po in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with open(po, "rb") as fh:
            catalog = read_po(fh)
        with open(po.with_suffix(".mo"), "wb") as fh:
            write_mo(fh, catalog)
        done.append(po.with_suffix(".mo"))
    return done


if __name__ == "__main__":  # python -m agents.i18n: compile the catalogues
    for path in compile_catalogues():
        print(path.relative_to(LOCALE_DIR.parent.parent))
