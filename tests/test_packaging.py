"""Packaging: the version, the package data, and the wheel installed for real.

The first tests read the source tree. The ``slow`` ones (10 to 30 s in all) build the wheel
from a copy of the tree (no build output left in it), check that setuptools says no warning,
install it into a fresh virtual environment, with ``pip install --user`` into a temporary user
base, and as an editable install of another copy, and check from outside the source tree that
the shipped Hard and belief models load, the translations load and ``ddz --version`` prints the
version. Run them alone with

    python -m pytest -q -m slow tests/test_packaging.py

They use no network: the wheel is built with the running interpreter's setuptools
(``--no-build-isolation``) and installed with ``--no-deps --no-index``; the dependencies (NumPy,
Gymnasium, PettingZoo, tqdm) come from the running interpreter's own folders, named in a ``.pth``
file of the new site folder. A step that cannot run here skips with its reason.
"""

from __future__ import annotations

import gettext
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import ddz
import ddz_env
from ddz.agents import belief, hard
from ddz.cli import main as ddz_main
from ddz.play import i18n

ROOT = Path(__file__).resolve().parent.parent
#: what the wheel is built from (the rest of the tree is not packaged)
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "ddz", "ddz_env", "checkpoints")
DEPENDENCIES = ("numpy", "gymnasium", "pettingzoo", "tqdm")
SHIPPED = ("hard.npz", "belief.npz", "README.md")
#: a message every catalogue translates
MESSAGE = "positional arguments"


def project_version() -> str:
    """``version`` of ``[project]`` in pyproject.toml, read as text."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return re.search(r'^version = "([^"]+)"$', project, re.M).group(1)


# --- the version ----------------------------------------------------------------------------


def installed() -> None:
    import importlib.metadata

    try:
        importlib.metadata.distribution("ddz")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("ddz is not installed here (no metadata): the version is 0+unknown")


def test_version_is_the_project_version():
    installed()
    assert ddz.__version__ == project_version()
    assert ddz_env.__version__ == project_version()
    from ddz import __version__

    assert __version__ == project_version()


def test_cli_version_prints_it(capsys):
    installed()
    for flag in ("--version", "-V"):
        assert ddz_main([flag]) == 0
        assert capsys.readouterr().out == f"ddz {project_version()}\n"


@pytest.mark.parametrize("module", [ddz, ddz_env], ids=["ddz", "ddz_env"])
def test_version_without_metadata(module, monkeypatch):
    """A source tree that was never installed has no metadata: the version says so."""
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.delitem(module.__dict__, "__version__", raising=False)
    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert module.__version__ == "0+unknown"


def test_other_attributes_still_missing():
    with pytest.raises(AttributeError):
        ddz.no_such_attribute  # noqa: B018


# --- the package data, from the source tree -------------------------------------------------


def test_default_models_are_the_tree_checkpoints():
    assert hard.DEFAULT_MODEL == ROOT / "checkpoints" / "hard.npz"
    assert belief.DEFAULT_BELIEF == ROOT / "checkpoints" / "belief.npz"
    assert hard.shipped_file("README.md").read_text(encoding="utf-8").startswith("# Model card")


def test_every_language_is_packaged():
    """setuptools ships a data folder named in ``packages``: each catalogue's folder must be."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for lang in i18n.LANGUAGES[1:]:
        package = f"ddz.play.locale.{lang}.LC_MESSAGES"
        assert text.count(f'"{package}"') == 2, package  # in packages and in package-data
        assert (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "ddz.mo").is_file()


def test_the_typed_packages_ship_py_typed():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = data["tool"]["setuptools"]["package-data"]
    for package in ("ddz", "ddz_env"):
        assert (ROOT / package / "py.typed").is_file(), package
        assert "py.typed" in package_data[package], package


# --- the wheel, installed -------------------------------------------------------------------

CHECK = """
import importlib.resources, json, sys
import ddz, ddz_env
from ddz.agents import belief, hard
from ddz.play import i18n
hard.load_model()
belief.load_belief()
texts = {}
for lang in i18n.LANGUAGES[1:]:
    i18n.set_language(lang)
    texts[lang] = i18n._(sys.argv[1])
print(json.dumps({
    "version": [ddz.__version__, ddz_env.__version__],
    "files": [ddz.__file__, ddz_env.__file__, str(hard.DEFAULT_MODEL), str(belief.DEFAULT_BELIEF),
              str(hard.shipped_file("README.md")), str(i18n.LOCALE_DIR),
              str(importlib.resources.files("ddz.checkpoints") / "hard.npz")],
    "texts": texts,
}))
"""


def run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kwargs
    )


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the variables that would point Python at other code."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(extra)
    return env


