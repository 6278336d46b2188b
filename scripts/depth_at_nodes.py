#!/usr/bin/env python3
"""Depth reached within node budgets: the start position and the bench middlegames.

Usage: scripts/depth_at_nodes.py ENGINE BUDGET [BUDGET ...] [--opt NAME=VALUE ...]

For each position, one search (`ucinewgame`, `go nodes MAX`, Threads=1, Hash 16) to
the largest budget; the table gives, per budget, the deepest iteration that completed
within it (from the `info depth` lines; a line with at least MAX nodes is an aborted
iteration and does not count). Nodes, not time: the figures do not depend on what else
runs on the machine; divide a budget by the nodes per CPU second of `jieqi-engine
bench` to turn it into CPU seconds."""
import os
import re
import subprocess
import sys

args = sys.argv[1:]
opts = []
while "--opt" in args:
    i = args.index("--opt")
    opts.append(args[i + 1].split("=", 1))
    del args[i : i + 2]
eng, budgets = args[0], [int(b) for b in args[1:]]
top = max(budgets)
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "..", "crates", "jieqi-engine", "src", "bench.rs")).read()
fens = re.findall(r'^\s*"([^"]+ [wb] [^"]*)",', src, re.M)[:9]
positions = [("start", "startpos")] + [(f"mg{i + 1}", "fen " + f) for i, f in enumerate(fens)]

print("position " + " ".join(f"{b:>10}" for b in budgets))
for name, pos in positions:
    p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    cmds = [f"setoption name {n} value {v}" for n, v in opts]
    cmds += ["ucinewgame", f"position {pos}", f"go nodes {top}"]
    p.stdin.write("\n".join(cmds) + "\n")
    p.stdin.flush()
    done = []  # (depth, nodes) of completed iterations
    for line in p.stdout:
        if line.startswith("bestmove"):
            break
        m = re.match(r"info depth (\d+) .* nodes (\d+) ", line)
        if m and " multipv 1 " in line:
            d, n = int(m.group(1)), int(m.group(2))
            if n < top:
                done.append((d, n))
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait()
    row = [max([d for d, n in done if n <= b], default=0) for b in budgets]
    print(f"{name:8} " + " ".join(f"{d:>10}" for d in row), flush=True)
