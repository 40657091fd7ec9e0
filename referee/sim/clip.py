"""A scenario rendered as a video clip with its truth: the glue of the simulator.

    fragment = make_fragment("race-2f", seed=3)
    result = render_clip(fragment, "out/race-2f", size=(960, 540), fps=30)

Per frame ``i`` (time ``t = i / fps`` exactly): the motion (:class:`referee.sim.motion.
Choreography`) gives the cards and hands at ``t``; the scene's camera and light follow the
fragment's scene changes (a knocked camera, light that dims); the renderer draws the frame and
its truth; the frame goes to the H.264 writer and the truth to ``frames.jsonl.gz``. Then the
records (with their frames), the true calibration and ``meta.json`` are written
(:mod:`referee.sim.truth` describes the files).

**The prelude in motion.** The prelude's events all have ``t = 0`` in the records. For the
motion they are spread out before the clip (each a moment after the last, deals longer), so
that at ``t = 0`` every card lies where the prelude left it and the hands wait at home; the
records written keep ``t = 0``.

Everything random comes from the fragment's seed: the camera, table, light, sensor effects,
the deck (unless one is given) and the motion.
"""

from __future__ import annotations

import logging
import math
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from referee import __version__
from referee.events import Deal, Record, TableEvent
from referee.sim import truth as files
from referee.sim.camera import Camera, random_camera
from referee.sim.decks import BUILTIN_DECKS, get_deck
from referee.sim.kinematics import smoothstep
from referee.sim.matart import mat_art
from referee.sim.motion import Choreography, DealtCards, MotionConfig
from referee.sim.render import Renderer
from referee.sim.scenarios import Fragment, is_prelude
from referee.sim.scene import Lighting, MatArt, Scene, blend_lighting, random_effects, random_lighting
from referee.sim.textures import random_table
from referee.sim.video import VideoWriter, parse_fps
from referee.vision.mat import load_layout

log = logging.getLogger(__name__)

DEFAULT_SIZE = (960, 540)
PRELUDE_GAP_S = 0.7  # prelude events, spread out before the clip for the motion
PRELUDE_DEAL_S = 2.6
Progress = Callable[[int, int], None]


def default_deck(seed: int) -> str:
    """The deck a clip uses when none is given: the built-in decks and procedural ones, by seed."""
    choices = (*BUILTIN_DECKS, f"procedural:{seed}")
    return choices[seed % len(choices)]


@dataclass(frozen=True)
class ClipSetup:
    """What stays fixed (or changes only as the fragment says) over a clip."""

    base: Scene
    deck: str
    fps: Fraction
    frames: int


@dataclass(frozen=True)
class ClipResult:
    out: Path
    frames: int
    seconds: float
    render_s: float
    meta: dict[str, Any]


def clip_setup(fragment: Fragment, size: tuple[int, int] = DEFAULT_SIZE, fps: float | str | Fraction = 30,
               deck: str | None = None, mat: MatArt | None = None) -> ClipSetup:
    """Camera, table, light, effects and deck for the fragment's seed."""
    rate = parse_fps(fps)
    if mat is None:
        mat, _ = mat_art()
    rng = np.random.default_rng([fragment.seed, 20261130])
    camera = random_camera(rng, size=size)
    table = random_table(rng)
    light = random_lighting(rng)
    effects = random_effects(rng)
    base = Scene(camera=camera, table=table, lighting=light, effects=effects, mat=mat,
                 seed=fragment.seed)
    frames = max(1, math.ceil(fragment.duration * rate - Fraction(1, 10**6)))
    return ClipSetup(base, deck if deck is not None else default_deck(fragment.seed), rate, frames)


def motion_records(fragment: Fragment) -> list[Record]:
    """The fragment's records with the prelude spread out before t = 0 (for the motion)."""
    prelude = [r for r in fragment.records if isinstance(r, TableEvent) and is_prelude(r)]
    when: dict[int, float] = {}
    t = -0.8
    for r in reversed(prelude):
        when[id(r)] = t
        t -= PRELUDE_DEAL_S if isinstance(r, Deal) else PRELUDE_GAP_S
    return [replace(r, t=when[id(r)]) if id(r) in when else r for r in fragment.records]


def choreography(fragment: Fragment, mat_size: tuple[float, float] | None = None,
                 config: MotionConfig | None = None) -> Choreography:
    """The motion of a fragment, with the true face-down cards of every deal (``config``: the
    motion model's knobs, default :class:`~referee.sim.motion.MotionConfig`)."""
    dealt: dict[int, DealtCards] = {}
    deals = iter(fragment.deals)
    for index, ev in enumerate(fragment.table_events):
        if isinstance(ev, Deal):
            d = next(deals, None)
            if d is not None:
                dealt[index] = DealtCards(d.stock, d.packet)
    _, zones = mat_art()
    return Choreography(motion_records(fragment), seed=fragment.seed, dealt=dealt, zones=zones,
                        mat_size=mat_size or (594.0, 420.0), config=config)


