"""The languages of ``ddz play``: gettext catalogues, the language chosen, the words typed.

Messages are looked up at run time with the standard library's :mod:`gettext` in the compiled
catalogues shipped with the package (``ddz/play/locale/<lang>/LC_MESSAGES/ddz.mo``, compiled from
the ``.po`` sources next to them with ``python -m ddz.play.i18n`` — Babel, a development tool only).
English is the source language: its messages are the ``msgid`` themselves.

The words a player may type for a command (``pass``, ``hint``, ``quit``, ...) are messages too,
with the context ``"input"``: each translation is a space-separated list of extra words accepted
in that language, on top of the English ones. None of them reads as cards (a test checks).

The command line speaks the chosen language too. ``ddz play`` finds ``--lang`` before parsing
(:func:`language_in_argv`), switches to that language (else the locale's), and only then builds
its parser, so the description and the help of each option are translated messages. argparse's
own words ("usage:", "options", "show this help message and exit", "invalid choice: ...") are
looked up by argparse through the module-global name ``argparse._`` (the standard library's
``gettext.gettext``, bound to gettext's global domain, which would follow the environment, not
``--lang``). :class:`ArgumentParser` routes them to this catalogue instead: while one of its
methods runs (building, parsing, formatting, reporting an error) ``argparse._`` and
``argparse.ngettext`` are this module's lookups, and they are put back afterwards. The argparse
messages a player can meet are listed in :data:`ARGPARSE_MESSAGES` so that extraction finds
them; one missing from a catalogue (a newer Python's rewording) shows in English.
"""

from __future__ import annotations

import argparse
import contextlib
import gettext
import os
import re
import unicodedata
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


#: The languages' names in English, for the note said in English when a terminal can't show one.
ENGLISH_NAMES = {
    "en": "English",
    "pt": "Portuguese",
    "it": "Italian",
    "es": "Spanish",
    "id": "Indonesian",
    "zh": "Chinese",
}


def catalogue_text() -> str:
    """Every translated message of the current language, joined (empty for English): what a
    terminal must be able to show to play in it."""
    return "".join(str(v) for v in getattr(_current, "_catalog", {}).values())


def _(message: str) -> str:
    """The current language's text of ``message``."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _current.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """The current language's text of ``message`` in ``context`` (e.g. ``"bid"``)."""
    return _current.pgettext(context, message)


#: Spanish writes "e", not "y", before a word that starts with an i sound (``Izquierda``,
#: ``hielo`` aside: "hi" before a vowel is a consonant sound).
_I_SOUND = re.compile(r"(?i)h?[ií](?![aeouáéó])")


def join_names(names: list[str]) -> str:
    """``names`` as a list in the current language: ``"Right, Across and Left"``
    (``"Derecha, Enfrente e Izquierda"``: the Spanish conjunction follows the next sound)."""
    if len(names) < 2:
        return "".join(names)
    template = pgettext("list", "{names} and {last}")
    if _lang == "es" and _I_SOUND.match(names[-1]):
        template = template.replace(" y {last}", " e {last}")
    rest = pgettext("list", ", ").join(names[:-1])
    return template.format(names=rest, last=names[-1])


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
    "claim": ("claim", "call"),  # call and grab: the two-player game's claim and rob
    "rob": ("rob", "grab"),
    "open": ("open",),
}

# The input-word messages, so that extraction finds them (context "input").
_INPUT_MESSAGES = (
    gettext.pgettext("input", "pass"),
    gettext.pgettext("input", "hint"),
    gettext.pgettext("input", "quit"),
    gettext.pgettext("input", "undo"),
    gettext.pgettext("input", "history"),
    gettext.pgettext("input", "claim"),
    gettext.pgettext("input", "rob"),
    gettext.pgettext("input", "open"),
)


