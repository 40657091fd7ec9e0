"""The session's video: the frames the referee saw, as H.264 in short fragmented-MP4 segments.

Why this container: an ordinary MP4 is unreadable until it is closed (its index, the ``moov``
box, is written last), so a crash would lose a whole file. A *fragmented* MP4 writes its index
first (empty) and then one self-contained fragment per keyframe, here once a second, flushed to
the file as it is finished; OpenCV and every FFmpeg-based player read it as an ordinary MP4,
and a file cut short by a crash still decodes up to its last whole fragment. Segments of
``segment_s`` seconds (default 10) bound the damage further: a closed segment is complete, its
size and sha256 are in the index, and damage to one file costs only that file. A crash thus
loses at most the second or so of the segment being written (the fragment in progress and
the frames inside the encoder), never more than that segment.

The index ``video/index.jsonl`` gets a line when each segment is opened (before its file is
created: segment number, file, first frame, first time, wall clock) and one when it is closed
(after the file is closed and fsynced: frames, last frame and time, every frame's number and
time, bytes, sha256, and the event log's line count and chain head at that moment), and a line
for each calibration the referee moved to (a camera nudge followed). Each index line ends
with ``prev``, the hash of the line before (the first: the index genesis), and ``hash``, the
sha256 of its own bytes up to there, so the index is a hash chain too: an edited line fails
its own hash, a deleted or moved one breaks the next line's ``prev``. Encoding, closing and
indexing run on a thread of their own; the refereeing thread only queues frames (it waits
only when the encoder is 8 frames behind).

    recorder = SegmentRecorder(folder / "video", session_id, fps=30, anchor=log.anchor)
    recorder.add(frame)              # a referee.live.source.Frame, in order
    recorder.close()
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np
import orjson

from referee.live.source import Frame
from referee.session.files import fsync_dir, fsync_file, sha256_file, write_all
from referee.session.log import Finding, genesis

log = logging.getLogger(__name__)

VIDEO_DIR = "video"
INDEX_FILE = "index.jsonl"
SEGMENT_S = 10.0
CRF = 20
PRESET = "veryfast"
ENCODER_THREADS = 2
QUEUE_FRAMES = 8
MOVFLAGS = "frag_keyframe+empty_moov+default_base_moof"


def segment_name(number: int) -> str:
    return f"{number:06d}.mp4"


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class IndexWriter:
    """Appends hash-chained JSON lines to the segment index: each line ends with ``prev`` (the
    hash of the line before) and ``hash`` (the sha256 of the line's bytes up to ``hash``, ``}``
    put back), so an edited line fails at itself and a deleted or moved one at the next."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.prev = genesis(session_id, "index")
        self.count = 0
        self._file: BinaryIO = path.open("wb", buffering=0)

    def write(self, entry: dict[str, Any], sync: bool = False) -> None:
        body = orjson.dumps({**entry, "prev": self.prev})
        digest = _sha(body)
        write_all(self._file, body[:-1] + b',"hash":"' + digest.encode("ascii") + b'"}\n')
        self.prev = digest
        self.count += 1
        if sync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            os.fsync(self._file.fileno())
            self._file.close()


def _own_hash_ok(raw: bytes, entry: dict[str, Any]) -> bool:
    cut = raw.rfind(b',"hash":"')
    return cut > 0 and isinstance(entry.get("hash"), str) and _sha(raw[:cut] + b"}") == entry["hash"]


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


@dataclass
class _Open:
    number: int
    first_frame: int
    first_t: float
    anchor: tuple[int, str] | None  # the log's (lines, head) as the previous segment ended


@dataclass
class _Calibration:
    frame: int
    t: float
    file: str
    sha256: str


@dataclass
class _Segment:
    number: int
    file: Path
    container: Any
    stream: Any
    size: tuple[int, int]
    frames: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)


