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
from ddz_env.rules import GAMES, Ruleset
from tests.play_harness import CODE, ScreenInput

ROOT = Path(__file__).resolve().parent.parent
#: The modules whose messages ddz play shows (the rules options' help is ddz/common/options.py's).
SOURCES = [*(f"play/{n}" for n in ("i18n.py", "session.py", "render.py", "text.py", "stats.py"))]
SOURCES.append("play/wild.py")  # the wildcard game
SOURCES += ["play/table_model.py", "play/transcript.py"]  # the table's refusals and event lines
SOURCES.append("common/options.py")
SOURCES += ["play/fullscreen.py", "play/tui/app.py", "play/tui/panels.py"]  # the full-screen table
SOURCES += ["play/web/views.py", "play/web/server.py"]  # the web table
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


def plurals(lang: str) -> dict[str, str]:
    """Each plural message's singular and plural forms joined (the placeholders of either)."""
    pofile = pytest.importorskip("babel.messages.pofile")
    path = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "ddz.po"
    with open(path, "rb") as fh:
        catalog = pofile.read_po(fh)
    return {m.id[0]: " ".join(m.id) for m in catalog if m.id and isinstance(m.id, tuple)}


@pytest.mark.parametrize("lang", OTHERS)
def test_translations_keep_their_placeholders(lang):
    both = plurals(lang)  # "once" in the singular: the plural's {n} may be translated in
    for key, text in catalogue(lang)._catalog.items():
        if not key:
            continue
        msgid = both[key[0]] if isinstance(key, tuple) else key.split("\x04")[-1]
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
    games = set(GAMES)  # the games' names are typed as they are (--game four), in every language
    leaked = (prose_words(shown) & english) - translated_words(lang) - {"dou", "dizhu"} - games
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
}  # (a four-player code is played as one: tests/test_play_variants.py)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("code", BAD_CODES)
def test_a_bad_code_is_reported_in_the_language_chosen(lang, code, capsys):
    assert play.main(["--lang", lang, "--code", code]) == 2
    err = capsys.readouterr().err.strip()
    i18n.set_language(lang)
    message, value = BAD_CODES[code]
    reason = i18n._(message).format(n=value if value != 8 else 23, k=value)
    line = i18n._("{prog}: bad deal code {code}: {reason}")
    assert err == line.format(prog="ddz play", code=repr(code), reason=reason)
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


# ---------------------------------------------------------------------------------- glossary
#: How the English messages name each concept of the glossary (docs/LANGUAGES.md).
CONCEPTS = {
    "kitty": r"\bkitty\b",
    "landlord": r"\blandlords?\b",
    "peasant": r"\bpeasants?\b",
    "bomb": r"\bbombs?\b",
    "rocket": r"\brocket\b",
    "bot": r"\bbots?\b",
    "trio": r"\btrios?\b(?! plane)",  # a trio plane is named by its plane
    "pair": r"\bpairs?\b",
    "single": r"\bsingles?\b",
    "straight": r"\bstraights?\b",
    "pair chain": r"\bpair chains?\b",
    "plane": r"\bplanes?\b",
    "joker": r"\bjokers?\b",
    "wild card": r"\bwild\b",  # the wildcard game's wild cards (not "wildcard")
    "soft bomb": r"\bsoft bombs?\b",
    "hard bomb": r"\bhard bombs?\b",
}
GLOSSARY_LANGS = ("pt", "it", "es", "id", "zh")


def glossary_tables() -> tuple[dict[str, dict[str, list[str]]], dict[str, list[str]]]:
    """The glossary of docs/LANGUAGES.md: {concept: {lang: [forms]}} and {lang: [rejected]}."""
    text = (ROOT / "docs" / "LANGUAGES.md").read_text(encoding="utf-8")
    section = text.split("## Glossary", 1)[1].split("\n## ", 1)[0]
    terms, rejected = {}, {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] in CONCEPTS:
            terms[cells[0]] = {
                lang: [f.strip() for f in cell.split("/")]
                for lang, cell in zip(GLOSSARY_LANGS, cells[1:])
            }
        elif len(cells) == 2 and cells[0] in GLOSSARY_LANGS:
            rejected[cells[0]] = [f.strip() for f in cells[1].split("/")]
    return terms, rejected


def translations(lang: str) -> list[tuple[str, str]]:
    """(English, translation) of each message of a catalogue (each plural form), the typed
    words aside."""
    pofile = pytest.importorskip("babel.messages.pofile")
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "ddz.po", "rb") as fh:
        source = pofile.read_po(fh)
    pairs = []
    for m in source:
        if not m.id or m.context == "input":
            continue
        english = m.id[0] if isinstance(m.id, tuple) else m.id
        for text in m.string if isinstance(m.string, tuple) else (m.string,):
            pairs.append((english, text))
    return pairs


