#!/usr/bin/env python3
"""Flattens benchmarks/comm_sweep.sh's `strata comm-volume --json` outputs into
RESULTS/comm_volume.csv (one row per dataset, model, ranks, partitioner, layers and
stages x parts layout) and RESULTS/comm_ratio.csv (graph over pipeline bytes, METIS, per
dataset, model, ranks and depth). Usage: comm_sweep.py RAW RESULTS "header line"."""
import json
import sys
from pathlib import Path

from bench_csv import write_csv

COLUMNS = ["halo_fwd", "halo_bwd", "stage_fwd", "stage_bwd", "allreduce", "training", "eval"]


def rows_of(path):
    dataset, model, p = path.stem.rsplit("-", 2)
    data = json.loads(path.read_text())
    for r in data["rows"]:
        yield {"dataset": dataset, "model": model, "ranks": int(p[1:]), "method": r["method"],
               "layers": r["layers"], "mode": r["mode"], "stages": r["stages"],
               "parts": r["parts"], **{c: r.get(c, 0) for c in COLUMNS}}


def ratios(rows):
    by = {}
    for r in rows:
        if r["method"] == "metis" and r["mode"] in ("graph", "pipeline"):
            by.setdefault((r["dataset"], r["model"], r["ranks"], r["layers"]), {})[r["mode"]] = r
    for (dataset, model, ranks, layers), m in sorted(by.items()):
        if "graph" in m and "pipeline" in m and m["pipeline"]["training"] > 0:
            g, p = m["graph"]["training"], m["pipeline"]["training"]
            yield {"dataset": dataset, "model": model, "ranks": ranks, "layers": layers,
                   "graph_bytes": g, "pipeline_bytes": p, "pipeline_stages": m["pipeline"]["stages"],
                   "graph_over_pipeline": round(g / p, 3)}



def main():
    raw, results, header = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    rows = [r for path in sorted(raw.glob("*.json")) for r in rows_of(path)]
    rows.sort(key=lambda r: (r["dataset"], r["model"], r["ranks"], r["method"], r["layers"],
                             r["stages"]))
    write_csv(results / "comm_volume.csv", rows, header)
    write_csv(results / "comm_ratio.csv", list(ratios(rows)), header)


if __name__ == "__main__":
    main()
