"""The session's event log: plain JSON Lines records, with a hash chain in a sidecar file.

``events.jsonl`` holds the records exactly as every other log of the project
(:mod:`referee.eventlog`), so ``check``, ``score`` and any log reader read it unchanged.
``events.chain`` holds one line per record line: the sha256 hex of the previous chain line and
this record line's bytes (newline included)::

    h0 = sha256(b"spit-referee session log " + session id)      (the genesis, in session.json)
    hN = sha256(hN-1 as 64 ASCII hex digits + bytes of events.jsonl line N)
    events.chain line N = hN + "\\n"

A record is written (one ``write`` of the whole line) before its hash, and each is handed to
the operating system at once, so killing the process (SIGKILL included) loses nothing
already written. A :class:`Syncer` thread ``fsync``s both files within ``SYNC_EVERY`` seconds
of a write (a power cut loses at most that), never on the refereeing thread; ``sync()`` and
``close()`` fsync at once (segment boundaries, the end).

:func:`check_log` recomputes the chain: an edited, deleted, inserted or reordered line breaks
it at that line; a crash leaves at most a torn last line, or one last line whose hash was not
yet written, and everything before it is verified.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from referee.errors import InputError
from referee.eventlog import read_records, record_to_json
from referee.events import Record
from referee.session.files import write_all

log = logging.getLogger(__name__)

LOG_FILE = "events.jsonl"
CHAIN_FILE = "events.chain"
SYNC_EVERY = 1.0  # seconds: the most a power cut can lose of the log


def genesis(session_id: str, what: str = "log") -> str:
    """The chain's starting hash, bound to the session (a log cannot be moved to another)."""
    return hashlib.sha256(f"spit-referee session {what} {session_id}".encode()).hexdigest()


def link(prev: str, line: bytes) -> str:
    """The chain hash of ``line`` (its bytes, newline included) after ``prev``."""
    return hashlib.sha256(prev.encode("ascii") + line).hexdigest()


class Syncer:
    """A thread that fsyncs files within ``every`` seconds of their being marked dirty."""

    def __init__(self, files: Sequence[BinaryIO], every: float = SYNC_EVERY,
                 name: str = "session-sync") -> None:
        self._files = list(files)
        self._every = every
        self._dirty = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def dirty(self) -> None:
        self._dirty.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if self._dirty.wait(0.25) and not self._stop.wait(self._every):
                self.sync()

    def sync(self) -> None:
        with self._lock:
            self._dirty.clear()
            for f in self._files:
                if not f.closed:
                    try:
                        os.fsync(f.fileno())
                    except OSError as exc:  # pragma: no cover - a failing disk: logged, never fatal
                        log.error("fsync %s: %s", f.name, exc)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sync()


class ChainedLog:
    """Appends records to ``events.jsonl`` and their chain hashes to ``events.chain``.

    Callable with a record (the :class:`~referee.live.pipeline.Referee`'s ``on_record``)."""

    def __init__(self, folder: Path, session_id: str, *, sync_every: float = SYNC_EVERY) -> None:
        self.folder = folder
        self.path = folder / LOG_FILE
        self.head = genesis(session_id)
        self.count = 0
        try:
            self._log: BinaryIO = self.path.open("wb", buffering=0)
            self._chain: BinaryIO = (folder / CHAIN_FILE).open("wb", buffering=0)
        except OSError as exc:
            raise InputError(f"cannot write the event log: {exc.strerror}", str(self.path)) from None
        self._lock = threading.Lock()
        self._syncer = Syncer([self._log, self._chain], sync_every)

    def __call__(self, record: Record) -> None:
        self.write_line(record_to_json(record))

    def write_line(self, text: str) -> None:
        """Append one record line (JSON text without its newline) and its hash."""
        line = (text + "\n").encode("utf-8")
        with self._lock:
            write_all(self._log, line)
            self.head = link(self.head, line)
            write_all(self._chain, (self.head + "\n").encode("ascii"))
            self.count += 1
        self._syncer.dirty()

    def anchor(self) -> tuple[int, str]:
        """(lines written, chain head) now: recorded in the segment index and at the end."""
        with self._lock:
            return self.count, self.head

    def sync(self) -> None:
        self._syncer.sync()

    def close(self) -> None:
        if self._log.closed:
            return
        self._syncer.stop()
        self._log.close()
        self._chain.close()


# ---------------------------------------------------------------------- checking


@dataclass(frozen=True)
class Finding:
    """One thing ``verify`` has to say. ``level``: ``bad`` (damage or tampering: exit 1),
    ``interrupted`` (what a crash or kill leaves: the rest is intact) or ``note``."""

    level: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class LogCheck:
    """What :func:`check_log` found. ``records`` are the records of the verified lines (line
    numbers in ``line_numbers``); ``unverified`` those after the first break, kept for reading."""

    lines: int = 0  # whole lines in events.jsonl
    verified: int = 0  # lines 1..verified match the chain
    head: str = ""  # the chain hash after the verified lines
    heads: list[str] = field(default_factory=list)  # the recomputed hash after each verified line
    torn: bool = False
    findings: list[Finding] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    line_numbers: list[int] = field(default_factory=list)
    unverified: list[Record] = field(default_factory=list)

    def head_at(self, line: int) -> str | None:
        """The verified chain hash after ``line`` (0: the genesis), None beyond the verified lines."""
        if line == 0:
            return self.heads[0] if self.heads else None
        return self.heads[line] if line < len(self.heads) else None


