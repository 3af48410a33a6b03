#!/usr/bin/env python3
"""One row of plan_simulated.csv from a `strata plan --simulate --json` on stdin: the best
allowed layout that fits 80 GB per GPU (or the smallest, marked), its predicted epoch
time, graph mode's best with float32 rows, the fastest exact layout with stages (pipeline
or hybrid, float32 rows) and its time, and the best's GB per GPU.
Usage: strata plan ... --json | plan_simulated.py"""
import json
import sys

GPU_BYTES = 80e9
p = json.load(sys.stdin)
layouts = p["layouts"]


def name(l):
    text = l["mode"] if l["mode"] == "graph" else f"{l['mode']} {l['stages']}x{l['parts']}"
    if l["chunks"] > 1:
        text += f" {l['chunks']} chunks"
    return text + ("" if l["compress"] == "none" else f" {l['compress']}")


def fastest(rows):
    return min(rows, key=lambda r: r["epoch_s"]) if rows else None


fit = [l for l in layouts if l["allowed"] and l["memory_per_rank"] <= GPU_BYTES]
best = fit[0] if fit else min(layouts, key=lambda l: l["memory_per_rank"])
label = name(best) if fit else "none fits 80 GB; smallest: " + name(best)
graph = [l for l in layouts if l["mode"] == "graph" and l["compress"] == "none"]
staged = fastest([l for l in layouts if l["stages"] > 1 and l["compress"] == "none"
                  and l["stale_grad"] == "exact"])
staged_cells = f"{name(staged)},{staged['epoch_s']:.4f}" if staged else "-,"
print(f"{label},{best['epoch_s']:.4f},{fastest(graph)['epoch_s']:.4f},{staged_cells},"
      f"{best['memory_per_rank'] / 1e9:.1f}")
