#!/usr/bin/env python3
"""Summarises benchmarks/end_to_end.sh into RESULTS/end_to_end.csv (one row per run) and
RESULTS/end_to_end_memory.csv (one row per rank). Epoch, compute and wait times are
medians over the epochs after the first; bytes are the training bytes of the last epoch,
summed over ranks, next to `strata comm-volume`'s METIS prediction for the same layout.
Usage: end_to_end.py RAW RESULTS "machine/commit/date line"."""
import json
import statistics
import sys
from pathlib import Path

from bench_csv import write_csv

TRAINING = ["halo_fwd", "halo_bwd", "allreduce", "stage_fwd", "stage_bwd"]
LAYOUT = {"local": lambda p: (1, 1), "graph": lambda p: (1, p),
          "pipeline": lambda p: (p, 1), "hybrid": lambda p: (p // 2, 2)}


def read_lines(path):
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def predicted(raw, name, mode, p):
    if p == 1:
        return 0
    stages, parts = LAYOUT[mode](p)
    for row in json.loads((raw / f"{name}-predict-p{p}.json").read_text())["rows"]:
        if (row["method"], row["stages"], row["parts"]) == ("metis", stages, parts):
            return sum(row.get(c, 0) for c in TRAINING)
    return ""


def time_to(epochs, target):
    elapsed = 0.0
    for e in epochs:
        elapsed += e["epoch_s"]
        if e["val_acc"] >= target:
            return e["epoch"], round(elapsed, 3)
    return "", ""


def summarise(raw, path, targets):
    name, mode, p = path.stem.rsplit("-", 2)
    p = int(p[1:])
    lines = read_lines(path)
    epochs = [l for l in lines if l.get("event") == "epoch"]
    final = next(l for l in lines if l.get("event") == "final")
    later = epochs[1:] or epochs
    med = lambda k: statistics.median(e.get(k, e["epoch_s"] if k == "compute_s" else 0)
                                      for e in later)
    stages, parts = LAYOUT[mode](p)
    reached_epoch, reached_s = time_to(epochs, targets[name])
    peaks = final.get("peak_resident_bytes", [])
    row = {"dataset": name, "mode": mode, "P": p, "stages": stages, "parts": parts,
           "epochs": len(epochs), "epoch_s": med("epoch_s"), "compute_s": med("compute_s"),
           "comm_s": med("comm_s"), "first_epoch_s": epochs[0]["epoch_s"],
           "target_val_acc": targets[name], "epoch_reaching_target": reached_epoch,
           "train_s_to_target": reached_s, "best_val_acc": final["best_val_acc"],
           "test_acc": final["test_acc"],
           "bytes_per_epoch": sum(epochs[-1].get("comm_bytes", {}).get(c, 0) for c in TRAINING),
           "predicted_bytes": predicted(raw, name, mode, p),
           "max_peak_mb": round(max(peaks) / 1e6, 1) if peaks else ""}
    memory = [{"dataset": name, "mode": mode, "P": p, "rank": r,
               "peak_mb": round(b / 1e6, 1),
               "estimated_mb": round(final["estimated_bytes"][r] / 1e6, 1)
               if final.get("estimated_bytes", [0])[r] else ""}
              for r, b in enumerate(peaks)]
    return row, memory


def main():
    raw, results, header = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    targets = dict(l.split("\t") for l in (raw / "targets.tsv").read_text().splitlines())
    targets = {k: float(v) for k, v in targets.items()}
    order = {"local": 0, "graph": 1, "pipeline": 2, "hybrid": 3}
    runs, memory = [], []
    for path in raw.glob("*.jsonl"):
        row, mem = summarise(raw, path, targets)
        runs.append(row)
        memory += mem
    skipped = raw / "skipped.tsv"  # runs the script predicted not to fit in memory
    for line in skipped.read_text().splitlines() if skipped.exists() else []:
        tag, need, limit = line.split("\t")
        name, mode, p = tag.rsplit("-", 2)
        stages, parts = LAYOUT[mode](int(p[1:]))
        runs.append({"dataset": name, "mode": mode, "P": int(p[1:]), "stages": stages,
                     "parts": parts, "skipped": f"needs ~{int(need) / 2**30:.1f} GiB, limit "
                     f"{int(limit) / 2**30:.1f} GiB"})
    key = lambda r: (r["dataset"], r["P"], order[r["mode"]])
    runs.sort(key=key)
    memory.sort(key=lambda r: (*key(r), r["rank"]))
    fields = list(dict.fromkeys(k for r in runs for k in r))  # "skipped" last
    runs = [{k: r.get(k, "") for k in fields} for r in runs]
    write_csv(results / "end_to_end.csv", runs, header)
    write_csv(results / "end_to_end_memory.csv", memory, header)
    for r in runs:
        print("\t".join(str(v) for v in r.values()))


if __name__ == "__main__":
    main()