def copy_sources(dest: Path) -> Path:
    """A copy of what the wheel is built from, so that no build output lands in the tree."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed: the wheel cannot be built offline")
    done = run([sys.executable, "-m", "pip", "--version"])
    found = re.match(r"pip (\d+)\.(\d+)", done.stdout)
    if not found or tuple(map(int, found.groups())) < (22, 3):
        pytest.skip(f"pip 22.3 or newer is needed (pip --python): {done.stdout or done.stderr}")
    dest.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, dest / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, dest / name)
    return dest


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the tree; no warning from the build."""
    base = tmp_path_factory.mktemp("wheel")
    source = copy_sources(base / "src")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    # with byte-compiling on (PYTHONDONTWRITEBYTECODE unset), or setuptools warns that it is off
    done = run([*cmd, "-v", "-w", base / "dist", source], env=clean_env())
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    warnings = [line for line in output.splitlines() if "warn" in line.lower()]
    assert warnings == [], "\n".join(warnings)
    (built,) = (base / "dist").glob("ddz-*.whl")
    return built


def wheel_version(built: Path) -> str:
    return built.name.split("-")[1]


def pip_install(python: Path, env: dict[str, str], *args) -> None:
    """Install with this interpreter's pip into ``python``'s environment (``pip --python``)."""
    done = run([sys.executable, "-m", "pip", "--python", python, "install", *args], env=env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


def probe(python: Path, env: dict[str, str], expr: str):
    """``expr`` (of ``site``, ``sys``, ``sysconfig``) evaluated by ``python``."""
    code = f"import json, site, sys, sysconfig; print(json.dumps({expr}))"
    done = run([python, "-c", code], env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def add_dependencies(site_dir: Path) -> None:
    """Name the running interpreter's folders of the dependencies in a ``.pth`` file of
    ``site_dir``: they come after the site folder, so the installed ``ddz`` is found first."""
    folders = []
    for name in DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            pytest.skip(f"{name} is not installed: the installed game cannot run")
        folder = str(Path(spec.origin).resolve().parent.parent)
        if folder not in folders:
            folders.append(folder)
    site_dir.mkdir(parents=True, exist_ok=True)
    (site_dir / "_ddz_test_dependencies.pth").write_text("\n".join(folders) + "\n")


def fresh_venv(target: Path) -> Path:
    """A virtual environment without pip or packages; its interpreter."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(target)
    return target / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def check_installed(python: Path, script: Path, prefix: Path, version: str, env: dict) -> None:
    """From a folder outside the tree: everything comes from ``prefix``, the models load, the
    catalogues translate as the tree's, ``ddz --version`` prints ``version``."""
    cwd = prefix.parent
    done = run([python, "-c", CHECK, MESSAGE], env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout)
    assert report["version"] == [version, version]
    for path in map(Path, report["files"]):
        assert path.exists() and path.is_relative_to(prefix), path
        assert not path.resolve().is_relative_to(ROOT), path
    for lang, text in report["texts"].items():
        with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "ddz.mo", "rb") as fh:
            expected = gettext.GNUTranslations(fh).gettext(MESSAGE)
        assert text == expected != MESSAGE, lang
    assert set(report["texts"]) == set(i18n.LANGUAGES[1:])
    done = run([script, "--version"], env=env, cwd=cwd)
    assert (done.returncode, done.stdout) == (0, f"ddz {version}\n"), done.stderr


@pytest.mark.slow
def test_wheel_contents(wheel):
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    for name in SHIPPED:
        assert f"ddz/checkpoints/{name}" in names
    for lang in i18n.LANGUAGES[1:]:
        assert f"ddz/play/locale/{lang}/LC_MESSAGES/ddz.mo" in names
    assert {"ddz/py.typed", "ddz_env/py.typed"} <= names
    assert not any(".data/" in name for name in names)  # nothing outside the packages


@pytest.mark.slow
def test_install_into_a_fresh_venv(wheel, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    env = clean_env()
    pip_install(python, env, "--no-deps", "--no-index", wheel)
    add_dependencies(Path(probe(python, env, "sysconfig.get_paths()['purelib']")))
    check_installed(python, python.parent / "ddz", tmp_path / "venv", wheel_version(wheel), env)


@pytest.mark.slow
def test_install_with_user(wheel, tmp_path):
    """``pip install --user`` (refused inside a virtual environment, so with the base
    interpreter) into a temporary user base."""
    base = Path(getattr(sys, "_base_executable", sys.executable))
    user = tmp_path / "user"
    env = clean_env(PYTHONUSERBASE=str(user))
    in_venv, user_site, version = probe(
        base, env, "[sys.prefix != sys.base_prefix, site.ENABLE_USER_SITE, sys.version_info[:2]]"
    )
    if in_venv or not user_site:
        pytest.skip(f"{base} has no user site folder (virtual environment: {in_venv})")
    if tuple(version) != sys.version_info[:2]:
        pytest.skip(f"{base} is Python {version}: the dependencies here are for another one")
    pip_install(base, env, "--user", "--break-system-packages", "--no-deps", "--no-index", wheel)
    add_dependencies(Path(probe(base, env, "site.getusersitepackages()")))
    check_installed(base, user / "bin" / "ddz", user, wheel_version(wheel), env)


@pytest.mark.slow
def test_editable_install(tmp_path):
    """``pip install -e`` (what ``make`` does): the models are those of the tree's
    ``checkpoints/``, which the editable install maps to the package ``ddz.checkpoints``."""
    source = copy_sources(tmp_path / "src")
    hook = "import sys; from setuptools import build_meta; build_meta.build_editable(sys.argv[1])"
    done = run([sys.executable, "-c", hook, tmp_path / "dist"], cwd=source, env=clean_env())
    assert done.returncode == 0, done.stderr[-4000:]
    (built,) = (tmp_path / "dist").glob("ddz-*.whl")
    python = fresh_venv(tmp_path / "venv")
    env = clean_env()
    pip_install(python, env, "--no-deps", "--no-index", built)
    add_dependencies(Path(probe(python, env, "sysconfig.get_paths()['purelib']")))
    check_installed(python, python.parent / "ddz", source, wheel_version(built), env)


# --- what `make play` installs ----------------------------------------------------------------
#: Never in the game's install: the training stack, the cluster, the tools of development.
HEAVY = {"torch", "ray", "tensorboard", "stable-baselines3", "sb3-contrib", "tianshou"}


def _requirement_name(spec: str) -> tuple[str, str]:
    """``(name, extras)`` of a requirement string (``"ddz[game,docs]"`` → ``("ddz", "game,docs")``)."""
    m = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(?:\[([^\]]*)\])?", spec)
    return m.group(1).lower().replace("_", "-"), m.group(2) or ""


def install_set(extras: list[str]) -> set[str]:
    """The names the project installs with ``extras``: its dependencies and those extras, each
    ``ddz[...]`` inside them resolved."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional = project["optional-dependencies"]
    names, todo, seen = set(), [*project["dependencies"]], set()
    todo += [spec for extra in extras for spec in optional[extra]]
    while todo:
        name, inner = _requirement_name(todo.pop())
        if name != "ddz":
            names.add(name)
            continue
        for extra in inner.split(","):
            if extra.strip() and extra.strip() not in seen:
                seen.add(extra.strip())
                todo += optional[extra.strip()]
    return names


def test_make_play_installs_the_game_only():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    install = re.search(r"^PLAY_INSTALL := \.\[([a-z,]*)\]$", makefile, re.M)
    assert install, "the Makefile names what make play installs"
    play_rule = makefile.split("\n$(PLAY_VENV)/.installed:", 1)[1].split("\n\n", 1)[0]
    assert "$(PLAY_INSTALL)" in play_rule and "torch" not in play_rule
    assert re.search(r"^play: \$\(PLAY_VENV\)/\.installed\n\t\$\(PLAY_VENV\)/bin/ddz play$",
                     makefile, re.M)  # fmt: skip
    extras = install.group(1).split(",")
    assert extras == ["game"]
    tomllib = pytest.importorskip("tomllib")
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dev_tools = {_requirement_name(x)[0] for x in dev["optional-dependencies"]["dev"]} - {"ddz"}
    names = install_set(extras)
    assert "textual" in names and {"numpy", "gymnasium", "pettingzoo"} <= names
    assert not names & (HEAVY | dev_tools), names & (HEAVY | dev_tools)
    assert {"torch", "pytest"} <= install_set(["dev"])  # make test keeps the full set
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^make (\w+)", readme.split("```sh", 1)[1], re.M)
    assert commands[:2] == ["play", "test"]


def test_make_test_installs_the_bench_extra():
    """The tests of the OpenSpiel game, DouZero's and RLCard's peers skip without the bench
    extra; ``make test`` installs it, so they run there."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    install = re.search(r"\$\(PIP\) install -q -e '\.\[([a-z,]+)\]'", makefile)
    assert install, "the Makefile names what make test installs"
    extras = install.group(1).split(",")
    assert "bench" in extras and "dev" in extras
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional = project["optional-dependencies"]
    assert all(extra in optional for extra in extras)
    assert any(spec.startswith("open-spiel") for spec in optional["bench"])
