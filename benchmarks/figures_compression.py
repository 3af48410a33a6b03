"""The README's figures of compressed rows (--compress, benchmarks/compression.sh):
accuracy against float32 (compression_gaps.csv), the packing cost on its own
(compression_pack.csv) and time on the emulated cluster (compression_cluster.csv)."""
from figure_base import f, markdown, pct, planner_cell, run_cells, table

MODE_NAMES = {"graph": "graph, 2 ranks", "pipeline": "pipeline, 2 x 4 chunks",
              "hybrid": "hybrid, 2 x 2, 4 chunks"}


def fig_compression__source():
    return table("compression_gaps.csv").source()


def fig_compression__table():
    rows = []
    for r in table("compression_gaps.csv").rows:
        rows.append([r["dataset"], f"{r['model'].upper()} {r['layers']}", MODE_NAMES[r["mode"]],
                     r["format"], pct(r["float32_test_acc"]), pct(r["test_acc"]),
                     f"{r['mean_gap']} / {r['worst_gap']}",
                     f"{r['mean_gap_last10']} / {r['worst_gap_last10']}", f(r["bytes_ratio"], 3)])
    return markdown(["dataset", "model", "mode", "format", "float32", "format's", "gap, mean / worst",
                     "gap last 10 epochs", "bytes vs float32"], rows)


def fig_compression__pack_source():
    return table("compression_pack.csv").source()


def fig_compression__pack():
    rows = []
    for r in table("compression_pack.csv").rows:
        if r["format"] == "none":
            continue
        ms = lambda key: f(1e3 * float(r[key]), 2)
        rows.append([r["width"], r["format"], ms("encode_s"), ms("decode_s"), ms("extra_s"),
                     ms("saved_s_at_25gbit"), f(r["extra_over_saved"], 2)])
    return markdown(["width", "format", "encode ms", "decode ms", "beyond float32's ms",
                     "link ms saved at 25 Gbit/s", "cost / saving"], rows)


def fig_compression_cluster__source():
    return table("compression_cluster.csv").source()


CLUSTER_MODES = {"graph": "graph", "pipeline": "pipeline (exact)",
                 "pipeline_drop": "pipeline, `--stale-grad drop`"}


def fig_compression_cluster__table():
    rows = []
    for r in table("compression_cluster.csv").rows:
        fmt = next((c for c in ("int8", "bf16") if r["mode"].endswith("_" + c)), None)
        base = r["mode"][:-len(fmt) - 1] if fmt else r["mode"]
        rows.append([r["gbit"], CLUSTER_MODES[base], fmt or "float32", *run_cells(r),
                     planner_cell(r)])
    return markdown(["Gbit/s", "mode", "rows", "epoch s", "wait s", "MB per epoch", "to val 0.95",
                     "test acc", "fewest bytes"], rows)


def gaps(fmt, key, skip=None):
    return [float(r[key]) for r in table("compression_gaps.csv").rows
            if r["format"] == fmt and (r["dataset"], r["model"], r["layers"]) != skip]


def points(x):
    return f"{x:.2f} point" + ("" if abs(x) == 1 else "s")


def fig_compression__last10_bf16():
    return points(max(abs(g) for g in gaps("bf16", "mean_gap_last10")))


def fig_compression__last10_int8():
    return points(max(abs(g) for g in gaps("int8", "mean_gap_last10")))


def fig_compression__last10_worst():
    return points(-min(gaps("bf16", "worst_gap_last10") + gaps("int8", "worst_gap_last10")))


def fig_compression__best_int8():
    return points(max(abs(g) for g in gaps("int8", "mean_gap")))


CS_GCN4 = ("coauthor_cs", "gcn", "4")


def fig_compression__best_bf16():
    return points(max(abs(g) for g in gaps("bf16", "mean_gap", skip=CS_GCN4)))


def fig_compression__best_bf16_cs():
    r = table("compression_gaps.csv").one(dataset="coauthor_cs", model="gcn", layers=4,
                                          format="bf16")
    return f"{r['mean_gap']} on average, one seed {r['worst_gap']}"


def fig_compression__control_best():
    values = [float(r["gap"]) for r in table("compression_control.csv").rows]
    return f"{min(values):+.2f} to {max(values):+.2f}"


def fig_compression__control_last10():
    values = [float(r["gap_last10"]) for r in table("compression_control.csv").rows]
    return f"{min(values):+.2f} to {max(values):+.2f}"
