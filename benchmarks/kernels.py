#!/usr/bin/env python3
"""Turns bench_kernels' Google Benchmark CSV into one row per case: kind (spmm, gather, gemm),
graph, kernel and what it ran against, width, milliseconds (fastest iteration for SpMM),
GB/s under the compulsory and the gather traffic models, their fractions of the STREAM
triad measured in the same process, GFLOP/s, and the speed against the reference.
Usage: kernels.py RAW_CSV RAW_LOG OUT_CSV "header line"."""
import csv
import io
import re
import sys
from pathlib import Path

from bench_csv import write_csv

FIELDS = ["GBps_compulsory", "GBps_gather", "stream_GBps", "stream_frac", "stream_frac_gather",
          "GFLOPs", "vs_ref"]


def parse(name):
    parts = name.split("/")
    if parts[0] == "gemm":
        return {"kind": "gemm", "graph": "", "kernel": "openblas", "against": "",
                "width": parts[1]}
    if parts[0] == "gather":
        return {"kind": "gather", "graph": parts[1], "kernel": parts[2], "against": "",
                "width": int(parts[3])}
    kernel, against = parts[2].split("_vs_")
    return {"kind": "spmm", "graph": parts[1], "kernel": kernel, "against": against,
            "width": int(parts[3])}


def main():
    raw, log, out, header = sys.argv[1:5]
    text = Path(raw).read_text()
    start = text.index("name,")  # Google Benchmark may print context lines first
    rows = []
    for r in csv.DictReader(io.StringIO(text[start:])):
        if r.get("error_occurred") == "true":
            continue
        name = r["name"].removesuffix("/manual_time").removesuffix("/real_time")
        row = parse(name)
        row["ms"] = round(float(r["real_time"]), 3)
        row.update({f: round(float(r[f]), 4) for f in FIELDS})
        rows.append(row)
    threads = re.search(r"(\d+) threads", Path(log).read_text())
    write_csv(out, rows, f"{header}; {threads.group(1) if threads else '?'} OpenMP threads")


if __name__ == "__main__":
    main()
