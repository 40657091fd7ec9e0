"""Recognition as the referee uses it: every zone crop the referee read in the evaluation games,
kept with the truth's top, and read again offline with other recognition settings.

    .venv/bin/python benchmarks/zone_reads.py dump --size 1280x720       # ~7 min, ~25 MB a game
    .venv/bin/python benchmarks/zone_reads.py reread --size 1280x720 --pads 1.2 --pads 1.0,1.2,1.4
    .venv/bin/python benchmarks/zone_reads.py reread --size 1280x720 --pads 1.0,1.2,1.4 --face-weights 0,0.5

``dump`` referees the evaluation games of ``benchmarks/referee_eval.py`` (seeds 5000-5019, their
first 30 s; rendered into ``.cache/referee-eval/`` when missing) with the shipped card model and
keeps, per game, every zone crop the referee had read (cut by its own ``ZoneCropper``) with the
truth's top at that frame (``TruthReader``) and the referee's reading, in
``.cache/zone-reads/SIZE/GAME.pkl``. It prints each game's reads and how many named the truth.

``reread`` reads the kept crops whose true top is a face-up card again, with ``Recognizer``'s
index pads set to each ``--pads`` (comma-separated; the runtime's default is
``INDEX_PADS``), and prints per setting: reads, right, wrong identities (another card; of them
read at >= 0.5, which the referee acts on at once), right and read at >= 0.5, and wrong with the
truth as runner-up. ``--face-weights`` tries each setting with the face classifier
(``models/cards-face.onnx``) joined at each weight, 0 being the indices alone. Stop 25's index
pads and stop 26's face weight were chosen so (models/MODEL_CARD.md).

The crops are what the referee's code of the day asked to read: a change to the referee changes
which crops there are, so compare settings on one dump.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from referee_eval import DEFAULT_SIZE, referee_clip, render_games  # noqa: E402

from referee.live.pipeline import ModelReader, ZoneRead  # noqa: E402
from referee.sim.oracle import TruthReader  # noqa: E402
from referee.vision.calibration import load_calibration  # noqa: E402
from referee.vision.recognize import CODES, FACE_WEIGHT, INDEX_PADS, Recognizer  # noqa: E402

DUMPS = ROOT / ".cache" / "zone-reads"
NOT_FACES = ("empty", "back")
SURE = 0.5  # the referee's MIN_IDENTITY_CONFIDENCE: a reading at least this sure is acted on


class KeepingReader(ModelReader):
    """The referee's model reader, keeping each crop it reads with the truth's top."""

    def __init__(self, recognizer: Recognizer, clip: Path) -> None:
        super().__init__(recognizer, load_calibration(clip / "calibration.yaml"))
        self.truth = TruthReader(clip / "frames.jsonl.gz")
        self.kept: list[dict[str, Any]] = []

    def read(self, image: np.ndarray, frame: int, zones: Any) -> list[ZoneRead]:
        reads = super().read(image, frame, zones)
        if zones:
            for zone, crop, (truth, _), read in zip(zones, self.cropper.cut(image, zones),
                                                    self.truth.read(frame, zones), reads, strict=True):
                self.kept.append({"frame": frame, "zone": zone, "truth": truth, "read": read,
                                  "crop": np.ascontiguousarray(crop)})
        return reads


def dump(size: str, games: int, seed: int, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    recognizer = Recognizer.load()
    for clip in render_games(games, seed, 31.0, size):
        reader = KeepingReader(recognizer, clip)
        referee_clip(clip, reader, until_s=30.0)
        with (out / f"{clip.name}.pkl").open("wb") as f:
            pickle.dump(reader.kept, f)
        right = sum(1 for k in reader.kept if k["read"].label == k["truth"])
        print(f"{clip.name}: {len(reader.kept)} reads, {right} named the truth", flush=True)


Setting = tuple[tuple[float, ...], float]  # index pads, face weight (0: no face classifier)


def _name(setting: Setting) -> str:
    pads, weight = setting
    return ",".join(map(str, pads)) + (f" face {weight:g}" if weight else "")


def reread(folder: Path, settings: list[Setting]) -> None:
    files = sorted(folder.glob("*.pkl"))
    if not files:
        sys.exit(f"{folder}: no dumps (run: benchmarks/zone_reads.py dump)")
    recognizers = {(pads, weight): Recognizer.load(index_pads=pads, face_path=None if weight else False,
                                                   face_weight=weight or FACE_WEIGHT)
                   for pads, weight in settings}
    if any(weight and r.face_session is None for (_, weight), r in recognizers.items()):
        sys.exit("a --face-weight was given but there is no face classifier (models/cards-face.onnx)")
    counts = {setting: Counter[str]() for setting in settings}
    for path in files:
        with path.open("rb") as f:
            kept = [k for k in pickle.load(f) if k["truth"] not in NOT_FACES]
        for pads, recognizer in recognizers.items():
            c = counts[pads]
            for start in range(0, len(kept), 12):
                batch = kept[start:start + 12]
                rows = recognizer.recognize_zones([k["crop"] for k in batch])
                for k, label, conf, second in zip(batch, rows.label, rows.confidence, rows.runner_up,
                                                  strict=True):
                    c["reads"] += 1
                    if label == k["truth"]:
                        c["right"] += 1
                        c["right, read >= 0.5"] += conf >= SURE
                    elif label not in (*NOT_FACES, "card"):
                        c["wrong identity"] += 1
                        c["wrong, read >= 0.5"] += conf >= SURE
                        c["wrong, truth runner-up"] += second >= 0 and CODES[second] == k["truth"]
        so_far = ", ".join(f"{_name(p)}: {counts[p]['right']}" for p in settings)
        print(f"{path.stem}: right so far {so_far}", file=sys.stderr, flush=True)
    keys = ("reads", "right", "wrong identity", "wrong, read >= 0.5", "right, read >= 0.5",
            "wrong, truth runner-up")
    print(f"{len(files)} games in {folder}")
    for setting in settings:
        print(f"  pads {_name(setting):<24}" + "  ".join(f"{k} {counts[setting][k]}" for k in keys))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="referee the games with the model, keeping the crops it read")
    r = sub.add_parser("reread", help="read the kept crops again with each --pads (and --face-weights)")
    for p in (d, r):
        p.add_argument("--size", default=DEFAULT_SIZE, help="the games' frame size (default 960x540)")
        p.add_argument("--dir", type=Path, help="the dumps' folder (default .cache/zone-reads/SIZE)")
    d.add_argument("--games", type=int, default=20, help="how many evaluation games")
    d.add_argument("--seed", type=int, default=5000, help="first game seed")
    r.add_argument("--pads", action="append", help="index pads, comma-separated (repeatable; "
                   f"default: one pad, 1.2, and the runtime's {','.join(map(str, INDEX_PADS))})")
    r.add_argument("--face-weights", default="0", help="weights of the face classifier's reading joined "
                   "with each index's, comma-separated, each tried with every --pads (0: indices alone; "
                   f"the runtime's is {FACE_WEIGHT:g}; default 0)")
    args = ap.parse_args()
    folder = args.dir or DUMPS / args.size
    if args.command == "dump":
        dump(args.size, args.games, args.seed, folder)
        return
    try:
        texts = args.pads or ["1.2", ",".join(map(str, INDEX_PADS))]
        pad_settings = [tuple(float(v) for v in text.split(",")) for text in texts]
        if any(not 0.5 <= pad <= 3 for pads in pad_settings for pad in pads):
            raise ValueError
    except ValueError:
        ap.error(f"--pads takes numbers in [0.5, 3] separated by commas, e.g. 1.0,1.2,1.4: got {args.pads}")
    try:
        weights = [float(v) for v in args.face_weights.split(",")]
        if any(not 0 <= w <= 1 for w in weights):
            raise ValueError
    except ValueError:
        ap.error(f"--face-weights takes numbers in [0, 1] separated by commas, e.g. 0,0.5: got "
                 f"{args.face_weights!r}")
    reread(folder, [(pads, w) for pads in pad_settings for w in weights])


if __name__ == "__main__":
    main()