def test_the_glossary_names_every_concept_in_every_language():
    terms, rejected = glossary_tables()
    assert set(terms) == set(CONCEPTS)
    assert set(rejected) == set(GLOSSARY_LANGS)
    assert all(all(forms) for row in terms.values() for forms in row.values())


@pytest.mark.parametrize("lang", GLOSSARY_LANGS)
def test_each_catalogue_uses_its_glossary_terms(lang):
    terms, _rejected = glossary_tables()
    missing = []
    for english, text in translations(lang):
        for concept, pattern in CONCEPTS.items():
            forms = terms[concept][lang]
            shown = " ".join(text.split()).lower()  # a help text's lines joined
            if re.search(pattern, english) and not any(f.lower() in shown for f in forms):
                missing.append((concept, english[:60], text[:60]))
    assert not missing, missing[:8]


def _uses(word: str, text: str) -> bool:
    if word.isascii() or any(ch.isalpha() and ord(ch) < 0x2E80 for ch in word):
        return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None
    return word in text


@pytest.mark.parametrize("lang", GLOSSARY_LANGS)
def test_no_catalogue_uses_a_rejected_synonym(lang):
    _terms, rejected = glossary_tables()
    found = [
        (word, text[:70])
        for _english, text in translations(lang)
        for word in rejected[lang]
        if _uses(word, text)
    ]
    assert not found, found[:8]


# ---------------------------------------------------------------------------------- grammar
@pytest.mark.parametrize(
    ("lang", "bid", "passed"),
    [("pt", "pede", "passa"), ("it", "dichiari", "passi"), ("es", "pujas", "pasas")],
)
def test_the_seat_name_is_the_subject_of_your_log_lines(lang, bid, passed):
    """Your log lines conjugate for the seat name (*Você pede 2*), unlike the typed words."""
    from tests.play_harness import run_lines

    argv = ["--lang", lang, "--code", CODE, "--fast", "--no-stats", "--no-color", "--level", "easy"]
    i18n.set_language(lang)
    you, typed = i18n._("You"), i18n.pgettext("bid", "pass")
    lines = {}
    for answers in (["2", "3", "quit"], [typed, "quit"]):
        rc, out = run_lines(argv, answers)
        lines[answers[0]] = [" ".join(line.split()) for line in out.splitlines()]
    assert any(re.fullmatch(rf"{you} {bid} [23]", x) for x in lines["2"]), lines["2"]
    assert f"{you} {passed}" in lines[typed], lines[typed]
    assert typed != passed  # the word typed is not the log line
    i18n.set_language("en")


def test_lists_of_seats_choose_their_conjunction():
    cases = {
        "en": (["Right", "Across", "Left"], "Right, Across and Left"),
        "es": (["Derecha", "Enfrente", "Izquierda"], "Derecha, Enfrente e Izquierda"),
        "zh": (["下家", "对家", "上家"], "下家、对家和上家"),
    }
    for lang, (names, joined) in cases.items():
        i18n.set_language(lang)
        assert i18n.join_names(names) == joined
    i18n.set_language("es")
    assert i18n.join_names(["Tú", "Derecha"]) == "Tú y Derecha"
    assert i18n.join_names(["Tú", "Izquierda"]) == "Tú e Izquierda"
    assert i18n.join_names(["Tú", "hielo"]) == "Tú y hielo"  # "hie" is not an i sound
    assert i18n.join_names(["Izquierda"]) == "Izquierda"
    i18n.set_language("en")


def test_chinese_passes_by_the_word_of_each_prompt():
    from ddz.play.text import pass_word

    i18n.set_language("zh")
    assert [pass_word(d) for d in ("bid", "claim", "rob", "open")] == [
        "不叫",
        "不叫",
        "不抢",
        "不明牌",
    ]
    assert {"不叫", "不抢", "不明牌", "不出"} <= i18n.words("pass")
    assert "提示" not in i18n._("note: ")  # 提示 is the hint command
    i18n.set_language("en")


