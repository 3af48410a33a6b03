#!/usr/bin/env python3
"""Summarises benchmarks/pipeline_accuracy.sh: RAW/<dataset>-<variant>-s<seed>.jsonl ->
RESULTS/pipeline_accuracy.csv (one row per run) and a table, per dataset and variant, of
the mean test accuracy at the best validation epoch and its gap to one process on the
same seeds.
Usage: pipeline_accuracy.py RAW RESULTS "header line"."""
import json
import statistics
import sys
from pathlib import Path

from bench_csv import write_csv


def summary(path):
    lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    epochs = [l for l in lines if l.get("event") == "epoch"]
    final = [l for l in lines if l.get("event") == "final"]
    best = max(epochs, key=lambda e: e["val_acc"])  # first maximum, as strata reports
    return {"test_acc": final[0]["test_acc"] if final else best["test_acc"],
            "best_val_acc": best["val_acc"], "best_epoch": best["epoch"],
            "final_loss": epochs[-1]["loss"],
            "epoch_s": statistics.median(e["epoch_s"] for e in epochs[1:] or epochs),
            "history_fraction": epochs[-1].get("history_fraction", 0.0)}


def main():
    raw, results, header = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    rows = []
    for path in sorted(raw.glob("*.jsonl")):
        dataset, rest = path.stem.split("-", 1)
        variant, seed = rest.rsplit("-s", 1)
        rows.append({"dataset": dataset, "variant": variant, "seed": int(seed), **summary(path)})
    out = results / "pipeline_accuracy.csv"
    write_csv(out, rows, header)
    print("dataset\tvariant\tseeds\tmean_test_acc\tgap_to_local_same_seeds_points\tmedian_epoch_s")
    for dataset in sorted({r["dataset"] for r in rows}):
        of = lambda v: {r["seed"]: r for r in rows if r["dataset"] == dataset and r["variant"] == v}
        local = of("local")
        for variant in sorted({r["variant"] for r in rows if r["dataset"] == dataset}):
            got = of(variant)
            acc = statistics.mean(r["test_acc"] for r in got.values())
            paired = [got[s]["test_acc"] - local[s]["test_acc"] for s in got if s in local]
            gap = f"{100 * statistics.mean(paired):+.2f}" if paired else "-"
            epoch_s = statistics.median(r["epoch_s"] for r in got.values())
            print(f"{dataset}\t{variant}\t{len(got)}\t{100 * acc:.2f}\t{gap}\t{epoch_s:.3f}")

if __name__ == "__main__":
    main()
