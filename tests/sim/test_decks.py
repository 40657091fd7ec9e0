"""Card-face decks: built-in decks complete, procedural decks seeded, --deck DIR loader checks."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.errors import InputError
from referee.sim.decks import BUILTIN_DECKS, CODES, FACE_H, FACE_W, builtin_deck, get_deck
from referee.sim.procedural_deck import installed_fonts, make_design, procedural_deck


def _check(deck) -> None:
    assert len(CODES) == 52 and len(set(CODES)) == 52
    for code in CODES:
        img = deck.face(code)
        assert img.shape == (FACE_H, FACE_W, 4) and img.dtype == np.uint8
        assert img[FACE_H // 2, FACE_W // 2, 3] == 255  # opaque middle
        assert img[0, 0, 3] < 64  # rounded corner
    assert deck.back.shape == (FACE_H, FACE_W, 4)


@pytest.mark.parametrize("name", BUILTIN_DECKS)
def test_builtin_decks_have_52_faces_and_a_back(name: str) -> None:
    _check(builtin_deck(name))


def test_face_accepts_codes_in_any_spelling() -> None:
    deck = builtin_deck("kenney")
    assert deck.face("TS") is deck.face("10S") is deck.face("10s")
    with pytest.raises(ValueError):
        deck.face("1X")


def test_faces_differ_between_cards() -> None:
    deck = builtin_deck("kennard")
    assert not np.array_equal(deck.face("QH"), deck.face("QD"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_procedural_deck_is_complete(seed: int) -> None:
    _check(procedural_deck(seed))


def test_procedural_deck_is_deterministic_and_seeds_differ() -> None:
    procedural_deck.cache_clear()
    a = procedural_deck(5)
    procedural_deck.cache_clear()
    b = procedural_deck(5)
    assert all(np.array_equal(a.face(c), b.face(c)) for c in CODES)
    assert np.array_equal(a.back, b.back)
    c = procedural_deck(6)
    assert not np.array_equal(a.face("7H"), c.face("7H"))


def test_procedural_designs_vary_the_index() -> None:
    designs = [make_design(s) for s in range(40)]
    fonts = {d.font.path or f"hershey{d.font.hershey}" for d in designs}
    assert len(fonts) >= 10
    heights = [d.rank_h_mm for d in designs]
    assert max(heights) - min(heights) > 4
    assert any(d.four_corners for d in designs) and any(d.suit_beside for d in designs)


def test_no_gpl_fonts_are_used() -> None:
    for path in installed_fonts():
        assert "freefont" not in path.lower() and "Free" not in Path(path).name


def _write_deck(folder: Path, skip: str | None = None) -> None:
    deck = builtin_deck("kenney")
    for code in CODES:
        if code != skip:
            cv2.imwrite(str(folder / f"{code}.png"), deck.face(code))
    if skip != "back":
        cv2.imwrite(str(folder / "back.jpg"), deck.back[:, :, :3])


def test_deck_dir_loads(tmp_path: Path) -> None:
    _write_deck(tmp_path)
    deck = get_deck(tmp_path)
    _check(deck)
    assert deck.name == tmp_path.name
    assert np.array_equal(deck.face("QH"), builtin_deck("kenney").face("QH"))


def _corrupt(folder: Path) -> None:
    _write_deck(folder)
    (folder / "QH.png").write_bytes(b"not a png")


def _wrong_shape(folder: Path) -> None:
    _write_deck(folder)
    cv2.imwrite(str(folder / "7C.png"), np.zeros((100, 300, 3), np.uint8))


def _ten_as_t(folder: Path) -> None:
    _write_deck(folder, skip="10D")
    cv2.imwrite(str(folder / "TD.png"), builtin_deck("kenney").face("10D"))


def _empty(folder: Path) -> None:
    _write_deck(folder)
    (folder / "5S.png").write_bytes(b"")


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda f: _write_deck(f, skip="10S"), "missing face image for 10S"),
        (lambda f: _write_deck(f, skip="back"), "missing back image"),
        (_corrupt, "QH.png"),
        (_empty, "5S.png"),
        (_wrong_shape, "7C.png"),
        (_ten_as_t, None),
    ],
    ids=["missing-face", "missing-back", "corrupt", "empty", "landscape", "T-for-ten"],
)
def test_deck_dir_errors_name_the_file(tmp_path: Path, make, error: str | None) -> None:
    make(tmp_path)
    if error is None:
        _check(get_deck(tmp_path))
        return
    with pytest.raises(InputError) as exc:
        get_deck(tmp_path)
    assert error in str(exc.value)


@pytest.mark.parametrize("spec", ["no/such/folder", "procedural:x", "kenny"])
def test_bad_deck_specs(spec: str) -> None:
    with pytest.raises(InputError):
        get_deck(spec)


@pytest.mark.parametrize("name", BUILTIN_DECKS)
def test_every_committed_deck_has_its_licence_beside_it(name: str) -> None:
    from referee.sim.decks import ASSETS

    text = (ASSETS / name / "LICENSE.txt").read_text()
    assert ("CC0" in text) or ("MIT" in text)
    assert "GPL" not in text
