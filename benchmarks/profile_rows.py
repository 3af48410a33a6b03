#!/usr/bin/env python3
"""CSV rows for benchmarks/profile.sh from a metrics file, and its summary.
  profile_rows.py ops METRICS PREFIX    one row per operation of the 'profile' line
  profile_rows.py run METRICS PREFIX    PREFIX,median epoch_s after 2 warm-up epochs
  profile_rows.py summary RUNS OPS      per build, graph and model: epoch, floor, spread
  profile_rows.py roofline FILE...      one roofline file, each rate the best of the files'"""
import csv
import json
import statistics
import sys


def lines(path):
    return [json.loads(l) for l in open(path) if l.strip()]


def rows(path):
    return list(csv.DictReader(l for l in open(path) if not l.startswith("#")))


if sys.argv[1] == "ops":
    p = next(l for l in lines(sys.argv[2]) if l["event"] == "profile")
    ops = p["ops"] + [{"op": "communication wait", "seconds": p["comm_wait_s"]},
                      {"op": "other", "seconds": p["other_s"]},
                      {"op": "epoch", "seconds": p["epoch_s"], "floor_s": p["floor_s"]}]
    for o in ops:
        print(sys.argv[3] + "," + ",".join(
            f"{o.get(k, 0):.6g}" if k != "op" else o[k]
            for k in ("op", "calls", "seconds", "bytes", "gather_bytes", "flops", "floor_s")))
elif sys.argv[1] == "roofline":
    best = {}
    for path in sys.argv[2:]:
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            name, value = line.split()
            best[name] = max(best.get(name, 0.0), float(value))
    print(f"# strata train --profile: this machine's roofline, the best of {len(sys.argv) - 2} "
          "measurements")
    for name, value in best.items():
        print(f"{name} {value:.6g}")
elif sys.argv[1] == "run":
    e = [l["epoch_s"] for l in lines(sys.argv[2]) if l["event"] == "epoch"]
    print(f"{sys.argv[3]},{statistics.median(e[2:] or e):.5f}")
else:
    runs, ops = rows(sys.argv[2]), rows(sys.argv[3])
    key_of = lambda r: (r["graph"], r["model"], r["layers"])
    for key in dict.fromkeys(key_of(r) for r in runs):
        medians = {}
        for build in dict.fromkeys(r["build"] for r in runs):
            mine = lambda r: key_of(r) == key and r["build"] == build
            t = sorted(float(r["epoch_s"]) for r in runs if mine(r))
            e = next(o for o in ops if mine(o) and o["op"] == "epoch")
            medians[build] = statistics.median(t)
            print(f"{build} {' '.join(key)}: epoch {medians[build]:.4f} s (min {t[0]:.4f}, max "
                  f"{t[-1]:.4f}); profiled epoch {float(e['seconds']):.4f} s, floor "
                  f"{float(e['floor_s']):.4f} s, x{float(e['seconds']) / float(e['floor_s']):.2f}")
        if "before" in medians:
            print(f"  before / after: {medians['before'] / medians['after']:.2f}x")
