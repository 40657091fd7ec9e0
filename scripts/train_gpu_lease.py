"""Continue the three card models on a borrowed CUDA machine within a fixed wall-clock budget.

    python scripts/train_gpu_lease.py --config models/train-gpu.yaml --budget 520 --out OUT

For a lease of fixed length (stop 42: one H200 for 15 minutes, start and transfers included).
It renders the config's dataset with every core, then gives what is left of ``--budget`` to
the stages (detector, index classifier, face classifier, in that order, shares 55 / 25 / 20 %
less a fixed allowance each for validation and export), each continuing from the weights in
``--models`` through ``referee.train.train`` (ultralytics' ``time`` limit: it re-fits the
epochs and their schedule after the first). Each stage's weights, ONNX and the summary land in
``--out`` as soon as the stage ends; a stage that fails leaves its last checkpoint there
(``NAME-STAGE-last.pt``) and the next stage still runs. Needs ``pip install -e ".[train]"``
or, on a machine without a registry, ultralytics' wheels on ``PYTHONPATH``; polars (which
ultralytics reads its results table with) is not needed: the table is read with ``csv``.
"""

from __future__ import annotations

import argparse
import csv
import logging
import os
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARES = {"detector": 0.55, "classifier": 0.25, "face": 0.20}
ALLOWANCE_S = {"detector": 45.0, "classifier": 25.0, "face": 25.0}  # validation, export, set-up
WEIGHTS = {"detector": "{name}.pt", "classifier": "{name}-index.pt", "face": "{name}-face.pt"}
RUNS = {"detector": "{name}", "classifier": "{name}-index", "face": "{name}-face"}
SECTIONS = {"detector": "model", "classifier": "classifier", "face": "face"}  # of the config


def _read_results_csv(trainer) -> dict:
    """ultralytics' results table as a dict of columns, read without polars."""
    try:
        with open(trainer.csv, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    columns: dict[str, list] = {k.strip(): [] for k in (rows[0] if rows else {})}
    for row in rows:
        for k, v in row.items():
            try:
                columns[k.strip()].append(float(v))
            except (TypeError, ValueError):
                columns[k.strip()].append(v)
    return columns


def _keep_checkpoint(run: Path, dest: Path) -> Path | None:
    """A failed stage's best checkpoint (else its last), its optimizer stripped, copied to ``dest``."""
    for name in ("best.pt", "last.pt"):
        src = run / "weights" / name
        if src.is_file():
            from ultralytics.utils.torch_utils import strip_optimizer

            strip_optimizer(str(src), s=str(dest))
            return dest
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "models" / "train-gpu.yaml"), help="training config (YAML)")
    parser.add_argument("--budget", type=float, required=True,
                        help="wall-clock seconds for everything, rendering included")
    parser.add_argument("--out", required=True, help="folder for the weights, ONNX and the summary")
    parser.add_argument("--work", default=None, help="dataset and runs (default: OUT/../train-work)")
    parser.add_argument("--models", default=str(ROOT / "models"), help="folder of the weights to continue")
    parser.add_argument("--stages", default="detector,classifier,face", help="comma-separated, in order")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    out = Path(args.out).resolve()
    work = Path(args.work).resolve() if args.work else out.parent / "train-work"
    from referee.train import _cores, load_config, offline_environment, train, write_dataset

    from referee.errors import InputError

    if args.budget <= 0:
        parser.error(f"--budget: must be > 0 seconds, got {args.budget}")
    try:
        cfg = load_config(args.config)
    except InputError as exc:
        parser.error(f"--config: {exc}")
    offline_environment(work / "cache")
    stages = [s for s in args.stages.split(",") if s]
    unknown = [s for s in stages if s not in SHARES]
    if unknown:
        parser.error(f"--stages: unknown stage {unknown[0]!r} (one of {', '.join(SHARES)})")
    for stage in stages:
        start = Path(args.models) / WEIGHTS[stage].format(name=cfg.name)
        if not start.is_file():
            parser.error(f"--models: no {start.name} in {args.models} to continue from")

    out.mkdir(parents=True, exist_ok=True)

    def say(message: str) -> None:
        print(f"[{time.monotonic() - t0:6.1f} s] {message}", flush=True)

    cores = _cores()
    say(f"rendering {cfg.data.images} frames with {cores} processes")
    data = write_dataset(cfg, work / "dataset", workers=cores)
    say(f"rendered in {data['render_s']} s: {data['images']} tiles")
    from ultralytics.engine import trainer as trainer_module

    trainer_module.BaseTrainer.read_results_csv = _read_results_csv  # type: ignore[method-assign]
    import torch

    say(f"torch {torch.__version__}, cuda {torch.cuda.is_available()}"
        + (f" ({torch.cuda.get_device_name(0)})" if torch.cuda.is_available() else ""))
    failed = []
    for i, stage in enumerate(stages):
        left = args.budget - (time.monotonic() - t0)
        shares = sum(SHARES[s] for s in stages[i:])
        seconds = left * SHARES[stage] / shares - ALLOWANCE_S[stage]
        if seconds < 20:
            say(f"{stage}: skipped, {left:.0f} s left")
            failed.append(stage)
            continue
        section = SECTIONS[stage]
        staged = replace(cfg, **{section: replace(getattr(cfg, section), hours=round(seconds / 3600, 5))})
        start = Path(args.models) / WEIGHTS[stage].format(name=cfg.name)
        say(f"{stage}: training {seconds:.0f} s from {start}")
        try:
            result = train(staged, out, work, stages=(stage,), start_from=start)
            say(f"{stage}: done, {result.metrics}")
        except Exception:  # keep what the stage learnt, go on with the next
            traceback.print_exc()
            kept = _keep_checkpoint(work / "runs" / RUNS[stage].format(name=cfg.name),
                                    out / f"{cfg.name}-{stage}-last.pt")
            say(f"{stage}: failed; kept {kept}")
            failed.append(stage)
    say(f"finished; failed or skipped: {failed or 'none'}")
    print(os.linesep.join(str(p) for p in sorted(out.iterdir())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
