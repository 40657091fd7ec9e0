"""Recording a session while refereeing: the manifest, the calibration, the log and the video.

    recorder = SessionRecorder.create(out, calibration=cal, calibration_file="cal.yaml",
                                      models=[detector, index], rules=rules, source=source)
    referee = Referee(cal, reader, rules=rules, on_record=recorder.log)
    for frame in source:
        recorder.add_frame(frame)          # before the referee steps on it
        referee.step(frame)
        recorder.note_calibration(referee.calibration, frame)
    recorder.close()

The folder (docs/sessions.md):

    session.json        the manifest: id, start, software, source, calibration, models, rules;
                        rewritten (atomically) with an ``ended`` record at a clean close
    calibration.yaml    the calibration used (the file's own bytes, or its dump for ``auto``)
    calibration-F.yaml  a calibration the referee moved to at frame F (a camera nudge followed)
    events.jsonl        the event log, one record a line (referee/eventlog.py's format)
    events.chain        the log's hash chain, one line per log line (referee/session/log.py)
    video/index.jsonl   the segment index, hash-chained (referee/session/segments.py)
    video/NNNNNN.mp4    the frames the referee saw, H.264 in fragmented MP4, ``segment_s`` each

The calibration, the (empty) log and index, and last the manifest are written and fsynced
before the first frame, so a folder with a ``session.json`` has them all and every recorded
frame says what it was judged with.
"""

from __future__ import annotations

import logging
import platform
import shutil
import subprocess
import uuid
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from referee import __version__
from referee.errors import InputError
from referee.live.source import Frame
from referee.rules import RuleSet
from referee.session.files import fsync_file, sha256_file, write_json_atomic
from referee.session.log import CHAIN_FILE, LOG_FILE, ChainedLog, genesis
from referee.session.segments import CRF, INDEX_FILE, SEGMENT_S, VIDEO_DIR, SegmentRecorder, now_utc

log = logging.getLogger(__name__)

FORMAT = "spit-referee-session/1"
MANIFEST = "session.json"
CALIBRATION_FILE = "calibration.yaml"


def is_session(folder: Path) -> bool:
    return (folder / MANIFEST).is_file()


def software() -> dict[str, Any]:
    """The package version and, in a git checkout, its commit (and whether it was modified)."""
    out: dict[str, Any] = {"name": "spit-referee", "version": __version__,
                           "python": platform.python_version()}
    root = Path(__file__).resolve().parents[2]
    if (root / ".git").exists():
        try:
            commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                    text=True, timeout=5, check=True).stdout.strip()
            dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=5, check=True).stdout.strip()
            out["git"] = {"commit": commit, "modified": bool(dirty)}
        except (OSError, subprocess.SubprocessError):
            pass
    return out


def file_facts(path: Path) -> dict[str, Any]:
    """Name, path, size and sha256 of a file the session depends on (a model, a prelude)."""
    return {"file": path.name, "path": str(path), "bytes": path.stat().st_size, "sha256": sha256_file(path)}