class SegmentRecorder:
    """Writes frames into segments and the index, on an encoder thread of its own.

    A failure to write video (a full disk) is logged and ends the video, never the refereeing:
    ``error`` says what happened and the session's end record keeps it."""

    def __init__(self, folder: Path, session_id: str, fps: float, *, segment_s: float = SEGMENT_S,
                 crf: int = CRF, preset: str = PRESET,
                 anchor: Callable[[], tuple[int, str]] | None = None) -> None:
        if segment_s <= 0:
            raise ValueError(f"segment_s must be > 0, not {segment_s}")
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.fps = Fraction(str(round(fps, 3))).limit_denominator(1001) if fps > 0 else Fraction(30)
        self.segment_s = segment_s
        self.crf, self.preset = crf, preset
        self._anchor = anchor
        self.index = IndexWriter(folder / INDEX_FILE, session_id)
        self.frames = 0
        self.segments = 0
        self.error: str | None = None
        self._first_t: float | None = None
        self._size: tuple[int, int] | None = None
        self._queue: queue.Queue[object] = queue.Queue(QUEUE_FRAMES)
        self._thread = threading.Thread(target=self._run, name="session-video", daemon=True)
        self._thread.start()
        self._closed = False

    # ------------------------------------------------------------------ refereeing thread
    def add(self, frame: Frame) -> None:
        """Queue one frame; a new segment starts when this one's time is ``segment_s`` past the
        current segment's first frame (or the frame size changed)."""
        if self._closed or self.error is not None:
            return
        image = frame.image
        h, w = image.shape[:2]
        size = (w - w % 2, h - h % 2)
        if self._first_t is None or frame.t - self._first_t >= self.segment_s or size != self._size:
            self._first_t, self._size = frame.t, size
            anchor = self._anchor() if self._anchor is not None else None
            self._queue.put(_Open(self.segments, frame.index, frame.t, anchor))
            self.segments += 1
        self._queue.put((frame.index, frame.t, np.ascontiguousarray(image[: size[1], : size[0]]).copy()))
        self.frames += 1

    def calibration(self, frame: int, t: float, file: str, sha256: str) -> None:
        """Note in the index that the referee moved to another calibration at this frame."""
        if not self._closed:
            self._queue.put(_Calibration(frame, t, file, sha256))

    def close(self) -> None:
        """Close the last segment and the index (waits for the encoder)."""
        if self._closed:
            return
        self._closed = True
        anchor = self._anchor() if self._anchor is not None else None
        self._queue.put(("end", anchor))
        self._thread.join()

    # ------------------------------------------------------------------ encoder thread
    def _run(self) -> None:
        current: _Segment | None = None
        while True:
            item = self._queue.get()
            if self.error is not None:
                if isinstance(item, tuple) and item[0] == "end":
                    break
                continue  # drain, so that the refereeing thread never blocks on a dead encoder
            try:
                if isinstance(item, _Open):
                    if current is not None:
                        self._close_segment(current, item.anchor)
                    current = self._open_segment(item)
                elif isinstance(item, _Calibration):
                    self.index.write({"event": "calibration", "frame": item.frame, "t": item.t,
                                      "file": item.file, "sha256": item.sha256}, sync=True)
                elif isinstance(item, tuple) and item[0] == "end":
                    if current is not None:
                        self._close_segment(current, item[1])
                        current = None
                    break
                elif isinstance(item, tuple) and current is not None:
                    self._encode(current, *item)
            except Exception as exc:  # noqa: BLE001 - any encoder or disk failure ends the video only
                self.error = f"{type(exc).__name__}: {exc}"
                log.error("session video stopped: %s", self.error)
                if current is not None:
                    try:
                        current.container.close()
                    except Exception:  # noqa: BLE001
                        pass
                    current = None
        try:
            self.index.close()
        except OSError as exc:  # pragma: no cover
            self.error = self.error or f"index: {exc}"

    def _open_segment(self, item: _Open) -> _Segment:
        import av

        assert self._size is not None
        path = self.folder / segment_name(item.number)
        self.index.write({"segment": item.number, "event": "open", "file": path.name,
                          "first_frame": item.first_frame, "first_t": item.first_t, "wall": now_utc()})
        container = av.open(str(path), mode="w", format="mp4",
                            options={"movflags": MOVFLAGS, "flush_packets": "1"})
        stream = container.add_stream("libx264", rate=self.fps)
        stream.width, stream.height = self._size
        stream.pix_fmt = "yuv420p"
        stream.codec_context.time_base = 1 / self.fps
        stream.options = {"crf": str(self.crf), "preset": self.preset, "threads": str(ENCODER_THREADS),
                          "g": str(max(1, round(self.fps)))}  # a keyframe, hence a fragment, each second
        fsync_dir(self.folder)
        return _Segment(item.number, path, container, stream, self._size)

    def _encode(self, seg: _Segment, index: int, t: float, image: np.ndarray) -> None:
        import av
        import cv2

        if (image.shape[1], image.shape[0]) != seg.size:
            return  # pragma: no cover - add() opens a new segment when the size changes
        # OpenCV's conversion to planar YUV (BT.601, limited range, as libswscale's): faster,
        # and fixed-point, meant to give the same bytes on every CPU (libswscale's SIMD paths
        # may round differently)
        vf = av.VideoFrame.from_ndarray(cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420), format="yuv420p")
        vf.pts = len(seg.frames)
        vf.time_base = 1 / self.fps
        for packet in seg.stream.encode(vf):
            seg.container.mux(packet)
        seg.frames.append(index)
        seg.times.append(t)

    def _close_segment(self, seg: _Segment, anchor: tuple[int, str] | None) -> None:
        for packet in seg.stream.encode():
            seg.container.mux(packet)
        seg.container.close()
        fsync_file(seg.file)
        entry: dict[str, Any] = {
            "segment": seg.number, "event": "close", "file": seg.file.name, "frames": len(seg.frames),
            "last_frame": seg.frames[-1] if seg.frames else None,
            "last_t": seg.times[-1] if seg.times else None,
            "bytes": seg.file.stat().st_size, "sha256": sha256_file(seg.file),
            "frame_numbers": seg.frames, "times": seg.times, "wall": now_utc()}
        if anchor is not None:
            entry["log_lines"], entry["log_head"] = anchor
        self.index.write(entry, sync=True)


