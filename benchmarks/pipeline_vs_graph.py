#!/usr/bin/env python3
"""Summarises benchmarks/pipeline_vs_graph.sh into RESULTS/pipeline_vs_graph.csv: per
mode and depth, training bytes per epoch (measured, and predicted by comm-volume), the
median epoch time and its compute/communication split, the training time until the
validation accuracy first reaches TARGET, and the test accuracy at the best validation
epoch. Usage: pipeline_vs_graph.py RAW RESULTS TARGET "header line"."""
import json
import statistics
import sys
from pathlib import Path

from bench_csv import write_csv

TRAINING = ["halo_fwd", "halo_bwd", "allreduce", "stage_fwd", "stage_bwd"]


def predicted_bytes(raw, layers, mode):
    data = json.loads((raw / f"predict-L{layers}.json").read_text())
    for row in data["rows"]:
        if row["mode"] == mode and row["method"] == "metis":
            return sum(row.get(c, 0) for c in TRAINING)
    return None


def summarise(raw, path, target):
    mode, depth = path.stem.split("-L")
    lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    epochs = [l for l in lines if l.get("event") == "epoch"]
    final = next(l for l in lines if l.get("event") == "final")
    elapsed, reached = 0.0, None
    for e in epochs:
        elapsed += e["epoch_s"]
        if reached is None and e["val_acc"] >= target:
            reached = (e["epoch"], elapsed)
    later = epochs[1:] or epochs
    bytes_per_epoch = sum(epochs[-1]["comm_bytes"].get(c, 0) for c in TRAINING)
    return {"mode": mode, "layers": int(depth), "epochs": len(epochs),
            "bytes_per_epoch": bytes_per_epoch,
            "predicted_bytes": predicted_bytes(raw, int(depth), mode),
            "epoch_s": statistics.median(e["epoch_s"] for e in later),
            "compute_s": statistics.median(e["compute_s"] for e in later),
            "comm_s": statistics.median(e["comm_s"] for e in later),
            "epoch_reaching_target": reached[0] if reached else "",
            "train_s_to_target": round(reached[1], 3) if reached else "",
            "best_val_acc": final["best_val_acc"], "test_acc": final["test_acc"]}


def main():
    raw, results, target, header = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    rows = sorted((summarise(raw, p, target) for p in raw.glob("*.jsonl")),
                  key=lambda r: (r["layers"], r["mode"]))
    out = results / "pipeline_vs_graph.csv"
    write_csv(out, rows, f"{header}; target val acc {target}")
    for r in rows:
        print("\t".join(str(v) for v in r.values()))


if __name__ == "__main__":
    main()
