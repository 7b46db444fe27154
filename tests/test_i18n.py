"""``ddz play`` in every language: the catalogues, the words typed, and whole games rendered
without a word of English left (card ranks apart)."""

from __future__ import annotations

import gettext
import io
import re
from pathlib import Path

import numpy as np
import pytest

from agents import i18n, play
from ddz_env.cards import CardParseError, parse_counts

ROOT = Path(__file__).resolve().parent.parent
CODE = "3Y0C-1DTY-ZV4Y-543P-FXXE-Y2E"
SOURCES = ["i18n.py", "play.py", "play_render.py", "play_text.py", "stats.py"]
OTHERS = i18n.LANGUAGES[1:]
#: Commands typed as English words only, in every language.
FIXED_WORDS = {"help", "?", "show", "s", "counter", "c", "check", "r", "n", "q", "bid"}


@pytest.fixture(autouse=True)
def english_after(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield
    i18n.set_language("en")


def catalogue(lang: str) -> gettext.GNUTranslations:
    path = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "ddz.mo"
    with open(path, "rb") as fh:
        return gettext.GNUTranslations(fh)


def source_messages() -> set:
    """Every message marked in the sources (keys as the compiled catalogues spell them)."""
    extract = pytest.importorskip("babel.messages.extract")
    keywords = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
    found = set()
    for name in SOURCES:
        path = ROOT / "agents" / name
        for _line, message, _comments, context in extract.extract_from_file(
            "python", str(path), keywords=keywords
        ):
            if isinstance(message, tuple):
                found.add((message[0], 0))
            elif context:
                found.add(f"{context}\x04{message}")
            else:
                found.add(message)
    return found


# ---------------------------------------------------------------------------------- catalogues
@pytest.mark.parametrize("lang", OTHERS)
def test_compiled_catalogues_match_their_sources(lang):
    pofile = pytest.importorskip("babel.messages.pofile")
    po = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "ddz.po"
    with open(po, "rb") as fh:
        source = pofile.read_po(fh)
    compiled = catalogue(lang)._catalog
    expected = {}
    for m in source:
        if not m.id:
            continue
        key = m.id if m.context is None else None
        if isinstance(m.id, tuple):
            for k, text in enumerate(m.string):
                expected[(m.id[0], k)] = text
        else:
            key = m.id if m.context is None else f"{m.context}\x04{m.id}"
            expected[key] = m.string
    compiled = {k: v for k, v in compiled.items() if k != ""}
    assert compiled == expected  # run: python -m agents.i18n


def test_every_catalogue_has_every_message():
    wanted = source_messages()
    assert len(wanted) > 150
    for lang in OTHERS:
        have = catalogue(lang)._catalog
        missing = sorted(str(m) for m in wanted if not have.get(m))
        assert not missing, (lang, missing[:5])
        keys = {(k[0], 0) if isinstance(k, tuple) else k for k in have if k}
        stale = sorted(str(k) for k in keys if k not in wanted)
        assert not stale, (lang, stale[:5])


@pytest.mark.parametrize("lang", OTHERS)
def test_translations_keep_their_placeholders(lang):
    for key, text in catalogue(lang)._catalog.items():
        if not key:
            continue
        msgid = key[0] if isinstance(key, tuple) else key.split("\x04")[-1]
        assert set(re.findall(r"\{\w+\}", text)) <= set(re.findall(r"\{\w+\}", msgid)), key
        if "{" in msgid and not isinstance(key, tuple):
            assert set(re.findall(r"\{\w+\}", text)) == set(re.findall(r"\{\w+\}", msgid)), key


def test_language_from_the_environment():
    assert i18n.detect_language({}) == "en"
    assert i18n.detect_language({"LANG": "pt_BR.UTF-8"}) == "pt"
    assert i18n.detect_language({"LANG": "it_IT.UTF-8", "LC_ALL": "es_ES.UTF-8"}) == "es"
    assert i18n.detect_language({"LANGUAGE": "fr:zh_CN", "LANG": "pt_BR.UTF-8"}) == "zh"
    assert i18n.detect_language({"LANGUAGE": "", "LANG": "id_ID.UTF-8"}) == "id"
    assert i18n.detect_language({"LANG": "C.UTF-8"}) == "en"
    assert i18n.detect_language({"LANG": "fr_FR.UTF-8"}) == "en"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        i18n.set_language("fr")


def test_bad_lang_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        play.main(["--lang", "fr"])
    assert exc.value.code == 2
    assert "'fr' is not one of the languages: en, pt, it, es, id, zh" in capsys.readouterr().err


def test_help_lists_the_languages(capsys):
    with pytest.raises(SystemExit):
        play.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for lang, name in i18n.LANGUAGE_NAMES.items():
        assert f"{lang} ({name})" in out
    assert "--undo" in out


# ---------------------------------------------------------------------------------- words
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_command_words_are_never_cards_and_never_shared(lang):
    i18n.set_language(lang)
    owner: dict[str, str] = {}
    for command in i18n.INPUT_WORDS:
        for word in i18n.words(command):
            assert word not in FIXED_WORDS, (lang, word)
            assert owner.setdefault(word, command) == command, (lang, word)
            if word == "-":  # a separator between cards: nothing typed
                continue
            with pytest.raises(CardParseError):
                parse_counts(word)
    local = set().union(*(i18n.words(c) for c in i18n.INPUT_WORDS))
    english = set().union(*(map(set, i18n.INPUT_WORDS.values())))
    if lang != "en":
        assert local - english  # the language adds its own words


@pytest.mark.parametrize("lang", OTHERS)
def test_local_words_work_in_the_game(lang):
    i18n.set_language(lang)
    hint, pass_, quit_ = (
        sorted(i18n.words(c) - set(i18n.INPUT_WORDS[c]))[0] for c in ("hint", "pass", "quit")
    )
    lines = [pass_, hint, "", pass_, quit_]  # pass the bid, hint when following...
    out = io.StringIO()
    rc = play.main(
        ["--lang", lang, "--level", "normal", "--code", CODE, "--fast", "--no-stats"],
        stdin=io.StringIO("".join(x + "\n" for x in lines * 3)),
        stdout=out,
    )
    text = out.getvalue()
    assert rc == 0 and "Traceback" not in text
    assert i18n._("hint {k}/{n}: {play} · Enter plays it, hint shows another").split("{")[0] in text
    assert i18n._("Bye. (This hand was not finished, so it is not counted.)") in text or (
        i18n._("Bye. You left the hand, so it counts as a loss: {points} points.").split("{")[0]
        in text
    )


# ---------------------------------------------------------------------------------- leaks
class Recorder:
    """Wraps the current translations and notes every message looked up."""

    def __init__(self, inner):
        self.inner, self.seen = inner, set()

    def gettext(self, message):
        self.seen.add(message)
        return self.inner.gettext(message)

    def ngettext(self, singular, plural, n):
        self.seen.add((singular, 0))
        return self.inner.ngettext(singular, plural, n)

    def pgettext(self, context, message):
        self.seen.add(f"{context}\x04{message}")
        return self.inner.pgettext(context, message)


def english_words() -> set[str]:
    words = set()
    for message in source_messages():
        text = message[0] if isinstance(message, tuple) else message.split("\x04")[-1]
        text = re.sub(r"\{\w+\}", " ", text)
        words |= {w.lower() for w in re.findall(r"[A-Za-z']{3,}", text)}
    return words


def translated_words(lang: str) -> set[str]:
    words = set()
    for text in catalogue(lang)._catalog.values():
        words |= {w.lower() for w in re.findall(r"[A-Za-z']{3,}", text)}
    return words


def scripted_player(lang: str):
    """Bids 3, tries a few wrong entries and commands at the first lead, then plays hints."""
    t = i18n._
    bid_prompt = t("Your bid ({options}) > ").split("{")[0]
    end_prompt = t("Replay this hand (r), play again (n) or quit (q)? > ")
    word = {c: sorted(i18n.words(c) - set(i18n.INPUT_WORDS[c]))[0] for c in i18n.INPUT_WORDS}
    script = ["help", "hint", "888", "xyz", "3 4 5 6", "? 44 55 66", "check", "counter", "counter",
              "show", word["history"], "44 55 66", word["undo"], word["pass"]]  # fmt: skip
    state = {"enter": False, "hands": 0}

    def policy(screen: str) -> str | None:
        prompt = screen.rsplit("\n", 1)[-1]
        if prompt.startswith(bid_prompt):
            return "help" if state["hands"] == 0 and "help" not in screen else "3"
        if prompt == end_prompt:
            state["hands"] += 1
            return "r" if state["hands"] == 1 else "q"
        if prompt != "> ":
            return None
        if script and state["hands"] == 0:
            return script.pop(0)
        state["enter"] = not state["enter"]
        return word["hint"] if state["enter"] else ""

    return policy


@pytest.mark.parametrize("lang", OTHERS)
def test_a_whole_game_has_no_english_left(lang, monkeypatch):
    from tests.test_play import ScreenInput

    i18n.set_language(lang)
    recorder = Recorder(i18n._current)
    monkeypatch.setattr(play, "set_language", lambda code: None)
    monkeypatch.setattr(i18n, "_current", recorder)
    out = io.StringIO()
    argv = ["--lang", lang, "--level", "normal", "--code", CODE, "--fast", "--undo", "--no-color"]
    rc = play.main(argv, stdin=ScreenInput(out, scripted_player(lang)), stdout=out)
    text = out.getvalue()
    assert rc == 0 and "Traceback" not in text
    result_title = recorder.inner.gettext("Result")
    assert text.count(result_title) == 2  # played to the end, then replayed to the end
    # Every message shown has its translation in every catalogue.
    for other in OTHERS:
        have = catalogue(other)._catalog
        assert not [m for m in recorder.seen if not have.get(m)], other
    # No English word on screen: the typed lines (after a prompt) are the player's own.
    shown = "\n".join(line.split("> ", 1)[0] for line in text.splitlines())
    words = {w.lower() for w in re.findall(r"[A-Za-z']{3,}", shown)}
    leaked = (words & english_words()) - translated_words(lang) - {"dou", "dizhu"}
    assert not leaked, leaked
    assert len(recorder.seen) > 60


def test_the_english_game_is_unchanged_by_the_catalogues():
    """English is the source language: every message is shown as written."""
    i18n.set_language("en")
    assert i18n._("Your turn") == "Your turn"
    assert i18n.ngettext("card", "cards", 2) == "cards"
    assert i18n.words("pass") == frozenset({"pass", "p", "no", "none", "-"})
    from agents.play_text import describe
    from ddz_env.moves import move_table

    table = move_table()
    for move in range(len(table)):
        assert describe(table, move) == table.describe(move)


def test_reasons_of_the_engine_are_all_translated():
    """Every reason the engine gives for cards that are not a combination has a message."""
    from agents.play_text import translate_reason
    from ddz_env.moves import explain_invalid

    rng = np.random.default_rng(0)
    i18n.set_language("pt")
    seen = set()
    for _ in range(3000):
        counts = np.minimum(rng.integers(0, 5, 15) * (rng.random(15) < 0.35), [4] * 13 + [1, 1])
        if not counts.any():
            continue
        reason = explain_invalid(counts)
        seen.add(
            reason.split(" is not a combination")[0] if "not a combination" in reason else reason
        )
        assert translate_reason(reason) != reason, reason
    assert len(seen) > 10