def test_turn_lines_need_no_agreement():
    """The play on the table is named as a whole: no adjective or pronoun agrees with it."""
    expected = {
        "pt": ("{seat} jogou {play} — cubra ou passe", "{play} não é maior que {target}"),
        "it": ("{seat} ha giocato {play} — batti o passa", "{play} non è superiore a {target}"),
        "es": ("{seat} jugó {play} — supera o pasa", "{play} no es mayor que {target}"),
    }
    for lang, (turn, higher) in expected.items():
        i18n.set_language(lang)
        assert i18n._("{seat} played {play} — beat it or pass") == turn
        assert i18n._("{play} is not higher than {target}") == higher
    i18n.set_language("pt")
    from ddz.play.text import why_not_covers
    from ddz_env.moves import move_table

    table = move_table()
    chain = table.classify(parse_counts("334455").astype(np.uint8))[0]
    longer = table.classify(parse_counts("66778899").astype(np.uint8))[0]
    said = why_not_covers(table, chain, longer)  # a plural noun must not take a singular verb
    assert said == "uma série de 3 pares seguidos não cobre uma série de 4 pares seguidos", said
    i18n.set_language("en")


# ---------------------------------------------------------------------------------- columns
class Screen:
    """A terminal that keeps the lines said: no colour, 100 columns, no full-screen redraw."""

    screen = False
    ascii = False
    width = 100

    def __init__(self):
        from ddz.play.text import Style

        self.style = Style(False)
        self.lines: list[str] = []

    def say(self, line: str = "") -> None:
        self.lines += line.split("\n")

    def pause(self) -> None:
        pass


def played_hand(players: int, moves: int | None, seed: int = 0):
    """A renderer and its model: the deal of ``seed``, seat 1 bids 3, then ``moves`` plays
    (lowest legal first; ``None``: to the end of the hand)."""
    from ddz.play.render import Renderer
    from ddz.play.table import TableModel
    from ddz_env.actions import bid_action
    from ddz_env.infoset import infoset

    game = Game(1, Ruleset(players=players), seed=seed)
    model = TableModel(game)
    model.deal(game.deal_code(0))
    while not model.auction_over():
        seat = int(game.current_player[0])
        model.bid(bid_action(game.num_moves, 3 if seat == 1 else 0))
    k = 0
    while not model.over() and (moves is None or k < moves):
        seat = int(game.current_player[0])
        legal = [int(m) for m in infoset(game, 0, seat).legal_moves()]
        model.play(seat, legal[-1] if seat == 1 else legal[0])
        k += 1
    term = Screen()
    term.style.deck = game.ruleset.deck  # as the session sets it for the game played
    return Renderer(term, model, "normal"), model, term


def content_start(line: str, label: str) -> int:
    """The column where a labelled row's content starts (after its label and the padding)."""
    from ddz.play.text import visible_len

    rest = line[2 + len(label) :]
    return 2 + visible_len(label) + (len(rest) - len(rest.lstrip(" ")))


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_no_label_overflows_its_column(lang, players):
    """The table, the card counter and the result card keep their columns in every language."""
    from ddz_env.infoset import infoset

    i18n.set_language(lang)
    t = i18n._
    render, model, term = played_hand(players, 4)
    info = infoset(model.game, 0, 0)
    render.table(info, True)
    labels = [t("Kitty"), t("Round"), t("Table")]
    rows = {x: next(ln for ln in term.lines if ln.startswith("  " + x + " ")) for x in labels}
    starts = {content_start(ln, x) for x, ln in rows.items()}
    seat = render.seat_name(1)
    seat_row = next(ln for ln in term.lines if ln.startswith("  " + seat + " "))
    starts.add(content_start(seat_row, seat))
    assert len(starts) == 1, (lang, rows)
    counter = [ln for ln in term.lines if ln.startswith("  " + t("Unseen") + " ")]
    assert counter and all(content_start(ln, t("Unseen")) == min(starts) + 1 for ln in counter)
    render, model, term = played_hand(players, None, seed=1)
    model.rob_log = [1, 2]  # the longest labels: two robs named
    render.result()
    value_at = {
        content_start(ln, x)
        for x in [t("Bid"), t("Base"), t("Points"), t("Spring"), t("Anti-spring")]
        + [t("Rob ({seat})").format(seat=render.seat_name(s)) for s in (1, 2)]
        for ln in term.lines
        if ln.startswith("  " + x + " ")
    }
    assert len(value_at) == 1, (lang, term.lines)
    i18n.set_language("en")


