"""A contact sheet of random simulator frames, for people to judge the renders by eye.

    .venv/bin/python -m referee.sim.contact_sheet docs/sim-frames.png [--seeds 1-9]
    .venv/bin/python -m referee.sim.contact_sheet docs/contact-sheet.png --fixtures tests/fixtures --columns 4

Each tile is a random mid-game scene (:func:`referee.sim.scene.random_scene`) with a different
deck; the same seeds always give the same sheet on one machine.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np

from referee.sim.decks import BUILTIN_DECKS, get_deck
from referee.sim.matart import mat_art
from referee.sim.render import Renderer
from referee.sim.scene import random_scene

SHEET_DECKS: tuple[str, ...] = (*BUILTIN_DECKS, "procedural:3", "procedural:11",
                                "procedural:21", "procedural:8", "procedural:5")


def contact_sheet(seeds: Sequence[int], columns: int = 3, tile: tuple[int, int] = (384, 216),
                  size: tuple[int, int] = (1280, 720)) -> np.ndarray:
    """Render one frame per seed and lay them out in a grid of ``tile``-sized images."""
    mat, zones = mat_art()
    tiles = []
    for i, seed in enumerate(seeds):
        scene = random_scene(seed, size, mat=mat, zones=zones, moving_cards=1 + seed % 2,
                             hands=1 + (seed % 3 > 0))
        deck = get_deck(SHEET_DECKS[i % len(SHEET_DECKS)])
        img, _ = Renderer(deck).render(scene)
        small = cv2.resize(img, tile, interpolation=cv2.INTER_AREA)
        cv2.putText(small, f"seed {seed}, {deck.name}", (6, tile[1] - 8),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(small)
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[r : r + columns]) for r in range(0, len(tiles), columns)]
    return np.vstack(rows)


def key_frame(folder: str | Path) -> int:
    """The frame of a simulated clip that shows what it is about: ``visuals.key_t`` in its
    meta.json, else the first fault of the clip, else its first call, else its middle."""
    from referee.events import Call, TableEvent, Verdict
    from referee.sim import truth as files

    folder = Path(folder)
    meta = files.read_meta(folder / files.META)
    fps = Fraction(meta["fps"])
    key = meta.get("visuals", {}).get("key_t")
    if key is None:
        records = [r for r in files.read_events(folder / files.EVENTS) if r.t > 0]
        faults = [r.t for r in records if isinstance(r, Verdict) and r.code]
        calls = [r.t for r in records if isinstance(r, Call)]
        events = [r.t for r in records if isinstance(r, TableEvent)]
        key = (faults or calls or [events[len(events) // 2]] if events else [0.0])[0]
    return min(files.frame_of(float(key), fps), int(meta["frames"]) - 1)


def fixture_sheet(folders: Sequence[str | Path], columns: int = 4,
                  tile: tuple[int, int] = (400, 225)) -> np.ndarray:
    """One decoded frame (:func:`key_frame`) of each simulated clip, labelled, in a grid."""
    from referee.sim.video import probe_video

    tiles = []
    for folder in folders:
        folder = Path(folder)
        k = key_frame(folder)
        _, frames = probe_video(folder / "video.mp4", keep=(k,))
        small = cv2.resize(frames[k], tile, interpolation=cv2.INTER_AREA)
        label = f"{folder.name}  (frame {k})"
        cv2.rectangle(small, (0, tile[1] - 20), (tile[0], tile[1]), (0, 0, 0), -1)
        cv2.putText(small, label, (6, tile[1] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1,
                    cv2.LINE_AA)
        tiles.append(small)
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[r : r + columns]) for r in range(0, len(tiles), columns)]
    return np.vstack(rows)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Write a contact sheet of simulator frames.")
    ap.add_argument("out")
    ap.add_argument("--seeds", default="1-9", help="a range such as 1-9")
    ap.add_argument("--columns", type=int, default=3)
    ap.add_argument("--fixtures", default=None, metavar="DIR",
                    help="instead: one frame of each simulated clip in DIR (e.g. tests/fixtures)")
    args = ap.parse_args(argv)
    if args.fixtures:
        from referee.sim.scenarios import SCENARIOS

        order = {name: i for i, name in enumerate(SCENARIOS)}
        folders = sorted((p.parent for p in Path(args.fixtures).glob("*/meta.json")),
                         key=lambda f: (order.get(f.name, len(order)), f.name))
        cv2.imwrite(args.out, fixture_sheet(folders, args.columns), [cv2.IMWRITE_PNG_COMPRESSION, 9])
        return
    lo, _, hi = args.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    cv2.imwrite(args.out, contact_sheet(seeds, args.columns), [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    main()