# ---------------------------------------------------------------------- reading


@dataclass
class SegmentInfo:
    """One segment as the index knows it. ``closed`` is False for the segment that was being
    written when the recording stopped (its frame numbers and times are then estimated)."""

    number: int
    file: str
    first_frame: int
    first_t: float
    closed: bool = False
    frames: int | None = None
    last_t: float | None = None
    bytes: int | None = None
    sha256: str | None = None
    frame_numbers: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    log_lines: int | None = None
    log_head: str | None = None


@dataclass
class Index:
    segments: list[SegmentInfo]
    calibrations: list[dict[str, Any]]
    lines: int
    head: str  # sha256 of the last whole line (the chain's head)
    findings: list[Finding]
    heads: list[str] = field(default_factory=list)  # the hash after each good line (0: the genesis)


def read_index(folder: Path, session_id: str) -> Index:
    """Read ``video/index.jsonl``, checking every line's hash and the chain; findings say what
    is wrong. An edited line is left out; every other line is used."""
    path = folder / INDEX_FILE
    where = f"{VIDEO_DIR}/{INDEX_FILE}"
    findings: list[Finding] = []
    segments: dict[int, SegmentInfo] = {}
    calibrations: list[dict[str, Any]] = []
    prev = genesis(session_id, "index")
    heads = [prev]
    if not path.is_file():
        return Index([], [], 0, prev, [Finding("bad", where, "missing: the video segments cannot be listed")],
                     heads)
    parts = path.read_bytes().split(b"\n")
    whole, torn = parts[:-1], parts[-1]
    for number, raw in enumerate(whole, start=1):
        at = f"{where} line {number}"
        try:
            entry = orjson.loads(raw)
            if not isinstance(entry, dict):
                raise ValueError("not a JSON object")
        except (orjson.JSONDecodeError, ValueError) as exc:
            findings.append(Finding("bad", at, f"not a JSON object ({exc}): left out"))
            heads.append("")
            continue
        if not _own_hash_ok(raw, entry):
            findings.append(Finding("bad", at, "does not match its hash: the line was edited; left out"))
        elif entry.get("prev") != prev:
            findings.append(Finding("bad", at, "does not follow the line before (its prev hash differs): "
                                    "a line was deleted, inserted or moved here"))
        if _own_hash_ok(raw, entry):
            try:
                _apply_entry(entry, segments, calibrations)
            except (KeyError, TypeError, ValueError) as exc:
                findings.append(Finding("bad", at, f"not an index entry: {exc}"))
        prev = str(entry.get("hash", ""))
        heads.append(prev)
    if torn:
        findings.append(Finding("interrupted", f"{where} line {len(whole) + 1}",
                                "torn: the recording stopped while writing it; left out"))
    return Index([segments[k] for k in sorted(segments)], calibrations, len(whole), prev, findings, heads)


