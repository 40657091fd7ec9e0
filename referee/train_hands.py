"""Training the hand-layering reader (referee/vision/layering_reader.py): render slap races with
the simulator, train a small CNN with torch, export ONNX.

    cfg = HandLayeringConfig()
    result = train_hand_layering(cfg, out="models", work=".cache/train/hand-layering")

Steps (``spit-referee train-hand-layering``):

1. :func:`render_samples` renders ``seeds`` slap races (the ``slap-eval`` scenario from seed
   ``seed`` on: the benchmark uses 6000-6999 and the contact calibration 7000-7019, so these
   never meet them) at ``size``, and keeps ``frames_after`` frames after the later slap (both
   hands lie still there, as in the window the referee reads): each frame JPEG-compressed (a
   video's loss), rectified and shrunk exactly as the referee does (the tracker's view, its
   half-size copy, the hand strip round the slapped pile), with who slapped first (that hand
   lies underneath) and how many pixels the two true hand outlines share.
2. :func:`fit` trains the network on the seeds before the last ``val_share`` (by seed, so one
   table never lands on both sides). Target: 1 when B's hand lies underneath, 0 for A's, 0.5
   when the hands' outlines share fewer than ``min_overlap_px`` pixels (nothing to read).
   Each batch is flipped top to bottom at random (A's edge becomes B's: the target flips too)
   and left to right, and its brightness, contrast and noise varied.
3. :func:`export` writes the ONNX model (the log-odds that A's hand lies underneath, input
   ``(n, 3, h, w)`` standardised by :func:`~referee.vision.layering_reader.standardise`,
   metadata ``input_hw``), the torch weights and a JSON summary with the validation figures.

torch comes from the ``[train]`` extra; without it :func:`fit` raises
:class:`~referee.errors.MissingPrerequisite`. Rendering needs only the package.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.errors import MissingPrerequisite
from referee.events import Slap
from referee.sim.motion import MotionConfig
from referee.train import TRAIN_EXTRA
from referee.vision import arbitration as ar
from referee.vision.calibration import Calibration
from referee.vision.layering_reader import standardise
from referee.vision.mat import load_layout
from referee.vision.tracking import TrackerSettings, view_maps, view_size

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class HandLayeringConfig:
    seed: int = 20000  # the first slap-eval seed rendered
    seeds: int = 800
    frames_after: tuple[int, ...] = (4, 7, 10)  # frames after the later slap's frame
    size: tuple[int, int] = (1280, 720)
    jpeg_quality: int = 80
    min_overlap_px: int = 2000  # camera pixels the hands' outlines must share for a side to be taught
    #: where the hands land (:class:`~referee.sim.motion.MotionConfig`): the benchmark's slaps put the
    #: later hand 18 mm beyond the first, which the model must not learn to read instead of the picture
    spread_mm: float = 20.0
    aside_mm: tuple[float, float] = (-30.0, 30.0)
    aside_x_mm: float = 15.0
    val_share: float = 0.15
    epochs: int = 20
    batch: int = 32
    lr: float = 3e-3
    widths: tuple[int, ...] = (16, 32, 48, 64, 64)
    train_seed: int = 0


@dataclass(frozen=True)
class Samples:
    strips: np.ndarray  # (n, h, w, 3) uint8 BGR
    b_under: np.ndarray  # (n,) 1 when B slapped first (B's hand lies underneath), else 0
    overlap_px: np.ndarray  # (n,) camera pixels inside both true hand outlines
    seeds: np.ndarray  # (n,)

    def save(self, path: Path) -> None:
        np.savez_compressed(path, strips=self.strips, b_under=self.b_under, overlap_px=self.overlap_px,
                            seeds=self.seeds)

    @classmethod
    def load(cls, path: Path) -> Samples:
        with np.load(path) as d:
            return cls(d["strips"], d["b_under"], d["overlap_px"], d["seeds"])


class StripRectifier:
    """The hand strip round one pile as the referee makes it from a camera frame: the tracker's
    rectified view (only the columns needed), shrunk by 2 as the tracker's small view, then to
    the hand strip's scale (:func:`~referee.vision.arbitration.shrink_strip`)."""

    def __init__(self, calibration: Calibration, pile_x_mm: float,
                 settings: ar.HandSettings | None = None) -> None:
        ts = TrackerSettings()
        self.st = settings or ar.HandSettings()
        out_w, self._out_h, _ = view_size(calibration.layout.size_mm, ts)
        small_w = out_w // 2
        self.geo_small = ar.ViewGeometry(ts.px_per_mm * small_w / out_w, ts.margin_mm,
                                         calibration.layout.size_mm)
        u0, u1 = ar.view_columns(self.geo_small, pile_x_mm - self.st.half_width_mm,
                                 pile_x_mm + self.st.half_width_mm, small_w)
        self._small_w = u1 - u0
        mx, my = view_maps(calibration, ts, (2 * u0, 2 * u1))
        self._maps = cv2.convertMaps(mx, my, cv2.CV_16SC2)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        view = cv2.remap(frame, self._maps[0], self._maps[1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
        small = cv2.resize(view, (self._small_w, self._out_h // 2), interpolation=cv2.INTER_AREA)
        return ar.shrink_strip(small, self.geo_small, self.st)


def _overlap_px(truth: Any, shape: tuple[int, int]) -> int:
    masks = {}
    for hand in truth.hands:
        m = np.zeros(shape, np.uint8)
        cv2.fillPoly(m, [np.round(hand.outline).astype(np.int32)], 1)
        masks[hand.owner] = m
    return int((masks["A"] & masks["B"]).sum()) if len(masks) == 2 else 0


def render_seed(seed: int, cfg: HandLayeringConfig) -> list[tuple[np.ndarray, int, int]]:
    """One slap race's kept frames: (strip, 1 if B's hand lies underneath, shared outline px)."""
    from referee.sim import clip as simclip
    from referee.sim.decks import get_deck
    from referee.sim.render import Renderer
    from referee.sim.scenarios import slap_eval
    from referee.sim.truth import true_calibration

    fragment = slap_eval(seed)
    slaps = sorted((r for r in fragment.records if isinstance(r, Slap)), key=lambda s: s.t)
    if len(slaps) != 2 or slaps[0].pile != slaps[1].pile:
        return []
    setup = simclip.clip_setup(fragment, cfg.size, 30)
    motion = MotionConfig(slap_spread_mm=cfg.spread_mm, slap_aside_mm=cfg.aside_mm,
                          slap_aside_x_mm=cfg.aside_x_mm)
    choreo = simclip.choreography(fragment, setup.base.mat.size_mm if setup.base.mat else None, motion)
    renderer = Renderer(get_deck(setup.deck))
    later = int(round(slaps[1].t * float(setup.fps)))
    wanted = {later + k for k in cfg.frames_after}
    layout = load_layout()
    rectify: StripRectifier | None = None
    out = []
    for scene in simclip.frame_scenes(fragment, setup, choreo):
        if scene.frame_index not in wanted:
            continue
        image, truth = renderer.render(scene)
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, cfg.jpeg_quality])
        if ok:
            image = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        if rectify is None:
            cal = true_calibration(scene.camera, layout, "simulator")
            rectify = StripRectifier(cal, float(layout.zone(f"pile{slaps[0].pile}").center[0]))
        out.append((rectify(image), int(str(slaps[0].player) == "B"), _overlap_px(truth, image.shape[:2])))
    return out


def render_samples(cfg: HandLayeringConfig, progress: Progress | None = None) -> Samples:
    strips, under, overlap, seeds = [], [], [], []
    for i, seed in enumerate(range(cfg.seed, cfg.seed + cfg.seeds)):
        for strip, b, ov in render_seed(seed, cfg):
            strips.append(strip)
            under.append(b)
            overlap.append(ov)
            seeds.append(seed)
        if progress is not None:
            progress(i + 1, cfg.seeds)
    if not strips:
        raise ValueError(f"no slap race rendered from seeds {cfg.seed}-{cfg.seed + cfg.seeds - 1}")
    return Samples(np.stack(strips), np.array(under, np.int8), np.array(overlap, np.int64),
                   np.array(seeds, np.int64))


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise MissingPrerequisite(f"training the hand-layering model needs torch: {TRAIN_EXTRA}") from None
    return torch


def build_net(widths: tuple[int, ...]) -> Any:
    """3x3 convolutions (batch norm, ReLU), each but the last followed by 2x2 max pooling; the
    mean and the maximum of the last layer over the picture; one linear output (log-odds)."""
    torch = _torch()
    nn = torch.nn

    class LayeringNet(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            layers: list[Any] = []
            c = 3
            for i, o in enumerate(widths):
                layers += [nn.Conv2d(c, o, 3, padding=1, bias=False), nn.BatchNorm2d(o),
                           nn.ReLU(inplace=True)]
                if i < len(widths) - 1:
                    layers.append(nn.MaxPool2d(2))
                c = o
            self.body = nn.Sequential(*layers)
            self.head = nn.Linear(2 * c, 1)

        def forward(self, x: Any) -> Any:
            f = self.body(x)
            return self.head(torch.cat([f.mean(dim=(2, 3)), f.amax(dim=(2, 3))], 1))

    return LayeringNet()


def targets(samples: Samples, cfg: HandLayeringConfig) -> np.ndarray:
    """1: B's hand underneath, 0: A's, 0.5: the hands hardly overlap (nothing to read)."""
    return np.where(samples.overlap_px >= cfg.min_overlap_px, samples.b_under.astype(np.float32),
                    0.5).astype(np.float32)


def _augment(x: np.ndarray, t: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x, t = x.copy(), t.copy()
    v = rng.random(len(x)) < 0.5  # top to bottom: A's edge becomes B's
    x[v] = x[v][:, ::-1]
    t[v] = 1 - t[v]
    h = rng.random(len(x)) < 0.5
    x[h] = x[h][:, :, ::-1]
    n = len(x)
    xf = x.astype(np.float32) * rng.uniform(0.7, 1.3, (n, 1, 1, 3)) + rng.uniform(-25, 25, (n, 1, 1, 1))
    return np.clip(xf + rng.normal(0, 3, xf.shape), 0, 255), t


def predict(net: Any, strips: np.ndarray) -> np.ndarray:
    """P(B's hand underneath) per strip, from the torch net."""
    torch = _torch()
    net.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(strips), 64):
            out.append(torch.sigmoid(-net(torch.from_numpy(standardise(strips[i:i + 64])))).numpy().ravel())
    return np.concatenate(out) if out else np.zeros(0)


def scores(p_b_under: np.ndarray, target: np.ndarray, sure: float = 0.9) -> dict[str, float]:
    """Accuracy where the hands overlap; the share of those called at least ``sure`` and their accuracy."""
    hard = target != 0.5
    if not hard.any():
        return {"pictures": 0}
    right = (p_b_under[hard] > 0.5) == (target[hard] > 0.5)
    called = np.maximum(p_b_under[hard], 1 - p_b_under[hard]) >= sure
    return {"pictures": int(hard.sum()), "accuracy": round(float(right.mean()), 4),
            "sure_share": round(float(called.mean()), 4),
            "sure_accuracy": round(float(right[called].mean()), 4) if called.any() else float("nan")}


def fit(samples: Samples, cfg: HandLayeringConfig, log: Callable[[str], None] = print
        ) -> tuple[Any, dict[str, Any]]:
    """Train the network (the net predicts A's log-odds of lying underneath); return it and the
    validation figures."""
    torch = _torch()
    torch.manual_seed(cfg.train_seed)
    rng = np.random.default_rng(cfg.train_seed)
    t = targets(samples, cfg)
    seeds = np.unique(samples.seeds)
    val_seeds = seeds[int(round(len(seeds) * (1 - cfg.val_share))):]
    val = np.isin(samples.seeds, val_seeds)
    x_tr, t_tr = samples.strips[~val], t[~val]
    net = build_net(cfg.widths)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    steps = cfg.epochs * (-(-len(x_tr) // cfg.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=max(1, steps))
    began = time.perf_counter()
    history = []
    for epoch in range(cfg.epochs):
        net.train()
        order = rng.permutation(len(x_tr))
        total = 0.0
        for i in range(0, len(order), cfg.batch):
            idx = order[i:i + cfg.batch]
            xb, tb = _augment(x_tr[idx], t_tr[idx], rng)
            logit_a = net(torch.from_numpy(standardise(xb))).squeeze(1)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(-logit_a, torch.from_numpy(tb))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        figures = scores(predict(net, samples.strips[val]), t[val]) if val.any() else {}
        history.append({"epoch": epoch + 1, "loss": round(total / max(1, len(x_tr)), 4), **figures})
        log(f"epoch {epoch + 1}/{cfg.epochs}: loss {history[-1]['loss']:.4f}, validation {figures} "
            f"({time.perf_counter() - began:.0f} s)")
    report = {"train_pictures": int((~val).sum()), "val_pictures": int(val.sum()),
              "val_seeds": [int(val_seeds[0]), int(val_seeds[-1])] if len(val_seeds) else [],
              "seconds": round(time.perf_counter() - began, 1), "history": history,
              "validation": history[-1] if history else {}}
    return net, report


def export(net: Any, path: Path, input_hw: tuple[int, int]) -> None:
    """The net as ONNX (input ``strips`` (n, 3, h, w), output the log-odds that A's hand lies
    underneath), its input size in the metadata."""
    torch = _torch()
    import onnx

    net.eval()
    dummy = torch.zeros(1, 3, *input_hw)
    torch.onnx.export(net, dummy, str(path), input_names=["strips"], output_names=["a_under_logit"],
                      dynamic_axes={"strips": {0: "n"}, "a_under_logit": {0: "n"}}, opset_version=17,
                      dynamo=False)
    model = onnx.load(str(path))
    entry = model.metadata_props.add()
    entry.key, entry.value = "input_hw", json.dumps(list(input_hw))
    onnx.save(model, str(path))


@dataclass(frozen=True)
class TrainResult:
    onnx: Path
    weights: Path
    summary: Path
    validation: dict[str, Any]


def train_hand_layering(cfg: HandLayeringConfig, out: str | Path, work: str | Path,
                        progress: Progress | None = None, log: Callable[[str], None] = print,
                        threads: int | None = None) -> TrainResult:
    """Render (or reuse, while the config's data fields are unchanged) the samples in ``work``,
    train, and write hand-layering.onnx, .pt and -train.json to ``out``."""
    torch = _torch()
    if threads:
        torch.set_num_threads(threads)
    out, work = Path(out), Path(work)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    data_key = {k: v for k, v in asdict(cfg).items()
                if k in ("seed", "seeds", "frames_after", "size", "jpeg_quality", "spread_mm", "aside_mm",
                         "aside_x_mm")}
    cached, key_file = work / "samples.npz", work / "samples.json"
    if cached.is_file() and key_file.is_file() and json.loads(key_file.read_text()) == json.loads(
            json.dumps(data_key)):
        samples = Samples.load(cached)
        log(f"samples: {len(samples.strips)} pictures reused from {cached}")
    else:
        samples = render_samples(cfg, progress)
        samples.save(cached)
        key_file.write_text(json.dumps(data_key))
    net, report = fit(samples, cfg, log)
    onnx_path, pt_path = out / "hand-layering.onnx", out / "hand-layering.pt"
    summary = out / "hand-layering-train.json"
    input_hw = (int(samples.strips.shape[1]), int(samples.strips.shape[2]))
    export(net, onnx_path, input_hw)
    torch.save(net.state_dict(), pt_path)
    made = {"config": asdict(cfg), "input_hw": list(input_hw), "threads": torch.get_num_threads(), **report}
    summary.write_text(json.dumps(made, indent=1) + "\n")
    return TrainResult(onnx_path, pt_path, summary, report["validation"])
