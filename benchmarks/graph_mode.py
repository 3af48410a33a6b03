#!/usr/bin/env python3
"""Summarises benchmarks/graph_mode.sh: reads RAW/*.jsonl (strata train --metrics),
RAW/predict-*.json (strata comm-volume --json), RAW/partition-*.json and RAW/*.tsv, and
writes RESULTS/graph_mode_runs.csv (one row per run), RESULTS/graph_mode.csv (median over
repeats, with min and max) and RESULTS/graph_mode_partition.csv.
Per run: epoch_s, compute_s and comm_s are medians over the epochs after the first; bytes
are per epoch, summed over ranks, and must be the same in every epoch.
Usage: graph_mode.py RAW RESULTS "machine/commit/date line"."""
import json
import statistics
import sys
from pathlib import Path

from bench_csv import write_csv

CATEGORIES = ["halo_fwd", "halo_bwd", "allreduce", "stage_fwd", "stage_bwd", "eval"]


def load_epochs(path):
    lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    return [l for l in lines if l.get("event") == "epoch"]


def predicted(raw, name, p, method):
    data = json.loads((raw / f"predict-{name}-p{p}.json").read_text())
    want = "metis" if method == "range" else method  # P=1: no boundary, any method
    for row in data["rows"]:
        if row["mode"] == "graph" and row["method"] == want and row["layers"] == 2:
            return {c: row.get(c, 0) for c in CATEGORIES}
    raise SystemExit(f"no graph row for {name} P={p} {method}")


def run_row(raw, fields):
    name, p, method, threads, rep, wall = fields
    tag = f"{name}-p{p}-{method}-t{threads}-r{rep}"
    epochs = load_epochs(raw / f"{tag}.jsonl")
    later = epochs[1:] if len(epochs) > 1 else epochs
    med = lambda k: statistics.median(e[k] for e in later)
    bytes0 = epochs[0]["comm_bytes"]
    same = all(e["comm_bytes"] == bytes0 for e in epochs)
    pred = predicted(raw, name, int(p), method)
    match = same and all(bytes0.get(c, 0) == pred[c] for c in CATEGORIES)
    row = {"dataset": name, "P": int(p), "partitioner": "-" if p == "1" else method,
           "omp_threads": int(threads), "repeat": int(rep), "epochs": len(epochs),
           "epoch_s": med("epoch_s"), "compute_s": med("compute_s"), "comm_s": med("comm_s"),
           "first_epoch_s": epochs[0]["epoch_s"], "wall_s": float(wall),
           "test_acc_last": epochs[-1]["test_acc"]}
    for c in CATEGORIES:
        row[c] = bytes0.get(c, 0)
    for c in CATEGORIES:
        row["pred_" + c] = pred[c]
    row["bytes_equal_every_epoch"] = same
    row["bytes_match_prediction"] = match
    return row


def summarise(rows):
    groups = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["P"], r["partitioner"], r["omp_threads"]), []).append(r)
    out = []
    for key, rs in groups.items():
        s = dict(zip(["dataset", "P", "partitioner", "omp_threads"], key))
        s["repeats"] = len(rs)
        for k in ["epoch_s", "compute_s", "comm_s"]:
            v = [r[k] for r in rs]
            s[k] = statistics.median(v)
            s[k + "_min"], s[k + "_max"] = min(v), max(v)
        for c in CATEGORIES:
            s[c] = rs[0][c]
        s["training_bytes"] = sum(rs[0][c] for c in CATEGORIES if c != "eval")
        for c in CATEGORIES:
            s["pred_" + c] = rs[0]["pred_" + c]
        s["bytes_match_prediction"] = all(r["bytes_match_prediction"] for r in rs)
        out.append(s)
    base = {(s["dataset"]): s["epoch_s"] for s in out if s["P"] == 1 and s["omp_threads"] == 1}
    for s in out:
        s["speedup_vs_P1_t1"] = base[s["dataset"]] / s["epoch_s"] if s["epoch_s"] else 0
    return out


def partition_rows(raw):
    prep = {}
    for line in (raw / "prep.tsv").read_text().splitlines():
        name, what, p, method, secs = line.split("\t")
        prep[(name, what, p, method)] = float(secs)
    rows = []
    for f in sorted(raw.glob("partition-*.json")):
        name, p, method = f.stem[len("partition-"):].rsplit("-", 2)
        q = json.loads(f.read_text())
        rows.append({"dataset": name, "P": int(p[1:]), "method": method,
                     "partition_s": q["seconds"],
                     "partition_and_shards_wall_s": prep[(name, "partition+shards", p[1:], method)],
                     "convert_wall_s": prep[(name, "convert", "0", "-")],
                     "edge_cut": q["edge_cut"], "boundary_pairs_B": q["boundary_pairs"],
                     "replication_factor": q["replication_factor"],
                     "vertex_balance": q["vertex_balance"], "edge_balance": q["edge_balance"]})
    return rows



def main():
    raw, results, header = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    runs = [run_row(raw, l.split("\t")) for l in (raw / "runs.tsv").read_text().splitlines()]
    summary = summarise(runs)
    write_csv(results / "graph_mode_runs.csv", runs, header)
    write_csv(results / "graph_mode.csv", summary, header)
    write_csv(results / "graph_mode_partition.csv", partition_rows(raw), header)
    bad = [r for r in runs if not r["bytes_match_prediction"]]
    print(f"bytes equal to comm-volume prediction: {len(runs) - len(bad)} of {len(runs)} runs")
    for r in bad:
        print("MISMATCH", r["dataset"], r["P"], r["partitioner"],
              {c: (r[c], r["pred_" + c]) for c in CATEGORIES if r[c] != r["pred_" + c]})
    cols = ["dataset", "P", "partitioner", "omp_threads", "epoch_s", "epoch_s_min", "epoch_s_max",
            "compute_s", "comm_s", "training_bytes", "speedup_vs_P1_t1"]
    print("\t".join(cols))
    for s in summary:
        print("\t".join(f"{s[c]:.4g}" if isinstance(s[c], float) else str(s[c]) for c in cols))


if __name__ == "__main__":
    main()