def lighting_at(base: Lighting, visuals: dict[str, Any], t: float) -> Lighting:
    """The light at ``t``: ``visuals["lighting"]`` blends toward a dimmer, warmer light
    between ``t0`` and ``t1`` (gain factor, warmth, gradient, vignette; the light's direction
    and shadows stay, so the cached background stays valid)."""
    change = visuals.get("lighting")
    if not change:
        return base
    s = smoothstep(t, float(change["t0"]), float(change["t1"]))
    if s <= 0:
        return base
    target = replace(base, gain=base.gain * float(change["gain"]),
                     warmth=base.warmth + float(change["warmth"]),
                     gradient=tuple(float(v) for v in change["gradient"]),  # type: ignore[arg-type]
                     vignette=float(change["vignette"]))
    return blend_lighting(base, target, s)


def camera_at(base: Camera, visuals: dict[str, Any], t: float) -> Camera:
    """The camera at ``t``: ``visuals["camera_nudge"]`` knocks it between ``t0`` and ``t1``
    by ``shift_mm`` and ``turn_deg`` (:meth:`Camera.nudged`), and it stays there."""
    nudge = visuals.get("camera_nudge")
    if not nudge:
        return base
    s = smoothstep(t, float(nudge["t0"]), float(nudge["t1"]))
    if s <= 0:
        return base
    shift = tuple(float(v) * s for v in nudge["shift_mm"])
    turn = tuple(float(v) * s for v in nudge["turn_deg"])
    return base.nudged(shift, turn)  # type: ignore[arg-type]


def frame_scenes(fragment: Fragment, setup: ClipSetup, choreo: Choreography | None = None
                 ) -> Iterator[Scene]:
    """Yield the scene of every frame of the clip, in order."""
    choreo = choreo or choreography(fragment, setup.base.mat.size_mm if setup.base.mat else None)
    base = setup.base
    for i in range(setup.frames):
        t = float(Fraction(i) / setup.fps)
        state = choreo.at(t)
        yield replace(state.scene(base, frame_index=i), time=t,
                      camera=camera_at(base.camera, fragment.visuals, t),
                      lighting=lighting_at(base.lighting, fragment.visuals, t))


def code_version() -> str:
    """The package version and, in a git checkout, the commit (``0.1.0+g1234abc``)."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                             capture_output=True, text=True, timeout=5, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        rev = ""
    return f"{__version__}+g{rev}" if rev else __version__


def render_clip(fragment: Fragment, out: str | Path, size: tuple[int, int] = DEFAULT_SIZE,
                fps: float | str | Fraction = 30, deck: str | None = None,
                progress: Progress | None = None) -> ClipResult:
    """Render the fragment into ``out`` (created): video, events, calibration, frames, meta."""
    import time

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("calibration-*.yaml"):  # from an earlier clip with a moved camera
        stale.unlink()
    setup = clip_setup(fragment, size, fps, deck)
    renderer = Renderer(get_deck(setup.deck))
    layout = load_layout()
    source = f"simulator: scenario {fragment.name}, seed {fragment.seed} (the true camera)"
    cameras: list[tuple[int, float, Camera]] = []
    began = time.perf_counter()
    with VideoWriter(out / files.VIDEO, size, setup.fps) as video, \
            files.FramesWriter(out / files.FRAMES) as frames:
        for scene in frame_scenes(fragment, setup):
            image, truth = renderer.render(scene)
            video.write(image)
            frames.write(truth)
            if not cameras or cameras[-1][2] != scene.camera:
                cameras.append((scene.frame_index, scene.time, scene.camera))
            if progress is not None:
                progress(scene.frame_index + 1, setup.frames)
    render_s = time.perf_counter() - began
    records = files.with_frames(fragment.records, setup.fps)
    files.write_events(out / files.EVENTS, records)
    changes = []
    for n, (frame, t, cam) in enumerate(cameras):
        name = files.CALIBRATION if n == 0 else f"calibration-{n}.yaml"
        files.write_calibration(out / name, cam, layout, source)
        changes.append({"frame": frame, "t": t, "calibration": name})
    meta = {
        "scenario": fragment.name,
        "summary": fragment.summary,
        "seed": fragment.seed,
        "deck": setup.deck,
        "size": list(size),
        "fps": str(setup.fps),
        "fps_float": float(setup.fps),
        "frames": setup.frames,
        "duration_s": fragment.duration,
        "code_version": code_version(),
        "prelude_events": fragment.prelude_events,
        "faults": [{"t": v.t, "frame": files.frame_of(v.t, setup.fps), "player": str(v.player),
                    "code": v.code, "rule": v.rule} for v in fragment.clip_faults],
        "visuals": fragment.visuals,
        "camera_changes": changes,
        "hidden_cards": [d.to_dict() for d in fragment.deals],
        "files": {"video": files.VIDEO, "events": files.EVENTS, "calibration": files.CALIBRATION,
                  "frames": files.FRAMES},
    }
    files.write_meta(out / files.META, meta)
    log.info("rendered %s seed %d: %d frames in %.1f s", fragment.name, fragment.seed,
             setup.frames, render_s)
    return ClipResult(out, setup.frames, setup.frames / float(setup.fps), render_s, meta)
