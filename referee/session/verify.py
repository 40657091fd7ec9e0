"""Checking a session folder and opening what is intact (``spit-referee verify SESSION``).

    report = verify_session(Path("game-3"))        # never raises on damage, only on "not a session"
    report.ok                                       # no damage or tampering found
    for finding in report.findings: print(finding)  # bad first, then interrupted, then notes
    session = open_session(Path("game-3"))
    session.records                                 # the verified records, in order
    for frame in session.video(): ...               # the recorded frames (a frame source for run)

What is checked: the manifest; the calibration file(s) against their sha256; the segment
index's hash chain; each closed segment's size and sha256 (and, with ``decode``, that OpenCV
decodes as many frames as the index says); the event log's hash chain, and that the log
reaches, and agrees with, the line counts and chain heads the index and the end record
anchored. A crash or kill leaves only ``interrupted`` findings: a torn last line, a last log
line without its hash, the segment being written, no end record.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import InputError
from referee.events import Call, GameStart, Record, TableEvent, Verdict
from referee.session.files import sha256_file
from referee.session.log import Finding, LogCheck, check_log
from referee.session.recorder import CALIBRATION_FILE, FORMAT, MANIFEST
from referee.session.segments import VIDEO_DIR, Index, SegmentInfo, SessionVideo, decode_count, read_index

LEVELS = ("bad", "interrupted", "note")


@dataclass
class SegmentCheck:
    info: SegmentInfo
    state: str  # "ok", "missing", "truncated", "altered", "partial" (being written at the stop)
    decoded: int | None = None  # frames OpenCV decoded (with decode, or for a partial segment)

    @property
    def usable(self) -> bool:
        damaged = ("partial", "truncated", "altered")
        return self.state == "ok" or (self.state in damaged and bool(self.decoded))


@dataclass
class SessionReport:
    folder: Path
    manifest: dict[str, Any]
    findings: list[Finding]
    log: LogCheck
    index: Index
    segments: list[SegmentCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.level == "bad" for f in self.findings)

    @property
    def ended(self) -> dict[str, Any] | None:
        ended = self.manifest.get("ended")
        return ended if isinstance(ended, dict) else None

    @property
    def first_bad(self) -> Finding | None:
        return next((f for f in self.findings if f.level == "bad"), None)

    def summary(self) -> dict[str, Any]:
        """The facts ``verify`` prints (and ``--json`` gives)."""
        records = self.log.records
        kinds = Counter(r.kind for r in records)
        faults = [r for r in records if isinstance(r, Verdict) and r.outcome.value == "fault"]
        usable = [s for s in self.segments if s.usable]
        frames = sum((s.info.frames or 0) if s.state == "ok" else (s.decoded or 0) for s in usable)
        times = [t for s in usable for t in (s.info.first_t, s.info.last_t) if t is not None]
        m = self.manifest
        models = [{"file": x.get("file"), "sha256": x.get("sha256")} for x in m.get("models") or []
                  if isinstance(x, dict)]
        return {
            "session": str(self.folder), "id": m.get("id"), "started": m.get("started"),
            "software": m.get("software"), "models": models, "ok": self.ok, "ended": self.ended,
            "log": {"lines": self.log.lines, "verified": self.log.verified, "head": self.log.head,
                    "torn_last_line": self.log.torn, "unverified_records": len(self.log.unverified),
                    "games": kinds.get(GameStart.kind, 0),
                    "events": sum(1 for r in records if isinstance(r, TableEvent)),
                    "verdicts": kinds.get(Verdict.kind, 0), "faults": len(faults),
                    "calls": sum(1 for r in records if isinstance(r, Call))},
            "video": {"segments": len(self.segments), "usable": len(usable), "frames": frames,
                      "from_t": min(times) if times else None, "to_t": max(times) if times else None},
            "findings": [{"level": f.level, "where": f.where, "message": f.message} for f in self.findings],
        }


def read_manifest(folder: Path) -> dict[str, Any]:
    """The session's manifest; InputError when the folder is not a session or it is unreadable."""
    if not folder.is_dir():
        raise InputError("no such session folder", str(folder))
    path = folder / MANIFEST
    if not path.is_file():
        raise InputError(f"not a session: no {MANIFEST} (sessions are written by spit-referee live, or "
                         "replay --session)", str(folder))
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{MANIFEST} is unreadable ({exc}): the session cannot be verified; its "
                         "events.jsonl is still a plain event log (spit-referee check)",
                         str(folder)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(
            manifest.get("id"), str):
        raise InputError(f"{MANIFEST} is not a session manifest of format {FORMAT}", str(folder))
    return manifest


