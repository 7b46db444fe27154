"""``ddz play`` in every language: the catalogues, the words typed, and whole games rendered
without a word of English left (card ranks apart)."""

from __future__ import annotations

import argparse
import gettext
import io
import re
from pathlib import Path

import numpy as np
import pytest

from ddz.play import i18n
from ddz.play import session as play
from ddz_env.cards import CardParseError, parse_counts
from ddz_env.game import Game
from ddz_env.rules import Ruleset
from tests.play_harness import CODE, ScreenInput

ROOT = Path(__file__).resolve().parent.parent
#: The modules whose messages ddz play shows (the rules options' help is ddz/common/options.py's).
SOURCES = [*(f"play/{n}" for n in ("i18n.py", "session.py", "render.py", "text.py", "stats.py"))]
SOURCES.append("common/options.py")
SOURCES += ["play/fullscreen.py", "play/tui/app.py", "play/tui/panels.py"]  # the full-screen table
OTHERS = i18n.LANGUAGES[1:]
#: Commands typed as English words only, in every language.
FIXED_WORDS = {"help", "?", "show", "s", "counter", "c", "check", "r", "n", "q", "bid"}


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
        path = ROOT / "ddz" / name
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
    assert compiled == expected  # run: python -m ddz.play.i18n


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
    assert i18n._("Bye. (Statistics are off with --no-stats: nothing is recorded.)") in text


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


@pytest.mark.heavy
@pytest.mark.parametrize("lang", OTHERS)
def test_a_whole_game_has_no_english_left(lang, monkeypatch):
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
    game_name = {"dou", "dizhu"} if lang != "zh" else set()
    leaked = (words & english_words()) - translated_words(lang) - game_name
    assert not leaked, leaked
    assert len(recorder.seen) > 60
    assert ("斗地主" in text) == (lang == "zh")


def test_the_english_game_is_unchanged_by_the_catalogues():
    """English is the source language: every message is shown as written."""
    i18n.set_language("en")
    assert i18n._("Your turn") == "Your turn"
    assert i18n.ngettext("card", "cards", 2) == "cards"
    assert i18n.words("pass") == frozenset({"pass", "p", "no", "none", "-"})
    from ddz.play.text import describe
    from ddz_env.moves import move_table

    table = move_table()
    for move in range(len(table)):
        assert describe(table, move) == table.describe(move)


def test_reasons_of_the_engine_are_all_translated():
    """Every reason the engine gives for cards that are not a combination has a message."""
    from ddz.play.text import translate_reason
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


# ---------------------------------------------------------------------------------- command line
#: What ``ddz play --help`` shows as typed, in every language: the command, option names, their
#: metavars and values, environment variables and the language names.
TYPED = re.compile(
    r"ddz play|--?[\w-]+|\{[\w,]+\}|\b(?:CODE|LANG|N|LANGUAGE|LC_ALL|NO_COLOR)\b|"
    r"\b(?:easy|normal|hard|help)\b|"
    + "|".join(re.escape(f"{code} ({name})") for code, name in i18n.LANGUAGE_NAMES.items())
)


