#!/usr/bin/env python3
"""Summarises benchmarks/pipeline_depth.sh: RAW/<dataset>-<form>-L<layers>-<variant>-s<seed>.jsonl
-> RESULTS/pipeline_depth.csv (one row per run), RESULTS/pipeline_depth_curves.csv (the
training loss and validation accuracy per epoch, mean over seeds, of the row-normalized
runs, for plots.py) and a table per dataset, form and depth:
each variant's mean test accuracy (at the best validation epoch) with its spread over
seeds, its mean gap to one process on the same seeds and its worst seed's gap, in points.
The CSV also has each run's mean test accuracy over its last 10 epochs.
Usage: pipeline_depth.py RAW RESULTS "header line"."""
import json
import statistics
import sys
from pathlib import Path

from bench_csv import write_csv


def read_run(path):
    """A run's epoch lines and its final line; None if it did not finish."""
    lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    epochs = [l for l in lines if l.get("event") == "epoch"]
    final = [l for l in lines if l.get("event") == "final"]
    return (epochs, final[0]) if epochs and final else None


def summary(epochs, final):
    # Test accuracy at the best validation epoch moves by points with the epoch picked; the
    # mean over the last 10 epochs is a steadier second view of the same run.
    last10 = statistics.mean(e["test_acc"] for e in epochs[-10:])
    return {"test_acc": final["test_acc"], "test_acc_last10": last10,
            "best_val_acc": final["best_val_acc"],
            "best_epoch": final["best_epoch"], "final_loss": epochs[-1]["loss"],
            "lowest_loss": min(e["loss"] for e in epochs),
            "epoch_s": statistics.median(e["epoch_s"] for e in epochs[1:] or epochs),
            "bytes_per_epoch": sum(epochs[-1].get("comm_bytes", {}).values()),
            "history_fraction": epochs[-1].get("history_fraction", 0.0)}


def parse_name(stem):
    dataset, form, layers, rest = stem.split("-", 3)
    variant, seed = rest.rsplit("-s", 1)
    return {"dataset": dataset, "features": form, "layers": int(layers[1:]), "variant": variant,
            "seed": int(seed)}


def table(rows):
    print("dataset\tfeatures\tlayers\tvariant\tseeds\tmean_test_%\tspread\tgap_mean\tgap_worst\t"
          "bytes_MB\tepoch_s")
    groups = sorted({(r["dataset"], r["features"], r["layers"]) for r in rows})
    for dataset, form, layers in groups:
        same = [r for r in rows if (r["dataset"], r["features"], r["layers"]) == (dataset, form, layers)]
        of = lambda v: {r["seed"]: r for r in same if r["variant"] == v}
        local = of("local")
        for variant in sorted({r["variant"] for r in same}):
            got = of(variant)
            acc = [100 * r["test_acc"] for r in got.values()]
            gaps = [100 * (got[s]["test_acc"] - local[s]["test_acc"]) for s in got if s in local]
            gap = f"{statistics.mean(gaps):+.2f}\t{min(gaps):+.2f}" if gaps else "-\t-"
            mb = statistics.median(r["bytes_per_epoch"] for r in got.values()) / 1e6
            t = statistics.median(r["epoch_s"] for r in got.values())
            print(f"{dataset}\t{form}\t{layers}\t{variant}\t{len(got)}\t{statistics.mean(acc):.2f}\t"
                  f"{min(acc):.1f}-{max(acc):.1f}\t{gap}\t{mb:.1f}\t{t:.3f}")


def curves(runs, results, header):
    """Mean loss and validation accuracy per epoch over seeds, for the row-normalized runs."""
    series = {}
    for name, epochs in runs:
        if name["features"] != "rownorm":
            continue
        key = (name["dataset"], name["layers"], name["variant"])
        for e in epochs:
            series.setdefault(key, {}).setdefault(e["epoch"], []).append((e["loss"], e["val_acc"]))
    rows = [{"dataset": d, "layers": l, "variant": v, "epoch": epoch, "seeds": len(points),
             "mean_loss": statistics.mean(p[0] for p in points),
             "mean_val_acc": statistics.mean(p[1] for p in points)}
            for (d, l, v), by_epoch in sorted(series.items()) for epoch, points in sorted(by_epoch.items())]
    if rows:
        write_csv(results / "pipeline_depth_curves.csv", rows, header)


def main():
    raw, results, header = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    runs = []  # (name, epochs) of every finished run, each file read once
    rows = []
    for path in sorted(raw.glob("*.jsonl")):
        run = read_run(path)
        if run is not None:
            name = parse_name(path.stem)
            runs.append((name, run[0]))
            rows.append({**name, **summary(*run)})
    if not rows:
        sys.exit(f"pipeline_depth.py: no finished runs in {raw}")
    write_csv(results / "pipeline_depth.csv", rows, header)
    curves(runs, results, header)
    table(rows)


if __name__ == "__main__":
    main()
