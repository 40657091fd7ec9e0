"""Subcommands of card recognition: ``detect`` (cards in photos), ``train`` (the model) and
``evaluate-recognition`` (its accuracy and speed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from referee.errors import InputError

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "models" / "train.yaml"
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
EVAL_SETS = ("renders", "holdout-deck", "edje", "feliksh", "speed")


def register(group: click.Group) -> None:
    """Add this area's subcommands to the ``spit-referee`` group."""
    for command in (detect, train, evaluate_recognition):
        group.add_command(command)


def _model_option(f: click.decorators.FC) -> click.decorators.FC:
    return click.option("--model", "model", type=click.Path(dir_okay=False), default=None,
                        help="The ONNX card model (default: models/cards.onnx).")(f)


@click.command()
@click.argument("images", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per image, one per line.")
@click.option("--annotate", type=click.Path(file_okay=False), default=None,
              help="Write each image with its boxes and labels drawn into this folder.")
@click.option("--conf", type=click.FloatRange(0.01, 0.99), default=0.25, show_default=True,
              help="Lowest confidence kept.")
@_model_option
def detect(images: tuple[str, ...], as_json: bool, annotate: str | None, conf: float,
           model: str | None) -> None:
    """Identify every face-up card in ordinary photographs (no calibration needed)."""
    import cv2

    from referee.vision.recognize import Recognizer, read_image
    from referee.vision.recognize import annotate as draw

    rec = Recognizer.load(model, conf=conf)
    out_dir = Path(annotate) if annotate else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    for path in images:
        image = read_image(path)
        found = rec.detect(image)
        cards = found[found.is_card | (found.label == "back")]
        if as_json:
            click.echo(json.dumps({"image": path, "cards": cards.cards_json()}))
        else:
            names = ", ".join(f"{lab} {c:.2f}" for lab, c in zip(cards.label, cards.confidence, strict=True))
            click.echo(f"{path}: {len(cards)} card{'s' if len(cards) != 1 else ''}"
                       + (f": {names}" if names else ""))
        if out_dir is not None:
            target = out_dir / (Path(path).stem + ".jpg")
            if not cv2.imwrite(str(target), draw(image, found)):
                raise InputError("cannot write the annotated image", str(target))


@click.command()
@click.option("--config", "config", type=click.Path(dir_okay=False), default=str(DEFAULT_CONFIG),
              show_default="models/train.yaml", help="The training recipe (YAML).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Where NAME.onnx, NAME.pt and NAME-train.json go (default: models/).")
@click.option("--work", type=click.Path(file_okay=False), default=None,
              help="Dataset, runs and caches (default: .cache/train/NAME).")
@click.option("--threads", type=click.IntRange(1, 256), default=None,
              help="CPU threads for torch and rendering processes (default: every core).")
@click.option("--stage", "stages", type=click.Choice(["detector", "classifier", "face"]), multiple=True,
              help="Train only this model (repeatable; default: all three). The dataset is rendered once "
                   "and reused while the config's data section is unchanged.")
@click.option("--from-weights", type=click.Path(dir_okay=False), default=None,
              help="Validate and export these weights for the one --stage instead of training (a run cut "
                   "short: WORK/runs/NAME/weights/last.pt).")
@click.option("--start-from", type=click.Path(dir_okay=False), default=None,
              help="Train the one --stage starting from these weights (continue an earlier run, e.g. "
                   "models/cards-index.pt, with the config's epochs and learning rate), not from scratch.")
def train(config: str, out: str | None, work: str | None, threads: int | None,
          stages: tuple[str, ...], from_weights: str | None, start_from: str | None) -> None:
    """Render a dataset, train the card models from scratch, validate them, export ONNX.

    Three models: NAME.onnx finds corner indices, cards, backs and hands; NAME-index.onnx reads
    a corner index and NAME-face.onnx a whole face-up card (52 identities each). Needs the
    [train] extra (torch, ultralytics): pip install -e ".[train]".
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from referee import train as training

    cfg = training.load_config(config)
    root = Path(__file__).resolve().parents[2]
    with Progress(TextColumn("rendering"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=Console(stderr=True), disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("render", total=cfg.data.images)
        result = training.train(cfg, out=out or root / "models",
                                work=work or root / ".cache" / "train" / cfg.name, threads=threads,
                                progress=lambda done, total: bar.update(task, completed=done),
                                stages=stages or training.STAGES, from_weights=from_weights,
                                start_from=start_from)
    click.echo(f"models: {result.onnx}, {result.index_onnx}, {result.face_onnx} (and .pt); "
               f"summary: {result.summary}")
    click.echo("validation: " + ", ".join(f"{k} {v:.3f}" for k, v in result.metrics.items()))


@click.command("evaluate-recognition")
@_model_option
@click.option("--config", "config", type=click.Path(dir_okay=False), default=str(DEFAULT_CONFIG),
              show_default="models/train.yaml", help="The training recipe (held-out seeds, left-out deck).")
@click.option("--data", "data", type=click.Path(file_okay=False), default=str(DEFAULT_DATA),
              show_default="../shared/data", help="Folder with real-photos-edje/ and real-faces-feliksh/.")
@click.option("--sets", default=",".join(EVAL_SETS), show_default=True,
              help="Comma-separated sets to run.")
@click.option("--images", type=click.IntRange(1), default=None,
              help="Rendered frames per set (default: config).")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the report here as JSON (default: next to the model, NAME-eval.json).")
def evaluate_recognition(model: str | None, config: str, data: str, sets: str, images: int | None,
                         out: str | None) -> None:
    """Accuracy on held-out renders, the left-out deck and real photographs; speed."""
    from dataclasses import replace

    from referee.evaluate import evaluate, table_rows
    from referee.train import load_config
    from referee.vision.recognize import Recognizer

    chosen = tuple(s.strip() for s in sets.split(",") if s.strip())
    bad = [s for s in chosen if s not in EVAL_SETS]
    if bad or not chosen:
        raise InputError(f"unknown set {bad[0] if bad else sets!r} (known: {', '.join(EVAL_SETS)})", "--sets")
    cfg = load_config(config)
    if images is not None:
        cfg = replace(cfg, eval=replace(cfg.eval, images=images))
    rec = Recognizer.load(model)
    report = evaluate(rec, cfg, Path(data), chosen,
                      progress=lambda name: click.echo(f"evaluating {name} ...", err=True))
    click.echo(f"{'set':<14}{'recall':>10}{'right/found':>13}{'zones':>10}")
    for name, recall, acc, zones in table_rows(report):
        click.echo(f"{name:<14}{recall:>10}{acc:>13}{zones:>10}")
    if "speed" in report:
        s = report["speed"]
        click.echo(f"speed: 1280x720 photo {s['photo_1280x720_ms']} ms, 12 zone crops {s['zones_12_ms']} ms "
                   f"(median, {s['threads']} threads)")
    target = Path(out) if out else rec.path.with_name(rec.path.stem + "-eval.json")
    try:
        target.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the report: {exc.strerror or exc}", str(target)) from None
    click.echo(f"report: {target}", err=sys.stderr.isatty())
