#!/usr/bin/env python3
"""One CSV row for benchmarks/memory.sh from a metrics file:
  memory_row.py METRICS PREFIX  ->  PREFIX,peak_mb_max,peak_mb_sum,estimate_mb_max,
                                    bytes_per_vertex,epoch_s,test_acc,
(bytes_per_vertex: the ranks' summed peak over the vertices, the third field of PREFIX;
epoch_s: the median training step after the first epoch)."""
import json
import statistics
import sys

lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
final = [l for l in lines if l["event"] == "final"][-1]
epochs = [l["epoch_s"] for l in lines if l["event"] == "epoch"]
peaks = final.get("peak_resident_bytes", [0])
estimates = [e for e in final.get("estimated_bytes", []) if e > 0]
vertices = int(sys.argv[2].split(",")[2])
fields = [
    f"{max(peaks) / 1e6:.1f}",
    f"{sum(peaks) / 1e6:.1f}",
    f"{max(estimates) / 1e6:.1f}" if estimates else "",
    f"{sum(peaks) / vertices:.0f}",
    f"{statistics.median(epochs[1:] or epochs):.4f}",
    f"{final['test_acc']:.4f}",
    "",
]
print(sys.argv[2] + "," + ",".join(fields))
