#!/usr/bin/env python3
"""Time to depth with Threads=1 and Threads=2 over the bench middlegames (wall ms).
Usage: scripts/time_to_depth.py ENGINE DEPTH [REPEATS]"""
import subprocess, sys, time, re, statistics
eng, depth = sys.argv[1], int(sys.argv[2])
src = open(__import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'crates', 'jieqi-engine', 'src', 'bench.rs')).read()
fens = re.findall(r'^\s*"([^"]+ [wb] [^"]*)",', src, re.M)[:9]
def run(threads):
    p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    def send(s): p.stdin.write(s + "\n"); p.stdin.flush()
    def wait(prefix):
        while True:
            l = p.stdout.readline()
            if not l: raise SystemExit("engine died")
            if l.startswith(prefix): return l
    send("uci"); wait("uciok")
    send(f"setoption name Threads value {threads}"); send("setoption name Hash value 64")
    times = []
    for f in fens:
        send("ucinewgame"); send(f"position fen {f}"); send("isready"); wait("readyok")
        t = time.perf_counter(); send(f"go depth {depth}"); wait("bestmove")
        times.append((time.perf_counter() - t) * 1000)
    send("quit"); p.wait()
    return times
for rep in range(int(sys.argv[3]) if len(sys.argv) > 3 else 3):
    t1, t2 = run(1), run(2)
    print(f"rep {rep}: threads=1 total {sum(t1):.0f} ms, threads=2 total {sum(t2):.0f} ms, speedup {sum(t1)/sum(t2):.2f}; per-position speedup median {statistics.median(a/b for a,b in zip(t1,t2)):.2f}", flush=True)