class SessionRecorder:
    """Writes one session folder (see the module doc). ``log`` is the event log writer."""

    def __init__(self, folder: Path, manifest: dict[str, Any], log_writer: ChainedLog,
                 video: SegmentRecorder) -> None:
        self.folder = folder
        self.manifest = manifest
        self.log = log_writer
        self.video = video
        self._calibration: object | None = None
        self._closed = False

    @classmethod
    def create(cls, folder: Path, *, calibration: Any, calibration_file: str | Path | None = None,
               models: Sequence[Path] = (), rules: RuleSet | None = None, source: Any = None,
               prelude: str | Path | None = None, segment_s: float = SEGMENT_S, crf: int = CRF,
               extra: dict[str, Any] | None = None) -> SessionRecorder:
        """Start a session in ``folder`` (created; refused when it already holds one)."""
        from referee.vision.calibration import save_calibration

        folder.mkdir(parents=True, exist_ok=True)
        if is_session(folder):
            raise InputError("already holds a session (session.json): choose another --out folder, so that "
                             "no recording is overwritten", str(folder))
        session_id = uuid.uuid4().hex
        cal_path = folder / CALIBRATION_FILE
        cal_facts: dict[str, Any] = {"file": CALIBRATION_FILE}
        if calibration_file is not None and Path(calibration_file).is_file():
            shutil.copyfile(calibration_file, cal_path)
            cal_facts["from"] = str(calibration_file)
        else:
            save_calibration(calibration, cal_path)
            cal_facts["from"] = getattr(calibration, "source", None) or "computed"
        fsync_file(cal_path)
        cal_facts["sha256"] = sha256_file(cal_path)
        rules = rules or RuleSet()
        fps = float(getattr(source, "fps", 0.0) or 0.0)
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "id": session_id,
            "started": now_utc(),
            "software": software(),
            "source": {"name": getattr(source, "name", None), "live": bool(getattr(source, "live", False)),
                       "fps": round(fps, 6), "size": list(getattr(source, "size", ()) or ())},
            "calibration": cal_facts,
            "models": [file_facts(Path(m)) for m in models if Path(m).is_file()],
            "rules": {f.name: getattr(rules, f.name) for f in fields(rules)},
            "prelude": file_facts(Path(prelude)) if prelude is not None else None,
            "log": {"file": LOG_FILE, "chain": CHAIN_FILE, "genesis": genesis(session_id)},
            "video": {"dir": VIDEO_DIR, "index": f"{VIDEO_DIR}/{INDEX_FILE}", "segment_s": segment_s,
                      "codec": "h264", "container": "fragmented mp4", "crf": crf,
                      "index_genesis": genesis(session_id, "index")},
            **(extra or {}),
            "ended": None,
        }
        # the log and the index exist before the manifest: a folder with a session.json always has them
        log_writer = ChainedLog(folder, session_id)
        video = SegmentRecorder(folder / VIDEO_DIR, session_id, fps, segment_s=segment_s, crf=crf,
                                anchor=log_writer.anchor)
        try:
            write_json_atomic(folder / MANIFEST, manifest)
        except OSError:
            video.close()
            log_writer.close()
            raise
        recorder = cls(folder, manifest, log_writer, video)
        recorder._calibration = calibration
        log.info("recording session %s in %s", session_id, folder)
        return recorder

    @property
    def id(self) -> str:
        return str(self.manifest["id"])

    def add_frame(self, frame: Frame) -> None:
        """Record one frame the referee is about to judge."""
        self.video.add(frame)

    def note_calibration(self, calibration: Any, frame: Frame) -> None:
        """Keep a calibration the referee moved to (a nudged camera followed) and index it."""
        if calibration is self._calibration or self._closed:
            return
        self._calibration = calibration
        from referee.vision.calibration import save_calibration

        path = self.folder / f"calibration-{frame.index:06d}.yaml"
        save_calibration(calibration, path)
        self.video.calibration(frame.index, frame.t, path.name, sha256_file(path))

    def close(self, error: str | None = None, stopped: str | None = None) -> dict[str, Any]:
        """Close the video and the log, and mark the manifest ended (what verify checks the
        files against). ``error``: an exception that ended the refereeing; ``stopped``: the
        signal that stopped it (SIGINT, SIGTERM). Returns the ``ended`` record."""
        if self._closed:
            return dict(self.manifest.get("ended") or {})
        self._closed = True
        self.video.close()
        lines, head = self.log.anchor()
        self.log.close()
        ended = {"at": now_utc(), "frames": self.video.frames, "segments": self.video.segments,
                 "log_lines": lines, "log_head": head, "index_lines": self.video.index.count,
                 "index_head": self.video.index.prev, "video_error": self.video.error, "error": error,
                 "stopped": stopped}
        self.manifest["ended"] = ended
        write_json_atomic(self.folder / MANIFEST, self.manifest)
        return ended
