"""Small file helpers for sessions: whole writes, fsync, atomic replacement, hashes."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, BinaryIO

CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """The sha256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_text(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_all(stream: BinaryIO, data: bytes) -> None:
    """Write every byte to an unbuffered binary file (a raw write may take only part)."""
    view = memoryview(data)
    while view:
        n = stream.write(view)
        if n is None:  # pragma: no cover - only non-blocking files return None
            continue
        view = view[n:]


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (new, renamed files) durable; a no-op where not supported."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    with path.open("rb") as f:
        os.fsync(f.fileno())


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves either the old file or the new one."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def write_json_atomic(path: Path, obj: Any) -> None:
    write_atomic(path, (json.dumps(obj, indent=1) + "\n").encode("utf-8"))
