#!/usr/bin/env python3
"""The accuracy runs of benchmarks/compression.sh, from their metrics files
(RAW/<dataset>-<model><layers>-<mode>-<format>-s<seed>.jsonl), into
RESULTS/compression_accuracy.csv (one row per run: test accuracy at the best validation
epoch, mean test accuracy over the last 10 epochs, training bytes per epoch) and
RESULTS/compression_gaps.csv (per setting and format, against float32 on the same seeds:
mean and worst gap in points, by both metrics, and the bytes ratio), and, where one
process ran the same setting (mode "local"), RESULTS/compression_control.csv: graph mode
in float32 against it, seed by seed (how far rounding alone moves each metric).
Usage: compression.py RAW RESULTS HEADER"""
import glob
import json
import os
import re
import statistics
import sys

raw, results, header = sys.argv[1:4]
runs = {}
for path in sorted(glob.glob(os.path.join(raw, "*.jsonl"))):
    m = re.fullmatch(r"(.+)-([a-z]+)(\d+)-(graph|pipeline|hybrid|local)-(none|bf16|int8)-s(\d+)",
                     os.path.basename(path)[:-6])
    if not m:
        continue
    records = [json.loads(line) for line in open(path)]
    final = next((r for r in records if r.get("event") == "final"), None)
    epochs = [r for r in records if r.get("event") == "epoch"]
    if final is None or not epochs:
        continue
    training = sum(v for k, v in epochs[0].get("comm_bytes", {}).items()
                   if k not in ("eval", "allreduce"))
    last10 = statistics.mean(r["test_acc"] for r in epochs[-10:])
    setting = (m[1], m[2], int(m[3]), m[4])
    runs[setting + (m[5], int(m[6]))] = (final["test_acc"], last10, training)

with open(os.path.join(results, "compression_accuracy.csv"), "w") as out:
    out.write(f"# {header}\n")
    out.write("dataset,model,layers,mode,format,seed,test_acc,last10_test_acc,row_bytes_per_epoch\n")
    for key, (best, last10, training) in sorted(runs.items()):
        out.write(",".join(map(str, key)) + f",{best:.4f},{last10:.4f},{training}\n")

settings = sorted({k[:4] for k in runs if k[3] != "local"})
with open(os.path.join(results, "compression_gaps.csv"), "w") as out:
    out.write(f"# {header}; gaps in points against float32 on the same seeds\n")
    out.write("dataset,model,layers,mode,format,seeds,float32_test_acc,test_acc,mean_gap,worst_gap,"
              "float32_last10,last10,mean_gap_last10,worst_gap_last10,bytes_ratio\n")
    for s in settings:
        for fmt in ("bf16", "int8"):
            seeds = sorted(k[5] for k in runs if k[:5] == s + (fmt,) and s + ("none", k[5]) in runs)
            if not seeds:
                continue
            base = [runs[s + ("none", x)] for x in seeds]
            mine = [runs[s + (fmt, x)] for x in seeds]
            cols = []
            for i in (0, 1):
                gaps = [100 * (a[i] - b[i]) for a, b in zip(mine, base)]
                cols += [f"{statistics.mean(b[i] for b in base):.4f}",
                         f"{statistics.mean(a[i] for a in mine):.4f}",
                         f"{statistics.mean(gaps):+.2f}", f"{min(gaps):+.2f}"]
            ratio = mine[0][2] / base[0][2] if base[0][2] else 0
            out.write(",".join(map(str, s)) + f",{fmt},{len(seeds)}," + ",".join(cols) +
                      f",{ratio:.3f}\n")
with open(os.path.join(results, "compression_control.csv"), "w") as out:
    out.write(f"# {header}; graph mode in float32 against one process, points\n")
    out.write("dataset,model,layers,seed,gap,gap_last10\n")
    for key, (best, last10, _) in sorted(runs.items()):
        if key[3] != "local":
            continue
        graph = runs.get(key[:3] + ("graph", "none", key[5]))
        if graph:
            out.write(f"{key[0]},{key[1]},{key[2]},{key[5]},{100 * (graph[0] - best):+.2f},"
                      f"{100 * (graph[1] - last10):+.2f}\n")
print(open(os.path.join(results, "compression_gaps.csv")).read())
