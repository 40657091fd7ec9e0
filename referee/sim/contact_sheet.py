"""A contact sheet of random simulator frames, for people to judge the renders by eye.

    .venv/bin/python -m referee.sim.contact_sheet docs/sim-frames.png [--seeds 1-9]

Each tile is a random mid-game scene (:func:`referee.sim.scene.random_scene`) with a different
deck; the same seeds always give the same sheet on one machine.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

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


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Write a contact sheet of simulator frames.")
    ap.add_argument("out")
    ap.add_argument("--seeds", default="1-9", help="a range such as 1-9")
    ap.add_argument("--columns", type=int, default=3)
    args = ap.parse_args(argv)
    lo, _, hi = args.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    cv2.imwrite(args.out, contact_sheet(seeds, args.columns), [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    main()
