"""Many self-played games at once, spread over the machine's cores, as JSON Lines text."""

from __future__ import annotations

import io
import multiprocessing
import os
from collections.abc import Iterator

from referee.eventlog import write_records
from referee.events import GameStart, TableEvent
from referee.selfplay.bots import SelfPlay, SelfPlayConfig


def game_jsonl(args: tuple[int, int, SelfPlayConfig, bool]) -> str:
    """The JSON Lines log of game ``index`` (seed ``seed + index``)."""
    seed, index, config, events_only = args
    buffer = io.StringIO()
    records = SelfPlay(seed + index, config, game_index=index).records()
    if events_only:
        records = (r for r in records if isinstance(r, TableEvent | GameStart))
    write_records(buffer, records)
    return buffer.getvalue()


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def games_jsonl(seed: int, games: int, config: SelfPlayConfig, *, events_only: bool = False,
                jobs: int | None = None) -> Iterator[str]:
    """Each game's log text, in game order; games are played in ``jobs`` processes."""
    jobs = min(jobs or default_jobs(), games)
    tasks = ((seed, i, config, events_only) for i in range(games))
    if jobs <= 1:
        yield from map(game_jsonl, tasks)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap(game_jsonl, tasks, chunksize=4)