def help_text(lang: str, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        play.main(["--lang", lang, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


def prose_words(text: str) -> set[str]:
    text = TYPED.sub(" ", " ".join(text.split()))
    return {w.lower() for w in re.findall(r"[A-Za-z']{3,}", text)}


@pytest.mark.parametrize("lang", OTHERS)
def test_help_has_no_english_left(lang, capsys):
    english = prose_words(help_text("en", capsys))
    assert {"usage", "options", "show", "message", "exit", "bots", "statistics"} <= english
    shown = help_text(lang, capsys)
    leaked = (prose_words(shown) & english) - translated_words(lang) - {"dou", "dizhu"}
    assert not leaked, leaked
    assert "usage:" not in shown and "show this help message" not in shown
    i18n.set_language(lang)
    assert shown.startswith(i18n._("usage: ") + "ddz play")
    assert ("斗地主" in shown) == (lang == "zh")
    assert argparse._ is gettext.gettext  # argparse is left as it was found


def test_help_in_english_is_argparse_as_usual(capsys):
    shown = help_text("en", capsys)
    assert shown.startswith("usage: ddz play [-h] [--level {easy,normal,hard,expert}]")
    assert "\noptions:\n  -h, --help            show this help message and exit\n" in shown
    assert argparse._ is gettext.gettext


def test_chinese_help_is_wrapped_by_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    for line in help_text("zh", capsys).splitlines():
        assert i18n._columns(line) <= 58, line
    assert i18n.wrap_columns("电脑强度：easy（简单）或 hard（困难）。", 12) == [
        "电脑强度：",
        "easy（简单）",
        "或 hard（困",  # never a break right after an opening bracket
        "难）。",  # nor right before a closing one
    ]


@pytest.mark.parametrize("lang", OTHERS)
def test_usage_errors_are_in_the_language_chosen(lang, capsys):
    cases = [
        (["--level", "x"], "invalid choice: %(value)r (choose from %(choices)s)"),
        (["--code"], "expected one argument"),
        (["--bogus"], "unrecognized arguments: %s"),
        (["--seed", "-1"], "the seed must be 0 or more"),
        (["--fast=1"], "ignored explicit argument %r"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exc:
            play.main(["--lang", lang, *argv])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        i18n.set_language(lang)
        local = i18n._(message)
        assert local != message
        assert re.split(r"%|\{", local)[0] in err, (argv, err)
        assert (
            i18n._("%(prog)s: error: %(message)s\n").split("%(message)s")[0] % {"prog": "ddz play"}
            in err
        )
        assert "error:" not in err or lang == "es"  # Spanish spells it the same
        assert "usage:" not in err
        i18n.set_language("en")


def test_usage_errors_follow_the_locale_without_lang(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "it_IT.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    with pytest.raises(SystemExit):
        play.main(["--lang", "fr"])
    assert "'fr' non è una delle lingue: en, pt, it, es, id, zh" in capsys.readouterr().err
    assert play.main(["--code", "NOT-A-CODE"]) == 2
    assert "codice di smazzata non valido 'NOT-A-CODE'" in capsys.readouterr().err


def test_lang_is_found_before_parsing():
    find = i18n.language_in_argv
    assert find(["--fast", "--lang", "pt"]) == "pt"
    assert find(["--lang=ZH", "--fast"]) == "zh"
    assert find(["--lan", "es"]) == find(["--la=es"]) == "es"
    assert find(["--lang"]) is None and find(["--lang", "fr"]) is None
    assert find(["--", "--lang", "pt"]) is None and find([]) is None


FOUR_PLAYER_CODE = Game(1, Ruleset(players=4), seed=3).deal_code(0)
BAD_CODES = {
    "NOT-A-CODE": ("a deal code has {n} characters (dashes aside), this one has {k}", 8),
    CODE[:-1] + ("F" if CODE[-1] != "F" else "G"): (
        "this deal code is damaged (its checksum does not match); check for a typo",
        None,
    ),
    CODE[:-1] + "U": ("{n} can't appear in a deal code", "'U'"),
    FOUR_PLAYER_CODE: (
        "this is a deal code of the four-player game (two decks), not of the three-player game",
        None,
    ),
}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("code", BAD_CODES)
def test_a_bad_code_is_reported_in_the_language_chosen(lang, code, capsys):
    assert play.main(["--lang", lang, "--code", code]) == 2
    err = capsys.readouterr().err.strip()
    i18n.set_language(lang)
    message, value = BAD_CODES[code]
    reason = i18n._(message).format(n=value if value != 8 else 23, k=value)
    line = i18n._("ddz play: bad deal code {code}: {reason}")
    assert err == line.format(code=repr(code), reason=reason)
    if lang != "en":
        english = prose_words(message + " bad deal code")
        assert not (prose_words(err) & english) - translated_words(lang), err


def test_every_reason_of_a_bad_code_is_translated():
    """Each reason ``decode_deal`` can give has a pattern (its wording may not drift)."""
    from ddz.play.text import translate_code_error
    from ddz_env.codes import decode_deal

    i18n.set_language("pt")
    reasons = set()
    codes = ["", "X" * 23, CODE + "3", CODE.replace("3", "!", 1), CODE[:-1] + "9"]
    for code in [*codes, FOUR_PLAYER_CODE]:
        with pytest.raises(ValueError) as exc:
            decode_deal(code)
        reasons.add(str(exc.value))
        assert translate_code_error(str(exc.value)) != str(exc.value), exc.value
    assert len(reasons) >= 5


@pytest.mark.parametrize("lang", OTHERS)
def test_file_problems_are_in_the_language_chosen(lang, tmp_path):
    from ddz.play import stats as st

    i18n.set_language(lang)
    t = i18n._
    for content, reason in [
        ("[1, 2]", t("not a JSON object")),
        ("{not json", t("not JSON: line {line}, column {column}").format(line=1, column=2)),
        ('{"games": "x"}', t("field {name} is not a whole number").format(name="'games'")),
    ]:
        path = tmp_path / "stats.json"
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
        notice = st.load_stats(path)[1]
        assert t("is corrupt ({reason})").format(reason=reason) in notice, notice
    path.write_bytes(b"\xff")
    reason = t("not UTF-8 text")
    assert t("can't be read ({reason})").format(reason=reason) in st.load_stats(path)[1]
    assert st._reason(PermissionError(13, "Permission denied")) == t("Permission denied")
    assert st._reason(TimeoutError(t("another game kept the statistics locked"))) != (
        "another game kept the statistics locked"
    )
    i18n.set_language("en")
    assert st._reason(PermissionError(13, "Permission denied")) == "Permission denied"