# ---------------------------------------------------------------------------------- argparse
#: argparse's own messages that ``ddz play`` can show (help, usage errors), as argparse spells
#: them; translated in the catalogues like every other message.
ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("%(heading)s:"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("expected one argument"),
    N_("ignored explicit argument %r"),
    N_("unrecognized arguments: %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
)


@contextlib.contextmanager
def argparse_words():
    """While inside, argparse's own words come from the current catalogue."""
    saved = argparse._, argparse.ngettext
    argparse._, argparse.ngettext = _, ngettext
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved


def _columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _may_break(before: str, after: str) -> bool:
    """Whether a line may break between two characters of one word: next to a wide (CJK)
    character, but never before closing punctuation nor after opening punctuation."""
    if not (_columns(before) == 2 or _columns(after) == 2):
        return False
    return unicodedata.category(after) not in ("Pe", "Po", "Pf") and (
        unicodedata.category(before) not in ("Ps", "Pi")
    )


def wrap_columns(text: str, width: int) -> list[str]:
    """``text`` (spaces collapsed) in lines of at most ``width`` terminal columns, broken at
    spaces and, in Chinese, between characters; a word wider than ``width`` is left whole."""
    pieces: list[tuple[str, bool]] = []  # (piece, a space before it)
    for word in text.split():
        start = 0
        for k in range(1, len(word)):
            if _may_break(word[k - 1], word[k]):
                pieces.append((word[start:k], start == 0))
                start = k
        pieces.append((word[start:], start == 0))
    lines: list[str] = []
    line, used = "", 0
    for piece, spaced in pieces:
        gap = 1 if spaced and line else 0
        n = _columns(piece)
        if line and used + gap + n > width:
            lines.append(line)
            line, used = piece, n
        else:
            line, used = line + " " * gap + piece, used + gap + n
    if line:
        lines.append(line)
    return lines


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, wrapping by terminal columns: a Chinese character takes two and a
    line may break between two of them (argparse's own wrapping breaks at spaces only and
    counts characters). ASCII text is wrapped by argparse as usual. Headings end with the
    catalogue's colon."""

    def start_section(self, heading):
        self._headings = [*getattr(self, "_headings", []), heading]
        super().start_section(heading)

    def format_help(self):
        """argparse's help; a heading's colon is the catalogue's ``%(heading)s:`` (Python
        before 3.13 writes an ASCII colon after every heading, even in Chinese)."""
        text = super().format_help()
        for heading in getattr(self, "_headings", []):
            if heading and not heading.isascii():
                local = _("%(heading)s:") % {"heading": heading}
                text = text.replace(f"\n{heading}:\n", f"\n{local}\n")
        return text

    def _split_lines(self, text, width):
        if text.isascii():
            return super()._split_lines(text, width)
        return wrap_columns(text, width)

    def _fill_text(self, text, width, indent):
        if text.isascii():
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap_columns(text, width - len(indent)))


class ArgumentParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose own words (usage, headings, errors) are in the
    current language, and whose help is wrapped by :class:`HelpFormatter`. Build it after
    :func:`set_language`."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        with argparse_words():
            super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        with argparse_words():
            return super().parse_known_args(args, namespace)

    def parse_args(self, args=None, namespace=None):
        with argparse_words():
            return super().parse_args(args, namespace)

    def format_usage(self):
        with argparse_words():
            return super().format_usage()

    def format_help(self):
        with argparse_words():
            return super().format_help()

    def error(self, message):
        with argparse_words():
            super().error(message)


def language_in_argv(argv: list[str]) -> str | None:
    """The language named by ``--lang`` in a command line (also ``--lang=xx`` and the
    abbreviations argparse accepts), or ``None`` when there is none or it is not one of
    :data:`LANGUAGES` (argparse then reports it, in the locale's language). Never exits."""
    value = None
    for k, arg in enumerate(argv):
        if arg == "--":
            break
        name, eq, rest = arg.partition("=")
        if name in ("--la", "--lan", "--lang"):
            if eq:
                value = rest
            elif k + 1 < len(argv):
                value = argv[k + 1]
    code = value.strip().lower() if value is not None else None
    return code if code in LANGUAGES else None


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


if __name__ == "__main__":  # python -m ddz.play.i18n: compile the catalogues
    for path in compile_catalogues():
        print(path.relative_to(LOCALE_DIR.parent.parent))
