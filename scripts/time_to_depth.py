#!/usr/bin/env python3
"""Time to depth with Threads=1 and Threads=2 over the bench middlegames (wall ms).

Usage: scripts/time_to_depth.py ENGINE DEPTH [REPEATS] [NAME=VALUE ...]

Each repeat runs the nine middlegames of the bench (`go depth DEPTH` after
`ucinewgame`, Hash 64) once with one thread and once with two, alternately, and
prints both totals and the speed-up; the last line is the median speed-up over the
repeats. NAME=VALUE pairs are sent as `setoption` to both runs (for example
`"Use ABDADA=false"` for plain Lazy SMP). Needs two otherwise idle cores."""
import os
import re
import statistics
import subprocess
import sys
import time

eng, depth = sys.argv[1], int(sys.argv[2])
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
extra = [a.split("=", 1) for a in sys.argv[4:]]
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "..", "crates", "jieqi-engine", "src", "bench.rs")).read()
fens = re.findall(r'^\s*"([^"]+ [wb] [^"]*)",', src, re.M)[:9]


def run(threads):
    p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(s):
        p.stdin.write(s + "\n")
        p.stdin.flush()

    def wait(prefix):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("engine died")
            if line.startswith(prefix):
                return line

    send("uci")
    wait("uciok")
    send(f"setoption name Threads value {threads}")
    send("setoption name Hash value 64")
    for name, value in extra:
        send(f"setoption name {name} value {value}")
    times = []
    for f in fens:
        send("ucinewgame")
        send(f"position fen {f}")
        send("isready")
        wait("readyok")
        t = time.perf_counter()
        send(f"go depth {depth}")
        wait("bestmove")
        times.append((time.perf_counter() - t) * 1000)
    send("quit")
    p.wait()
    return times


speedups = []
for rep in range(repeats):
    t1, t2 = run(1), run(2)
    speedups.append(sum(t1) / sum(t2))
    per = statistics.median(a / b for a, b in zip(t1, t2))
    print(
        f"rep {rep}: threads=1 total {sum(t1):.0f} ms, threads=2 total {sum(t2):.0f} ms, "
        f"speedup {speedups[-1]:.2f}; per-position speedup median {per:.2f}",
        flush=True,
    )
print(f"median speedup over {repeats} repeats: {statistics.median(speedups):.2f}")
