"""Benchmark: `spit-referee selfplay --games N` then `spit-referee check` of the result.

Target (foundation issue): 1000 games plus their check in under 60 s on the 2-core machine.
Runs the real commands as a user would, times each (wall clock), repeats, prints medians
and the machine.

    .venv/bin/python benchmarks/selfplay_check.py [--games 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpu}, {cores} cores, Python {platform.python_version()}, {platform.system()}"


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, all processes) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("spit-referee"))
    play, check, total, cpu = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        log = str(Path(tmp) / "games.jsonl")
        for i in range(args.repeats):
            load = os.getloadavg()[0]
            a, cpu_a = timed([exe, "selfplay", "--seed", "0", "--games", str(args.games), "--out", log])
            b, cpu_b = timed([exe, "check", log])
            cpu.append(cpu_a + cpu_b)
            size = Path(log).stat().st_size / 1e6
            play.append(a)
            check.append(b)
            total.append(a + b)
            print(f"run {i + 1}: selfplay {a:.1f} s, check {b:.1f} s, total {a + b:.1f} s wall, "
                  f"{cpu_a + cpu_b:.1f} s CPU ({size:.0f} MB log; load average before {load:.1f})")
    print(f"machine: {machine()}")
    print(f"median over {args.repeats}: selfplay {statistics.median(play):.1f} s, check "
          f"{statistics.median(check):.1f} s, total {statistics.median(total):.1f} s for {args.games} games "
          f"(target < 60 s); CPU {statistics.median(cpu):.1f} s (other work on the machine inflates "
          f"the wall times)")


if __name__ == "__main__":
    main()