def _split(data: bytes) -> tuple[list[bytes], bytes]:
    """Whole lines (newline kept) and the torn remainder after the last newline."""
    parts = data.split(b"\n")
    return [p + b"\n" for p in parts[:-1]], parts[-1]


def check_log(folder: Path, session_id: str, anchors: Sequence[tuple[int, str, str]] = ()) -> LogCheck:
    """Verify ``events.jsonl`` against ``events.chain``; ``anchors`` are (lines, head, where)
    recorded elsewhere (the segment index, the end of the session): a log cut short or
    rewritten behind them is found too."""
    out = LogCheck()
    log_path, chain_path = folder / LOG_FILE, folder / CHAIN_FILE
    if not log_path.is_file():
        out.findings.append(Finding("bad", LOG_FILE, "missing: the session has no event log"))
        return out
    lines, torn = _split(log_path.read_bytes())
    chain_lines, _ = _split(chain_path.read_bytes()) if chain_path.is_file() else ([], b"")
    if not chain_path.is_file():
        out.findings.append(Finding("bad", CHAIN_FILE, "missing: the log's hashes cannot be checked"))
    chain = [c.strip().decode("ascii", "replace") for c in chain_lines]
    out.lines = len(lines)
    head = genesis(session_id)
    out.heads = [head]
    first_bad: int | None = None
    for number, line in enumerate(lines, start=1):
        if number > len(chain):
            break
        head = link(head, line)
        if head != chain[number - 1]:
            first_bad = number
            break
        out.heads.append(head)
    out.verified = len(out.heads) - 1
    out.head = out.heads[-1]
    if first_bad is not None:
        # which later lines still agree with their own stored hash (edited lines stand out)
        later_bad = [n for n in range(first_bad + 1, min(len(lines), len(chain)) + 1)
                     if link(chain[n - 2], lines[n - 1]) != chain[n - 1]]
        also = f" ({len(later_bad)} later lines fail too, first {later_bad[0]})" if later_bad else ""
        out.findings.append(Finding(
            "bad", f"{LOG_FILE} line {first_bad}",
            "does not match its hash: the line was edited, or a line was deleted, inserted or moved "
            f"here{also}; lines 1-{first_bad - 1} are intact"))
    elif len(lines) > len(chain):
        extra = len(lines) - len(chain)
        if extra == 1 and chain_path.is_file():
            out.findings.append(Finding(
                "interrupted", f"{LOG_FILE} line {len(lines)}",
                "written but not its hash: the recording stopped between the two writes; kept, unverified"))
        else:
            out.findings.append(Finding(
                "bad", f"{LOG_FILE} line {len(chain) + 1}",
                f"{extra} lines from here have no hash: added after the recording"))
    elif len(chain) > len(lines):
        out.findings.append(Finding(
            "bad", f"{LOG_FILE} line {len(lines) + 1}",
            f"missing: the chain holds {len(chain)} hashes but the log ends after line {len(lines)} "
            "(lines were removed from its end)"))
    if torn:
        out.torn = True
        out.findings.append(Finding(
            "interrupted", f"{LOG_FILE} line {len(lines) + 1}",
            f"torn ({len(torn)} bytes, no end of line): the recording stopped while writing it; "
            f"left out, lines 1-{len(lines)} are whole"))
    for lines_at, anchored, where in anchors:
        if lines_at > out.lines:
            out.findings.append(Finding(
                "bad", LOG_FILE, f"cut short: {where} recorded {lines_at} lines, the log holds {out.lines}"))
        else:
            at = out.head_at(lines_at)
            if at is not None and at != anchored:
                out.findings.append(Finding(
                    "bad", LOG_FILE, f"rewritten: {where} recorded hash {anchored[:12]}... after line "
                    f"{lines_at}, the log gives {at[:12]}..."))
    _parse(lines, out)
    return out


def _parse(lines: list[bytes], out: LogCheck) -> None:
    text = b"".join(lines[: out.verified]).decode("utf-8", "replace")
    contents = read_records(io.StringIO(text), LOG_FILE)
    out.records, out.line_numbers = contents.records, contents.line_numbers
    for error in contents.errors:
        out.findings.append(Finding("bad", f"{LOG_FILE} line {error.line}",
                                    f"hash intact but not a valid record: {error}"))
    rest = b"".join(lines[out.verified:]).decode("utf-8", "replace")
    out.unverified = read_records(io.StringIO(rest), LOG_FILE).records