def _apply_entry(entry: dict[str, Any], segments: dict[int, SegmentInfo],
                 calibrations: list[dict[str, Any]]) -> None:
    event = entry["event"]
    if event == "calibration":
        calibrations.append(entry)
        return
    number = int(entry["segment"])
    if event == "open":
        segments[number] = SegmentInfo(number, str(entry["file"]), int(entry["first_frame"]),
                                       float(entry["first_t"]))
    elif event == "close":
        seg = segments.get(number)
        if seg is None:
            raise ValueError(f"segment {number} closed but never opened")
        seg.closed = True
        seg.frames = int(entry["frames"])
        seg.last_t = entry.get("last_t")
        seg.bytes, seg.sha256 = int(entry["bytes"]), str(entry["sha256"])
        seg.frame_numbers = [int(n) for n in entry["frame_numbers"]]
        seg.times = [float(t) for t in entry["times"]]
        seg.log_lines, seg.log_head = entry.get("log_lines"), entry.get("log_head")
    else:
        raise ValueError(f"unknown event {event!r}")


class SessionVideo:
    """The session's frames, segment after segment, as :class:`~referee.live.source.Frame`
    with the numbers and times the referee gave them: a frame source for ``run``.

    Missing or unreadable segments are skipped (``skipped`` names them); a segment cut short
    gives the frames it still holds. Frames are decoded on the calling thread."""

    def __init__(self, folder: Path, index: Index, fps: float, name: str = "") -> None:
        self.folder = folder
        self.segments = index.segments
        self.fps = fps or 30.0
        self.name = name or str(folder.parent)
        self.live = False
        self.dropped = 0
        known = [s.frames for s in self.segments if s.closed and s.frames is not None]
        self.frame_count: int | None = sum(known) if len(known) == len(self.segments) else None
        self.skipped: list[str] = []
        self.size: tuple[int, int] = (0, 0)
        for seg in self.segments:
            size = _frame_size(folder / seg.file)
            if size is not None:
                self.size = size
                break

    def __iter__(self) -> Iterator[Frame]:
        import cv2

        last_t = -1.0
        for seg in self.segments:
            path = self.folder / seg.file
            if not path.is_file():
                self.skipped.append(f"{seg.file}: missing")
                continue
            cap = cv2.VideoCapture(str(path))
            if not cap.isOpened():
                self.skipped.append(f"{seg.file}: not decodable")
                continue
            k = 0
            try:
                while True:
                    ok, image = cap.read()
                    if not ok:
                        break
                    if seg.closed and k < len(seg.frame_numbers):
                        index, t = seg.frame_numbers[k], seg.times[k]
                    else:
                        index, t = seg.first_frame + k, seg.first_t + k / self.fps
                    if t <= last_t:
                        t = last_t + 1.0 / self.fps
                    last_t = t
                    k += 1
                    yield Frame(index, t, image)
            finally:
                cap.release()
            if seg.closed and seg.frames is not None and k < seg.frames:
                self.skipped.append(f"{seg.file}: {seg.frames - k} of {seg.frames} frames not decodable")

    def close(self) -> None:
        pass

    def __enter__(self) -> SessionVideo:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _frame_size(path: Path) -> tuple[int, int] | None:
    import cv2

    if not path.is_file():
        return None
    cap = cv2.VideoCapture(str(path))
    try:
        ok, image = cap.read()
        return (image.shape[1], image.shape[0]) if ok else None
    finally:
        cap.release()


def decode_count(path: Path) -> int:
    """How many frames OpenCV decodes from a segment (0 when it cannot open it)."""
    import cv2

    cap = cv2.VideoCapture(str(path))
    n = 0
    try:
        while cap.isOpened() and cap.grab():
            n += 1
    finally:
        cap.release()
    return n
