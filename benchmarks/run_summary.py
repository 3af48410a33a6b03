#!/usr/bin/env python3
"""One training run's figures from its --metrics file, as a CSV fragment:
epoch_s,comm_s,bytes_per_epoch,epochs_to_target,seconds_to_target,test_acc,overlap_s

epoch_s, comm_s (time waiting in communication) and overlap_s (time the halo was in flight
while the rank computed; 0 in runs older than that metric) are medians over the epochs
after two warm-up epochs; bytes are the first epoch's, summed over categories; the target columns
count training steps until the validation accuracy first reaches TARGET (empty if never).
Usage: run_summary.py METRICS.jsonl [TARGET (default 1.01: never)]"""
import json
import statistics
import sys

records = [json.loads(line) for line in open(sys.argv[1])]
target = float(sys.argv[2]) if len(sys.argv) > 2 else 1.01
epochs = [r for r in records if r.get("event") == "epoch"]
final = next(r for r in records if r.get("event") == "final")
steady = epochs[2:] or epochs
med = lambda key: statistics.median(r.get(key, 0) for r in steady)
reached = next((i for i, r in enumerate(epochs) if r["val_acc"] >= target), None)
to_target = ("", "") if reached is None else (
    reached + 1, f"{sum(r['epoch_s'] for r in epochs[:reached + 1]):.3f}")
print(f"{med('epoch_s'):.4f},{med('comm_s'):.4f},{sum(epochs[0]['comm_bytes'].values())},"
      f"{to_target[0]},{to_target[1]},{final['test_acc']:.4f},{med('comm_overlap_s'):.4f}")