def test_chinese_punctuation_is_full_width(capsys):
    from ddz_env.infoset import infoset

    i18n.set_language("zh")
    render, model, term = played_hand(3, 1)
    render.table(infoset(model.game, 0, 0), False)
    turn = next(ln for ln in term.lines if ln.startswith("轮到你"))
    assert turn.startswith("轮到你：") and ": " not in turn, turn
    table_row = next(ln for ln in term.lines if ln.startswith("  " + i18n._("Table")))
    assert "：" in table_row and ": " not in table_row, table_row
    assert i18n._("{play} ({seat})").format(play="王炸", seat="你") == "王炸（你）"
    headline = render.headline(1, 0)  # a peasants' win, and who went out first
    assert headline == "你和上家作为农民获胜！（你先出完）", headline
    model.rob_log = [1, 2]
    assert render.doublings_text() == "（下家抢地主 ×2、上家抢地主 ×2）", render.doublings_text()
    assert "\n选项：\n" in help_text("zh", capsys)
    term.lines.clear()
    render.cards_left(0)
    kitty = next(ln for ln in term.lines if ln.strip().startswith("底牌"))
    assert re.match(r"^  底牌：\S", kitty), kitty  # no space after the full-width colon
    i18n.set_language("en")


def test_the_chinese_catalogue_uses_full_width_punctuation_and_no_stray_spaces():
    text = (i18n.LOCALE_DIR / "zh" / "LC_MESSAGES" / "ddz.po").read_text(encoding="utf-8")
    found = re.findall(r'^msgstr(?:\[\d\])? "(.*)"$', text, re.M)
    cjk = "[\u4e00-\u9fff]"
    assert not [x for x in found if re.search(cjk + r"[:,;?!]( |$)", x)]  # ASCII after Chinese
    assert not [x for x in found if "： " in x or "， " in x]  # a space after full-width
    assert "使用提示" not in text  # 提示次数


@pytest.mark.parametrize(
    "lang, said",
    [
        ("pt", "par de 4 não é maior que par de 10"),
        ("es", "pareja de 4"),
        ("it", "coppia di 4"),
    ],
)
def test_a_lower_play_names_its_combination_as_the_language_does(lang, said):
    from ddz.play.text import why_not_covers
    from ddz_env.moves import move_table

    table = move_table(Ruleset())
    pair = {r: table.classify(parse_counts(r * 2, Ruleset().deck.counts))[0] for r in "4t"}
    i18n.set_language(lang)
    try:
        assert said in why_not_covers(table, pair["4"], pair["t"])
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize(
    "lang, once, twice",
    [
        ("en", "(dealt again once:", "(dealt again 2 times:"),
        ("pt", "(distribuída de novo uma vez:", "(distribuída de novo 2 vezes:"),
        ("es", "(repartida de nuevo una vez:", "(repartida de nuevo 2 veces:"),
        ("it", "(ridistribuita una volta:", "(ridistribuita 2 volte:"),
        ("zh", "（重新发牌 1 次：", "（重新发牌 2 次："),
    ],
)
def test_one_redeal_is_said_once(lang, once, twice):
    from ddz.play.render import Renderer

    i18n.set_language(lang)
    try:
        note = Renderer.redeal_note
        assert note(None, 1).startswith(once) and note(None, 2).startswith(twice)
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize(
    "lang, message, args, said",
    [
        ("id", "You are the landlord (base {base}) and take the kitty: {cards}",
         {"base": 3, "cards": "3♠"}, "Kamu jadi Tuan Tanah (dasar 3)"),
        ("pt", "hints {hints} · undos {undos}", {"hints": 3, "undos": 1},
         "dicas: 3 · jogadas desfeitas: 1"),
        ("zh", "Hints used: {n}", {"n": 6}, "提示次数：6"),
    ],
)  # fmt: skip
def test_the_wording_of_some_lines(lang, message, args, said):
    i18n.set_language(lang)
    try:
        assert said in i18n._(message).format(**args)
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize(
    "lang, one, two",
    [
        ("en", "you don't have an 8", "you don't have two 8s (you have none)"),
        ("zh", "你手里没有 8", "你手里没有两张 8（你一张也没有）"),
        ("pt", "você não tem nenhuma carta 8", "você não tem duas cartas 8 (você não tem nenhuma)"),
        ("es", "no tienes ninguna carta 8", "no tienes dos cartas 8 (no tienes ninguna)"),
        ("it", "non hai nessuna carta 8", "non hai due carte 8 (non ne hai)"),
        ("id", "kamu tidak punya kartu 8", "kamu tidak punya dua kartu 8 (kamu tidak punya)"),
    ],
)
def test_a_card_you_do_not_hold_is_said_as_the_language_says_it(lang, one, two):
    from ddz.play.text import judge
    from ddz_env.moves import move_table

    hand = parse_counts("9 9 9 3")
    i18n.set_language(lang)
    try:
        assert judge(move_table(), hand, 0, parse_counts("8")).text == one
        assert judge(move_table(), hand, 0, parse_counts("8 8")).text == two
    finally:
        i18n.set_language("en")
