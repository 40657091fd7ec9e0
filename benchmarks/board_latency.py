"""Latency from ``board.signal(...)`` to the pin change, on the real firmware in simavr.

    .venv/bin/python benchmarks/board_latency.py [--samples 300] [--json]

Builds the firmware and the simavr harness (hardware/Makefile), runs the firmware in the
simulator, opens it with the real driver (SerialBoard) over the pseudo-terminal, and for each
sample calls ``board.signal(fault)`` and waits for the offender's red LED pin to rise. The pin
change is stamped by the harness on the host's CLOCK_MONOTONIC (the same clock as
``time.monotonic_ns``), so the figure covers the whole path: the driver's queue and writer
thread, the pty, simavr's UART at 115200 baud, the firmware's parser and its pin write.
Target (issue 4): median and 99th percentile under 10 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.board import SerialBoard, Signal  # noqa: E402
from referee.board.protocol import Led  # noqa: E402
from referee.board.simulator import LED_PINS, SimulatedBoard, build  # noqa: E402
from referee.players import Player  # noqa: E402

TARGET_MS = 10.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = q / 100 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def measure(samples: int, build_dir: Path) -> list[float]:
    built = build(build_dir)
    latencies: list[float] = []
    rng = random.Random(4)
    with SimulatedBoard(built) as sim:
        sim.go()
        with SerialBoard(sim.port or "") as board:
            for i in range(samples):
                player = Player.A if i % 2 else Player.B
                pin = LED_PINS[Led.A_RED if player is Player.A else Led.B_RED]
                mark = sim.mark()
                start = time.monotonic_ns()
                board.signal(Signal.fault(player))
                change = sim.wait_level(pin, 1, 2.0, after=mark)
                if change is None:
                    raise RuntimeError(f"sample {i}: the pin never rose")
                latencies.append((change.host_ns - start) / 1e6)
                board.signal(Signal.legal_play(player))  # red off again for the next sample
                board.flush(2.0)
                # A random pause, so samples do not lock to the firmware's 1 ms tick.
                time.sleep(rng.uniform(0.005, 0.03))
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--build-dir", type=Path, default=None,
                        help="where to build (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="board-bench-") as tmp:
        lat = measure(args.samples, args.build_dir or Path(tmp))
    figures = {
        "samples": len(lat),
        "median_ms": round(statistics.median(lat), 3),
        "p99_ms": round(percentile(lat, 99), 3),
        "max_ms": round(max(lat), 3),
        "mean_ms": round(statistics.fmean(lat), 3),
        "target_ms": TARGET_MS,
        "machine": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    ok = figures["median_ms"] < TARGET_MS and figures["p99_ms"] < TARGET_MS
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"board latency, signal() -> pin change (real firmware in simavr, host clock), "
              f"{figures['samples']} samples")
        print(f"  median {figures['median_ms']:.2f} ms   p99 {figures['p99_ms']:.2f} ms   "
              f"max {figures['max_ms']:.2f} ms   mean {figures['mean_ms']:.2f} ms   "
              f"target < {TARGET_MS:g} ms: {'met' if ok else 'NOT met'}")
        print(f"  machine: {figures['machine']}, {figures['processor']}, "
              f"{figures['cpus']} CPUs, Python {figures['python']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