def verify_session(folder: str | Path, *, decode: bool = False) -> SessionReport:
    """Check everything in a session folder (see the module doc)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    session_id = manifest["id"]
    findings: list[Finding] = []
    ended = manifest.get("ended") if isinstance(manifest.get("ended"), dict) else None

    cal = manifest.get("calibration")
    cal = cal if isinstance(cal, dict) else {}
    _check_file(folder / str(cal.get("file", CALIBRATION_FILE)), cal.get("sha256"), findings,
                "the calibration used")
    index = read_index(folder / VIDEO_DIR, session_id)
    findings.extend(index.findings)
    for moved in index.calibrations:
        _check_file(folder / str(moved.get("file")), moved.get("sha256"), findings,
                    "a calibration the referee moved to")

    anchors = [(s.log_lines, s.log_head, f"the index at the close of segment {s.number}")
               for s in index.segments if s.log_lines is not None and s.log_head is not None]
    if ended is not None:
        anchors.append((int(ended.get("log_lines", 0)), str(ended.get("log_head", "")), "the end record"))
        lines_at, head_at = int(ended.get("index_lines", 0)), ended.get("index_head")
        where = f"{VIDEO_DIR}/index.jsonl"
        if index.lines < lines_at:
            findings.append(Finding("bad", where, f"cut short: the end record counted {lines_at} lines, "
                                    f"{index.lines} are intact"))
        elif head_at and index.heads[lines_at] != head_at:
            findings.append(Finding("bad", where, "rewritten: its hash chain does not reach the head the end "
                                    "record kept"))
    log = check_log(folder, session_id, anchors)
    findings.extend(log.findings)

    segments = _check_segments(folder / VIDEO_DIR, index, decode, ended is None, findings)
    if ended is None:
        last = _last_moment(segments, log)
        findings.append(Finding("interrupted", MANIFEST, "no end record: the recording was stopped by a "
                                "crash, a kill or a power cut" + (f", after {last}" if last else "")
                                + "; everything listed intact up to then is usable"))
    elif ended.get("video_error"):
        findings.append(Finding("interrupted", VIDEO_DIR, f"the video stopped early: {ended['video_error']}"))
    findings.sort(key=lambda f: LEVELS.index(f.level) if f.level in LEVELS else len(LEVELS))
    return SessionReport(folder, manifest, findings, log, index, segments)


def _check_file(path: Path, sha: Any, findings: list[Finding], what: str) -> bool:
    if not path.is_file():
        findings.append(Finding("bad", path.name, f"missing ({what})"))
        return False
    if sha and sha256_file(path) != sha:
        findings.append(Finding("bad", path.name, f"altered: its sha256 is not the one recorded ({what})"))
        return False
    return True


def _span(seg: SegmentInfo) -> str:
    if seg.closed and seg.frame_numbers and seg.last_t is not None:
        return f"frames {seg.first_frame}-{seg.frame_numbers[-1]}, t {seg.first_t:.2f}-{seg.last_t:.2f} s"
    return f"from frame {seg.first_frame}, t {seg.first_t:.2f} s"


def _check_segments(folder: Path, index: Index, decode: bool, stopped: bool,
                    findings: list[Finding]) -> list[SegmentCheck]:
    out: list[SegmentCheck] = []
    for k, seg in enumerate(index.segments):
        path = folder / seg.file
        where, span = f"{VIDEO_DIR}/{seg.file}", _span(seg)
        if not seg.closed:
            decoded = decode_count(path) if path.is_file() else 0
            recovered = f"{decoded} frames recovered" if decoded else "no frame recoverable"
            if k == len(index.segments) - 1 and stopped:
                findings.append(Finding("interrupted", where,
                                        f"being written when the recording stopped ({span}): {recovered}"))
            else:
                findings.append(Finding("interrupted" if stopped else "bad", where,
                                        f"never closed ({span}): {recovered}"))
            out.append(SegmentCheck(seg, "partial", decoded))
            continue
        if not path.is_file():
            findings.append(Finding("bad", where, f"missing: the index closed it with {seg.frames} frames "
                                    f"({span}); the other segments are intact"))
            out.append(SegmentCheck(seg, "missing", 0))
            continue
        size = path.stat().st_size
        if seg.bytes is not None and size != seg.bytes:
            decoded = decode_count(path)
            findings.append(Finding("bad", where, f"{'truncated' if size < seg.bytes else 'grown'}: {size} "
                                    f"bytes, the index recorded {seg.bytes} ({span}); {decoded} of "
                                    f"{seg.frames} frames still decode"))
            out.append(SegmentCheck(seg, "truncated", decoded))
            continue
        if seg.sha256 and sha256_file(path) != seg.sha256:
            decoded = decode_count(path)
            findings.append(Finding("bad", where, f"altered: same size but not the sha256 recorded ({span}); "
                                    f"{decoded} frames decode"))
            out.append(SegmentCheck(seg, "altered", decoded))
            continue
        counted = decode_count(path) if decode else None
        if counted is not None and counted != seg.frames:
            findings.append(Finding("bad", where, f"OpenCV decodes {counted} frames, the index recorded "
                                    f"{seg.frames}"))
        out.append(SegmentCheck(seg, "ok", counted))
    listed = {s.file for s in index.segments}
    if folder.is_dir():
        for path in sorted(folder.glob("*.mp4")):
            if path.name not in listed:
                findings.append(Finding("note", f"{VIDEO_DIR}/{path.name}", "not in the index: ignored"))
    return out


def _last_moment(segments: list[SegmentCheck], log: LogCheck) -> str:
    ends = [s.info.last_t if s.state == "ok" else s.info.first_t for s in segments if s.usable]
    t_video = max((t for t in ends if t is not None), default=None)
    t_log = max((r.t for r in log.records), default=None)
    parts = []
    if t_video is not None:
        parts.append(f"video to t {t_video:.2f} s")
    if t_log is not None:
        parts.append(f"log to t {t_log:.2f} s ({log.verified} lines)")
    return ", ".join(parts)


@dataclass
class Session:
    """A session opened for reading: the verified records, its calibration, its frames."""

    folder: Path
    report: SessionReport

    @property
    def manifest(self) -> dict[str, Any]:
        return self.report.manifest

    @property
    def records(self) -> list[Record]:
        """The records whose hashes verified, in order (none after the first break)."""
        return self.report.log.records

    def calibration(self) -> Any:
        from referee.vision.calibration import load_calibration

        cal = self.manifest.get("calibration") or {}
        return load_calibration(self.folder / str(cal.get("file", CALIBRATION_FILE)))

    def span(self) -> tuple[float, float] | None:
        """The first and last time of the recorded video (None: no segment was indexed)."""
        segments = self.report.segments
        if not segments:
            return None
        ends = [_segment_end(check, self.fps) for check in segments]
        return segments[0].info.first_t, max(ends)

    @property
    def fps(self) -> float:
        return float((self.manifest.get("source") or {}).get("fps") or 30.0)

    def locate(self, t: float) -> SegmentCheck:
        """The segment whose frames hold time ``t`` (seconds of the session's own clock).

        InputError with a message that says why when ``t`` is outside the recorded video, or
        falls where a segment is missing or no longer decodes, and where the video is intact."""
        where = str(self.folder)
        span = self.span()
        if span is None:
            raise InputError("the session holds no video (its index lists no segment)", where)
        first, last = span
        if not first - 0.5 / self.fps <= t <= last + 0.5 / self.fps:
            raise InputError(f"t {t:.2f} s is outside the session: its video runs t {first:.2f}-{last:.2f} s",
                             where)
        checks = self.report.segments
        k = max(i for i, c in enumerate(checks) if c.info.first_t <= max(t, first))
        check = checks[k]
        readable_to = _readable_end(check, self.fps)
        if readable_to is None or t > readable_to + 0.5 / self.fps:
            intact = ", ".join(f"{a:.2f}-{b:.2f} s" for a, b in self.intact_spans()) or "nowhere"
            raise InputError(f"t {t:.2f} s falls in {VIDEO_DIR}/{check.info.file}, which is {check.state} "
                             f"(spit-referee verify says more); the video is intact at t {intact}", where)
        return check

    def intact_spans(self) -> list[tuple[float, float]]:
        """The times of the frames that can still be read: (first, last) of each stretch without
        a gap (segments that follow each other within a frame and a half are one stretch)."""
        out: list[tuple[float, float]] = []
        for check in self.report.segments:
            end = _readable_end(check, self.fps)
            if end is None:
                continue
            if out and check.info.first_t - out[-1][1] <= 1.5 / self.fps:
                out[-1] = (out[-1][0], end)
            else:
                out.append((check.info.first_t, end))
        return out

    def video(self) -> SessionVideo:
        """The recorded frames, skipping missing segments (a frame source for referee.live.run)."""
        return SessionVideo(self.folder / VIDEO_DIR, self.report.index, self.fps, name=str(self.folder))


def _segment_end(check: SegmentCheck, fps: float) -> float:
    """The last frame's time of a segment as recorded (or as far as it decodes, if unclosed)."""
    info = check.info
    if info.last_t is not None:
        return info.last_t
    return info.first_t + max((check.decoded or 1) - 1, 0) / fps


def _readable_end(check: SegmentCheck, fps: float) -> float | None:
    """The time of the last frame of a segment that can still be read (None: none can)."""
    info = check.info
    if check.state == "ok":
        return _segment_end(check, fps)
    k = check.decoded or 0
    if k == 0:
        return None
    return info.times[k - 1] if len(info.times) >= k else info.first_t + (k - 1) / fps


def open_session(folder: str | Path, *, decode: bool = False) -> Session:
    """Verify and open a session; damage is in ``session.report``, never raised."""
    folder = Path(folder)
    return Session(folder, verify_session(folder, decode=decode))
