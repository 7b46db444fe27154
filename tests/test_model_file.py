"""Model files are validated when they are loaded: one ModelFileError, one line, never a crash
at the first decision, never a huge allocation."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ddz.agents.hard import DEFAULT_MODEL, HardAgent, HardModel, ModelFileError, load_model
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def shipped() -> dict[str, np.ndarray]:
    with np.load(DEFAULT_MODEL, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def _meta(arrays: dict, **changes) -> np.ndarray:
    meta = json.loads(str(arrays["meta"]))
    meta.update(changes)
    return np.array(json.dumps(meta))


def _broken(shipped: dict, change) -> dict:
    arrays = dict(shipped)
    change(arrays)
    return arrays


def _set(key, value):
    return lambda a: a.__setitem__(key, value(a[key]) if callable(value) else value)


def _drop(*keys):
    return lambda a: [a.pop(k) for k in keys]


CASES = {
    "nan": (_set("landlord.state.0.w", lambda w: np.full_like(w, np.nan)), "NaN or infinite"),
    "inf bias": (_set("bid.2.b", lambda b: np.full_like(b, np.inf)), "NaN or infinite"),
    "overflows float32": (
        _set("bid.1.w", lambda w: np.full(w.shape, 1e300, np.float64)),
        "NaN or infinite",
    ),
    "integer dtype": (_set("landlord.head.0.w", lambda w: w.astype(np.int32)), "real floats"),
    "complex dtype": (_set("landlord.move.0.w", lambda w: w.astype(np.complex64)), "real floats"),
    "a row short": (_set("landlord.state.0.w", lambda w: w[:-1]), "shape"),
    "transposed head": (_set("landlord_up.head.0.w", lambda w: w.T.copy()), "shape"),
    "1-D weight": (_set("landlord_down.move.0.w", lambda w: w.reshape(-1)), "shape"),
    "missing middle layer": (
        _drop("landlord.state.1.w", "landlord.state.1.b"),
        "lacks its layer 1",
    ),
    "missing bias": (_drop("landlord_down.head.1.b"), "bias"),
    "missing bid bias": (_drop("bid.0.b"), "bias"),
    "bias of the wrong width": (_set("landlord.state.1.b", lambda b: b[:-1]), "shape"),
    "missing network": (
        _drop(
            "landlord_up.head.0.w",
            "landlord_up.head.0.b",
            "landlord_up.head.1.w",
            "landlord_up.head.1.b",
        ),
        "lacks",
    ),
    "rest for one role only": (
        _drop("landlord.rest.0.w", "landlord.rest.0.b", "landlord.rest.1.w"),
        "some roles only",
    ),
    "unexpected entry": (_set("extra", np.zeros(3, np.float32)), "unexpected entry"),
    "meta is a list": (_set("meta", np.array("[1, 2]")), "not an object"),
    "meta not JSON": (_set("meta", np.array("{nope")), "not valid JSON"),
    "meta not a string": (_set("meta", np.zeros(3, np.float32)), "JSON string"),
    "one bid threshold": (lambda a: a.update(meta=_meta(a, bid_thresholds=[0.1])), "3 finite"),
    "nan bid threshold": (
        lambda a: a.update(meta=_meta(a, bid_thresholds=[0.1, "x", 0.3])),
        "3 finite",
    ),
    "adp_mix a string": (lambda a: a.update(meta=_meta(a, adp_mix="lots")), "adp_mix"),
    "frames negative": (lambda a: a.update(meta=_meta(a, frames=-5)), "frames"),
    "belief format": (lambda a: a.update(meta=_meta(a, format="ddz-belief-v1")), "format"),
    "other observation": (lambda a: a.update(meta=_meta(a, obs_size=7)), "reads 7 features"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_invalid_model_is_refused_at_load_time(shipped, tmp_path, case):
    change, phrase = CASES[case]
    path = tmp_path / "bad.npz"
    np.savez(path, **_broken(shipped, change))
    with pytest.raises(ModelFileError) as exc:
        load_model(path)
    message = str(exc.value)
    assert phrase in message and "\n" not in message
    assert str(path) in message
    with pytest.raises(ModelFileError):  # the arrays themselves, without a file
        HardModel(_broken(shipped, change))


def test_valid_model_still_loads_and_decides(shipped, tmp_path):
    """The validation accepts the shipped model and a float32 copy of it, which decide alike."""
    path = tmp_path / "f32.npz"
    np.savez(path, **{k: v if k == "meta" else v.astype(np.float32) for k, v in shipped.items()})
    a, b = HardAgent(model=load_model(DEFAULT_MODEL)), HardAgent(model=load_model(path))
    game = Game(1, Ruleset(), seed=3)
    info = infoset(game, 0)
    assert a.bid(info) == b.bid(info)
    np.testing.assert_array_equal(a.move_values(info)[1], b.move_values(info)[1])


def _npz_with_header(name: str, header: dict, payload: bytes = b"") -> bytes:
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, header)
    member.write(payload)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr(name, member.getvalue())
    return out.getvalue()


def test_a_huge_declared_array_is_refused_from_its_header(tmp_path):
    path = tmp_path / "huge.npz"
    header = {"descr": "<f4", "fortran_order": False, "shape": (2**40,)}
    path.write_bytes(_npz_with_header("landlord.state.0.w.npy", header, b"\0" * 64))
    with pytest.raises(ModelFileError, match="declares 1,099,511,627,776 numbers"):
        load_model(path)


def test_an_object_array_is_refused_from_its_header(tmp_path):
    path = tmp_path / "pickle.npz"
    header = {"descr": "|O", "fortran_order": False, "shape": (1,)}
    path.write_bytes(_npz_with_header("bid.0.w.npy", header, b"cos\nsystem\n"))
    with pytest.raises(ModelFileError, match="real floats"):
        load_model(path)


def test_bid_thresholds_given_to_the_agent_are_checked(shipped):
    model = HardModel(shipped)
    with pytest.raises(ValueError, match="3 finite numbers"):
        HardAgent(model=model, bid_thresholds=(0.1,))


@pytest.mark.heavy
def test_ddz_eval_with_an_invalid_model_is_one_line_and_exit_2(shipped, tmp_path):
    path = tmp_path / "nan.npz"
    np.savez(path, **{k: v if k == "meta" else np.full_like(v, np.nan) for k, v in shipped.items()})
    cmd = [sys.executable, "-m", "ddz", "eval", f"hard:{path}", "random", "--deals", "5"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "NaN or infinite" in lines[0] and "Traceback" not in done.stderr


def test_the_shipped_model_carries_the_one_format(shipped):
    """The format the loader accepts is the one written in the shipped model (what the
    trainer writes is checked by tests/test_hard.py, which loads exported models)."""
    from ddz.agents.hard import MODEL_FORMAT

    assert json.loads(str(shipped["meta"]))["format"] == MODEL_FORMAT == "ddz-hard-v1"
