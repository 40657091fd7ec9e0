"""Rebuild the committed card-face assets in this folder (a maintainer's tool, never run at
install or run time: the images it makes are committed).

Sources, fetched with the ordinary package clients into a scratch folder SRC:
  pip download --no-deps arcade==3.3.3 -d SRC          (Kenney's CC0 PNG deck)
  cd SRC && npm pack react-free-playing-cards@0.4.2      (Adrian Kennard's CC0 SVG deck)
and rasterised with rsvg-convert (Debian librsvg2-bin). The real deck is copied from
../shared/data/real-faces-feliksh (MIT).

  python referee/sim/assets/build_assets.py SRC

Every face is stored at 252x352 px (4 px per mm of a 63x88 mm card).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import cv2
import numpy as np

W, H = 252, 352
HERE = Path(__file__).resolve().parent
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}


def _fit(img: np.ndarray) -> np.ndarray:
    """Crop to the opaque card and resize to the canonical size."""
    if img.shape[2] == 4:
        ys, xs = np.nonzero(img[:, :, 3] > 8)
        img = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)


def kenney(src: Path) -> None:
    out = HERE / "kenney"
    out.mkdir(exist_ok=True)
    whl = next(src.glob("arcade-*.whl"))
    with zipfile.ZipFile(whl) as z:
        base = "arcade/resources/assets/images/"

        def read(name: str) -> np.ndarray:
            data = np.frombuffer(z.read(base + name), np.uint8)
            return cv2.imdecode(data, cv2.IMREAD_UNCHANGED)

        for r in RANKS:
            for s, sname in SUITS.items():
                img = _fit(read(f"cards/card{sname}{r}.png"))
                cv2.imwrite(str(out / f"{r}{s}.png"), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        cv2.imwrite(str(out / "back.png"), _fit(read("cards/cardBack_blue5.png")))
        (out / "LICENSE.txt").write_bytes(z.read(base + "License.txt"))


def kennard(src: Path) -> None:
    tgz = next(src.glob("react-free-playing-cards-*.tgz"))
    tmp = src / "rfpc"
    with tarfile.open(tgz) as t:
        t.extractall(tmp, filter="data")
    images = tmp / "package" / "src" / "images"
    for style, folder in (("2color", "kennard"), ("2color-bf", "kennard-bigface")):
        out = HERE / folder
        out.mkdir(exist_ok=True)
        for r in RANKS:
            for s in SUITS:
                svg = images / style / f"{'T' if r == '10' else r}{s}.svg"
                png = out / f"{r}{s}.png"
                subprocess.run(["rsvg-convert", "-w", str(W), "-h", str(H), str(svg), "-o",
                                str(png)], check=True)
                img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
                cv2.imwrite(str(png), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        subprocess.run(["rsvg-convert", "-w", str(W), "-h", str(H), str(images / "back.svg"),
                        "-o", str(out / "back.png")], check=True)


def feliksh(shared: Path) -> None:
    src = shared / "data" / "real-faces-feliksh"
    out = HERE / "feliksh"
    out.mkdir(exist_ok=True)
    order = ["S", "C", "D", "H"]  # cr1-13 spades, 14-26 clubs, 27-39 diamonds, 40-52 hearts
    for i in range(52):
        code = RANKS[i % 13] + order[i // 13]
        img = cv2.imread(str(src / f"cr{i + 1}.jpg"))
        img = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(out / f"{code}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    (out / "LICENSE.txt").write_bytes((src / "LICENSE").read_bytes())


if __name__ == "__main__":
    scratch = Path(sys.argv[1])
    kenney(scratch)
    kennard(scratch)
    feliksh(HERE.parents[2].parent / "shared")
