#!/usr/bin/env python3
"""The README's figures, made from the CSVs in benchmarks/results/.

Every figure of README.md that comes from a benchmark sits between two tags in the
Markdown source (invisible when rendered):

    <!-- fig:NAME -->TEXT<!-- /fig -->          (inline, or around a whole table)

and NAME is a function of this file, figures_training.py, figures_network.py, figures_plan.py,
figures_profile.py, figures_memory.py or figures_compression.py (FIGURES below) that makes
TEXT from the CSVs (figure_base.py reads them).

    python3 benchmarks/figures.py check [README]   exit 1, naming each figure that differs
                                                   from what its CSV gives (make test runs it)
    python3 benchmarks/figures.py write [README]   rewrite every tagged figure from the CSVs
    python3 benchmarks/figures.py list             the figures and the CSVs they read

After a benchmark rewrites a CSV, `write` updates the README and `git diff` shows what
moved. A tag whose name is not here, a figure here that the README does not use, and a
CSV without its "# ... commit ...; date" header are errors too.
"""
import re
import statistics
import sys
from pathlib import Path

import figure_base
from figure_base import RESULTS, TAG, f, markdown, mb, pct, span, table
from figures_compression import *  # noqa: F401,F403 (their fig_ functions join FIGURES)
from figures_memory import *  # noqa: F401,F403
from figures_network import *  # noqa: F401,F403
from figures_plan import *  # noqa: F401,F403
from figures_profile import *  # noqa: F401,F403
from figures_training import *  # noqa: F401,F403


# --- threads per rank (threads.csv) -------------------------------------------------------

def threads_median(build, omp):
    t = table("threads.csv")
    return statistics.median(float(r["epoch_s"]) for r in t.where(build=build, omp_num_threads=omp))


def fig_threads__source():
    return table("threads.csv").source()


def fig_threads__before():
    b, one = threads_median("before", "unset"), threads_median("before", "1")
    return f"{b:.3f} s (against {one:.4f} s with `OMP_NUM_THREADS=1`, {b / one:.0f}x slower)"


def fig_threads__after():
    a, one = threads_median("after", "unset"), threads_median("after", "1")
    return f"{a:.4f} s ({a / one:.2f} times the {one:.4f} s with `OMP_NUM_THREADS=1`)"


def fig_threads__table():
    rows = []
    for build in ("before", "after"):
        unset, one = threads_median(build, "unset"), threads_median(build, "1")
        line = table("threads.csv").where(build=build, omp_num_threads="unset")[0]["threads_line"]
        rows.append([build, f"{unset:.4f}", f"{one:.4f}", f"{unset / one:.2f}",
                     line.replace(";", ",") if build == "after" else "(not printed)"])
    return markdown(["build", "epoch s, OMP_NUM_THREADS unset", "epoch s, OMP_NUM_THREADS=1",
                     "unset / 1", "threads line"], rows)


# --- lines per folder (lines.csv) ----------------------------------------------------------

FOLDERS = {
    "core": "errors and check macros, devices and the device memory pool, matrices, sections",
    "graph": "CSR, builders, normalisations (GCN's Â, the mean Ā)",
    "datasets": "OGB, edge lists, the binary cache, SBM and R-MAT",
    "partition": "METIS, random, range, RCM, chunks, local graphs with halo plans",
    "kernels": "`backend.h`, the one kernel interface; `cpu/` and `cuda/` behind it",
    "layers": "the models on the backend: a registry of model types and their stages",
    "comm": "the Communicator interface; MPI, NCCL, device-staging, in-process; agreement on failure",
    "shards": "per-rank shards: write, read, validate, scatter, assemble",
    "plan": "what a layout costs: comm volume, memory estimate, stage split",
    "store": "checkpoints and weights files",
    "training": "the one engine: row layouts, halo exchange, stage passes, the rank trainer, the loop",
    "facade+include": "the embeddable library (the only public headers)",
    "cli": "the `strata` binary",
}


def fig_lines__source():
    return f"commit {table('lines.csv').commit}"


def fig_lines__table():
    t = table("lines.csv")
    total = sum(int(r["lines"]) for r in t.rows)
    rows = []
    for r in t.rows:
        name = "`facade/` + `include/strata/`" if r["folder"] == "facade+include" else f"`{r['folder']}/`"
        n = int(r["lines"])
        rows.append([name, FOLDERS[r["folder"]], f"{n:,}", f"{round(100 * n / total)}%"])
    return markdown(["folder", "what it is", "lines", "share"], rows)


# --- the performance table (pyg_compare, kernels, comm_ratio, end_to_end, pipeline_vs_graph)

def pyg(model):
    return table("pyg_compare.csv").one(model=model)


def kernel(graph, width, kind="spmm"):
    return table("kernels.csv").one(kind=kind, graph=graph, kernel="tiled", against="baseline",
                                    width=width)


def gemm_range():
    g = [float(r["GFLOPs"]) for r in table("kernels.csv").where(kind="gemm")
         if "100000" in r["width"]]
    return f"{min(g):.0f}-{max(g):.0f} GFLOP/s"


def ratios(dataset, model):
    t = table("comm_ratio.csv")
    ratio = lambda r: float(r["graph_bytes"]) / float(r["pipeline_bytes"])
    return " / ".join(f"{ratio(t.one(dataset=dataset, model=model, ranks=4, layers=l)):.2f}" for l in (8, 16, 32))


def measured_runs():
    """(runs whose bytes equal the prediction, distributed runs) of end_to_end and pipeline_vs_graph."""
    runs = [r for r in table("end_to_end.csv").rows if r["mode"] != "local" and not r["skipped"]]
    runs += table("pipeline_vs_graph.csv").rows
    return sum(r["bytes_per_epoch"] == r["predicted_bytes"] for r in runs), len(runs)


def fig_performance__table():
    gcn, gcnii = pyg("gcn"), pyg("gcnii")
    stream = float(kernel("rmat", 64)["stream_GBps"])
    equal, runs = measured_runs()
    k = lambda g, w: f"{f(kernel(g, w)['stream_frac'], 2)} / {f(kernel(g, w)['stream_frac_gather'], 2)}"
    rows = [
        [f"epoch time, PyG / Strata, coauthor_physics, {gcn['threads']} threads each (`pyg_compare.sh`, {table('pyg_compare.csv').source()})",
         f"2-layer GCN **{f(gcn['pyg_over_strata_time'], 1)}x** ({f(gcn['pyg_epoch_s'], 3)} / {f(gcn['strata_epoch_s'], 3)} s); "
         f"16-layer GCNII **{f(gcnii['pyg_over_strata_time'], 1)}x** ({f(gcnii['pyg_epoch_s'], 3)} / {f(gcnii['strata_epoch_s'], 3)} s)"],
        ["peak memory, PyG / Strata",
         f"GCN {float(gcn['pyg_peak_mb']):,.0f} / {float(gcn['strata_peak_mb']):,.0f} MB ({f(gcn['pyg_over_strata_mem'], 1)}x); "
         f"GCNII {float(gcnii['pyg_peak_mb']):,.0f} / {float(gcnii['strata_peak_mb']):,.0f} MB ({f(gcnii['pyg_over_strata_mem'], 1)}x); "
         f"importing torch alone takes {float(gcn['pyg_import_mb']):,.0f} MB"],
        ["test accuracy, Strata / PyG",
         f"GCN {pct(gcn['strata_test_acc'], 1)} / {pct(gcn['pyg_test_acc'], 1)}; GCNII {pct(gcnii['strata_test_acc'], 1)} / {pct(gcnii['pyg_test_acc'], 1)}"],
        [f"SpMM at width 64, fraction of STREAM ({stream:.1f} GB/s, same run; `kernels.sh`, {table('kernels.csv').source()})",
         f"R-MAT 2^20 vertices: {f(kernel('rmat', 64)['stream_frac'], 2)} counting compulsory bytes, "
         f"{f(kernel('rmat', 64)['stream_frac_gather'], 2)} counting one X row per edge; coauthor_physics: {k('physics', 64)} (X fits in L3)"],
        ["SpMM at width 256", f"R-MAT {k('rmat', 256)}; coauthor_physics {k('physics', 256)}"],
        ["GEMM (OpenBLAS)", f"{gemm_range()} at 100000x256x256"],
        [f"bytes per epoch, graph / pipeline, 4 ranks, GCNII hidden 64 (`comm_sweep.sh`, {table('comm_ratio.csv').source()})",
         f"L = 8 / 16 / 32: physics {ratios('coauthor_physics', 'gcnii')}; CS {ratios('coauthor_cs', 'gcnii')}; "
         f"Computers {ratios('amazon_computers', 'gcnii')}; Tolokers {ratios('tolokers', 'gcnii')}"],
        ["same, GCN", f"physics {ratios('coauthor_physics', 'gcn')}"],
        ["measured bytes against predicted",
         (f"equal in all {runs}" if equal == runs else f"equal in {equal} of {runs}") +
         " distributed runs of `end_to_end.sh` and `pipeline_vs_graph.sh`"],
    ]
    return markdown(["measurement", "result"], rows)


# --- engine_compare.csv ---------------------------------------------------------------------

def fig_engine_compare__source():
    t = table("engine_compare.csv")
    rounds = len(t.where(mode="local", model="gcn"))
    return f"commit {t.commit}, {t.date}, {rounds} rounds"


def fig_engine_compare__table():
    t = table("engine_compare.csv")
    rows = []
    for mode, model, layers, label in (("local", "gcn", 2, "GCN, 2 layers"), ("local", "gcnii", 16, "GCNII, 16 layers"),
                                       ("graph", "gcn", 2, "GCN, 2 layers"), ("graph", "gcnii", 16, "GCNII, 16 layers")):
        r = t.where(mode=mode, model=model, layers=layers)
        before = statistics.median(float(x["before_epoch_s"]) for x in r)
        after = statistics.median(float(x["after_epoch_s"]) for x in r)
        rows.append([mode if mode == "local" else "graph, 2 ranks", label, f"{before:.4f}", f"{after:.4f}",
                     f"{after / before:.2f}"])
    return markdown(["mode", "model", "before (s per epoch)", "after", "after / before"], rows)


# --- end_to_end.csv, end_to_end_memory.csv ---------------------------------------------------

E2E_NAMES = {"physics": "physics", "sbm1000k": "SBM 1M", "sbm4000k": "SBM 4M"}


def fig_end_to_end__source():
    return table("end_to_end.csv").source()


def fig_end_to_end__table():
    rows = []
    for r in table("end_to_end.csv").rows:
        if r["skipped"]:
            continue
        mode = "hybrid 2x2" if r["mode"] == "hybrid" else r["mode"]
        epoch = float(r["epoch_s"])
        rows.append([E2E_NAMES[r["dataset"]], mode, r["P"], f"{epoch:.3f}" if epoch < 1 else f"{epoch:.3g}",
                     f"{r['epoch_reaching_target']} / {float(r['train_s_to_target']):.3g}",
                     pct(r["test_acc"], 1), f"{float(r['max_peak_mb']):,.0f}"])
    return markdown(["graph", "mode", "P", "epoch s", "epochs / s to target", "test acc", "peak MB per rank"], rows)


def fig_end_to_end__skips():
    skipped = [r for r in table("end_to_end.csv").rows if r["skipped"]]
    limit = re.search(r"limit ([0-9.]+ GiB)", skipped[0]["skipped"]).group(1)
    need = {(r["mode"], r["P"]): re.search(r"~([0-9.]+) GiB", r["skipped"]).group(1) for r in skipped}
    return (f"{limit} (80% of this machine's memory) with all ranks on one host (graph P = 2 needs about "
            f"{need[('graph', '2')]} GiB, pipeline P = 4 about {need[('pipeline', '4')]} GiB)")


def fig_end_to_end__memory():
    rows = [r for r in table("end_to_end_memory.csv").rows if r["estimated_mb"]]
    worst = max(abs(float(r["peak_mb"]) / float(r["estimated_mb"]) - 1) for r in rows)
    return (f"The per-stage memory estimate was within {round(100 * worst)}% of the measured peak on every "
            f"pipeline and hybrid rank.")


def fig_end_to_end__speedup():
    t = table("end_to_end.csv")
    s = lambda d: float(t.one(dataset=d, mode="local")["epoch_s"]) / float(t.one(dataset=d, mode="graph", P=2)["epoch_s"])
    return f"{s('sbm1000k'):.2f}x (SBM 1M) and {s('physics'):.2f}x (physics)"


# --- pyg_compare.csv ---------------------------------------------------------------------------

def fig_pyg__source():
    return table("pyg_compare.csv").source()


def fig_pyg__gcn_ratio():
    return f"{f(pyg('gcn')['pyg_over_strata_time'], 1)}x"


def fig_pyg__gcnii_ratio():
    return f"{f(pyg('gcnii')['pyg_over_strata_time'], 1)}x"


def fig_pyg__conv_models():
    rows = []
    for model, name in (("sage", "GraphSAGE"), ("gin", "GIN"), ("gat", "GAT (8 heads of 8)")):
        r = pyg(model)
        rows.append([f"2-layer {name}", f"{f(r['strata_epoch_s'], 3)} s", f"{f(r['pyg_epoch_s'], 3)} s",
                     f"**{f(r['pyg_over_strata_time'], 1)}x**",
                     f"{float(r['strata_peak_mb']):,.0f} / {float(r['pyg_peak_mb']):,.0f} MB",
                     f"{pct(r['strata_test_acc'], 1)} / {pct(r['pyg_test_acc'], 1)}"])
    return markdown(["model", "Strata epoch", "PyG epoch", "PyG / Strata", "peak, Strata / PyG",
                     "test accuracy, Strata / PyG (seed 0)"], rows)


# --- kernels.csv -------------------------------------------------------------------------------

def fig_kernels__source():
    return table("kernels.csv").source()


def fig_kernels__gather_rmat():
    g = table("kernels.csv").where(kind="gather", graph="rmat")
    return (f"{span([float(r['GBps_gather']) for r in g], 1, ' GB/s')} "
            f"({span([float(r['stream_frac']) for r in g], 2)}")


def fig_kernels__spmm_rmat_gather():
    s = [float(r["GBps_gather"]) for r in table("kernels.csv").where(kind="spmm", graph="rmat", against="baseline")]
    return span(s, 0, " GB/s")


def fig_kernels__rcm():
    t = table("kernels.csv")
    r = [float(t.one(kind="spmm", graph="rmat_rcm", width=w)["vs_ref"]) for w in (16, 64)]
    p = [float(t.one(kind="spmm", graph="physics_rcm", width=w)["vs_ref"]) for w in (64, 256)]
    return f"{span(r, 2, 'x')} at widths 16 and 64 (R-MAT) and {span(p, 2, 'x')} at 64 and 256 (physics)"


def fig_kernels__physics():
    rows = [r for r in table("kernels.csv").where(kind="spmm", graph="physics", against="baseline")
            if int(r["width"]) <= 128]
    return (f"{span([float(r['stream_frac_gather']) for r in rows], 1, 'x')} STREAM, compulsory "
            f"{span([float(r['stream_frac']) for r in rows], 2)}")


def fig_kernels__vs_ref():
    rows = table("kernels.csv").where(kind="spmm", graph="rmat", against="baseline")
    stream = float(rows[0]["stream_GBps"])
    return (f"{span([float(r['vs_ref']) for r in rows], 1, 'x')} faster at widths 16 to 512; "
            f"{span([float(r['GBps_compulsory']) for r in rows], 1, ' GB/s')} counting CSR, X and Y once, and "
            f"{span([float(r['GBps_gather']) for r in rows], 0, ' GB/s')} counting every gathered row of X, against a "
            f"STREAM triad of {stream:.1f} GB/s in the same run ({span([float(r['stream_frac_gather']) for r in rows], 2)} "
            f"of STREAM)")


def fig_kernels__gemm():
    return gemm_range()


def fig_kernels__factored():
    """Â formed from its degrees against Â stored (--adjacency degrees), speed ratio by graph."""
    return scaled_speed("factored")


def fig_kernels__rowscaled():
    """GraphSAGE's mean as a scale a row against its values stored."""
    return scaled_speed("rowscaled")


def scaled_speed(kernel):
    t = table("kernels.csv")
    parts = []
    for graph, name in (("rmat", "R-MAT"), ("physics", "coauthor_physics")):
        rows = t.where(kind="spmm", graph=graph, kernel=kernel, against="stored")
        if rows:
            widths = "/".join(r["width"] for r in rows)
            parts.append(f"{span([float(r['vs_ref']) for r in rows], 2, 'x')} on {name} "
                         f"(widths {widths})")
    return " and ".join(parts)


# --- loading.csv -------------------------------------------------------------------------------

def fig_loading__source():
    return table("loading.csv").source()


def fig_loading__figures():
    t = table("loading.csv")
    gz, cache = t.where(source="gzip"), t.where(source="cache")
    g = [float(r["wall_s"]) for r in gz]
    c = [float(r["wall_s"]) for r in cache]
    return (f"`strata info` {span(c, 2, ' s')} from the cache against {span(g, 1, ' s')} from gzip, about "
            f"{statistics.median(g) / statistics.median(c):.0f}x; peak memory "
            f"{statistics.median(float(r['peak_mb']) for r in cache):.0f} MB against "
            f"{statistics.median(float(r['peak_mb']) for r in gz):.0f} MB")


# --- pipeline_vs_graph.csv ---------------------------------------------------------------------

def fig_pipeline_vs_graph__source():
    return table("pipeline_vs_graph.csv").source()


def fig_pipeline_vs_graph__table():
    t = table("pipeline_vs_graph.csv")
    rows = []
    for layers in (8, 16, 32):
        g, p = t.one(mode="graph", layers=layers), t.one(mode="pipeline", layers=layers)
        ratio = float(g["bytes_per_epoch"]) / float(p["bytes_per_epoch"])
        rows.append([layers, f"{mb(g['bytes_per_epoch'])} / {mb(p['bytes_per_epoch'])}", f"{ratio:.2f}x",
                     f"{f(g['epoch_s'], 2)} / {f(p['epoch_s'], 2)}", f"{f(g['comm_s'], 2)} / {f(p['comm_s'], 2)}",
                     f"{f(g['train_s_to_target'], 1)} s ({g['epoch_reaching_target']} epochs) / "
                     f"{f(p['train_s_to_target'], 1)} s ({p['epoch_reaching_target']} epochs)",
                     f"{pct(g['test_acc'], 1)} / {pct(p['test_acc'], 1)}"])
    return markdown(["layers", "MB per epoch, graph / pipeline", "ratio", "epoch s, graph / pipeline",
                     "wait s, graph / pipeline", "to val 0.95, graph / pipeline", "test acc, graph / pipeline"], rows)


def fig_pipeline_vs_graph__network():
    t = table("pipeline_vs_graph.csv")
    g, p = t.one(mode="graph", layers=32), t.one(mode="pipeline", layers=32)
    sec = lambda b: float(b) * 8 / 10e9
    slower = [float(t.one(mode="pipeline", layers=l)["epoch_s"]) / float(t.one(mode="graph", layers=l)["epoch_s"]) - 1
              for l in (8, 16, 32)]
    return (f"graph mode's {mb(g['bytes_per_epoch'], 0)} MB at 32 layers is {sec(g['bytes_per_epoch']):.2f} s of "
            f"transfer per epoch against the pipeline's {sec(p['bytes_per_epoch']):.3f} s (here its epochs are "
            f"{span([100 * s for s in slower], 0, '%')} slower)")


# --- hybrid_memory.csv and hybrid_memory_layouts.txt ----------------------------------------------

def fig_hybrid_memory__source():
    return table("hybrid_memory.csv").source()


def fig_hybrid_memory__layouts():
    text = (RESULTS / "hybrid_memory_layouts.txt").read_text()
    mem = {m.group(1): float(m.group(2)) for m in re.finditer(r"^\w+ +\d+ +(\dx\d) +\w+ +[0-9.]+ +([0-9.]+)", text, re.M)}
    return (f"{mem['4x1']:.0f} MB per rank for 4 x 1 (pipeline; does not fit), {mem['2x2']:.0f} MB for 2 x 2 and "
            f"{mem['1x4']:.0f} MB for 1 x 4")


def fig_hybrid_memory__table():
    t = table("hybrid_memory.csv")
    rows = []
    for mode, label in (("pipeline", "pipeline 4 x 1"), ("hybrid", "hybrid 2 x 2")):
        r = t.where(mode=mode)
        rows.append([label, ", ".join(f"{float(x['peak_resident_mb']):.0f}/{float(x['estimated_mb']):.0f}" for x in r),
                     f(r[0]["bytes_per_epoch_mb"], 1), f(r[0]["epoch_s"], 2)])
    return markdown(["layout", "peak resident per rank, MB (measured / estimated)", "MB per epoch", "epoch s"], rows)


def fig_hybrid_memory__error():
    t = table("hybrid_memory.csv")
    err = lambda r: float(r["peak_resident_mb"]) / float(r["estimated_mb"]) - 1
    rest = [abs(err(r)) for r in t.rows if not (r["mode"] == "pipeline" and r["rank"] == "0")]
    first = -err(t.one(mode="pipeline", rank=0))
    return (f"within {round(100 * max(rest))}% here; the first pipeline stage is overestimated by "
            f"{round(100 * first)}%")


# --- comm_table.csv ------------------------------------------------------------------------------

def fig_comm_table__source():
    return table("comm_table.csv").source()


def fig_comm_table__table():
    t = table("comm_table.csv")
    rows = []
    for layers in (2, 8, 16, 32):
        mb2 = lambda **m: mb(t.one(layers=layers, **m)["training"], 2)
        rows.append([layers, mb2(method="metis", mode="graph"), mb2(method="random", mode="graph"),
                     mb2(method="metis", mode="pipeline"), mb2(method="metis", mode="hybrid"),
                     mb2(method="random", mode="hybrid")])
    return markdown(["layers", "graph, METIS", "graph, random", "pipeline", "hybrid 2x2, METIS", "hybrid 2x2, random"], rows)


# --- comm_volume.csv -----------------------------------------------------------------------------

def fig_comm_sweep__random_over_metis():
    t = table("comm_volume.csv")
    r = []
    for model in ("gcn", "gcnii"):
        for layers in (8, 16, 32):
            b = lambda m: float(t.one(dataset="coauthor_physics", model=model, ranks=4, method=m, layers=layers,
                                      mode="graph")["training"])
            r.append(b("random") / b("metis"))
    return span(r, 1, "x")


# --- graph_mode.csv, graph_mode_partition.csv ------------------------------------------------------

def fig_graph_mode__source():
    return table("graph_mode.csv").source()


def fig_graph_mode__table():
    t = table("graph_mode.csv")
    names = {"physics": "physics (34k)", "rmat2097152": "R-MAT 2M (2,097,152 vertices, 21M edges)"}
    rows = []
    for d in ("physics", "rmat2097152"):
        short = "physics" if d == "physics" else "R-MAT 2M"
        digits = 3 if d == "physics" else 2
        fmt = lambda x: f"{float(x):.{digits}f}"
        one, two = t.one(dataset=d, P=1, omp_threads=1), t.one(dataset=d, P=1, omp_threads=2)
        rows.append([names[d], 1, "- (1 / 2 threads, bound to 1 core)", f"{fmt(one['epoch_s'])} / {fmt(two['epoch_s'])}",
                     f"{fmt(one['compute_s'])} / {fmt(two['compute_s'])}", 0, 0, f"1 / {f(two['speedup_vs_P1_t1'], 2)}"])
        for p in (2, 4):
            m, r = t.one(dataset=d, P=p, partitioner="metis"), t.one(dataset=d, P=p, partitioner="random")
            both = lambda k, fn: f"{fn(m[k])} / {fn(r[k])}"
            mbytes = (lambda x: f"{float(x) / 1e6:.1f}") if d == "physics" else (lambda x: f"{float(x) / 1e6:.0f}")
            rows.append([short, p, "METIS / random", both("epoch_s", fmt), both("compute_s", fmt),
                         both("comm_s", lambda x: f"{float(x):.3f}" if d == "physics" else f"{float(x):.2f}"),
                         both("training_bytes", mbytes), both("speedup_vs_P1_t1", lambda x: f(x, 2))])
    return markdown(["dataset", "P", "partitioner", "epoch s", "compute s", "comm wait s", "MB per epoch", "speed-up"], rows)


def fig_graph_mode__wait():
    t = table("graph_mode.csv")
    share = lambda d: [float(r["comm_s"]) / float(r["epoch_s"]) for r in t.where(dataset=d) if r["P"] != "1"]
    return (f"{span([100 * x for x in share('rmat2097152')], 0, '%')} of an R-MAT epoch and "
            f"{span([100 * x for x in share('physics')], 0, '%')} of a physics epoch")


def fig_graph_mode__two_ranks():
    return span([float(r["speedup_vs_P1_t1"]) for r in table("graph_mode.csv").where(P=2)], 2, "x")


def fig_graph_mode__balance():
    t = table("graph_mode_partition.csv")
    metis = t.where(method="metis")
    b = table("graph_mode_partition.csv").one(dataset="physics", P=2, method="metis")["boundary_pairs_B"]
    return (f"edge balance to {span([float(r['edge_balance']) for r in metis], 2)}, for a larger cut: on physics "
            f"B is {int(b):,} at P = 2 (8,103 with vertex balance only, in an earlier run not kept as a CSV)")


# --- determinism.csv --------------------------------------------------------------------------------

def fig_determinism__source():
    return table("determinism.csv").source()


def small(x):
    """2.14e-09 as 2.1e-9, 0 as 0."""
    x = float(x)
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def fig_determinism__table():
    rows = []
    for r in table("determinism.csv").rows:
        mode = r["base"].split("-")[0]
        what = r["what"]
        if what.startswith("local -> graph"):
            label = what.replace("local -> graph", "local -> graph mode")
        elif mode == "local":
            label = "local mode, 1 -> 2 OpenMP threads"
        elif what == "rerun":
            label = f"{mode} mode, rerun"
        elif what.startswith("threads"):
            label = f"{mode} mode, 1 -> 2 threads per rank"
        else:
            label = f"{mode} mode, 2 -> 4 ranks" + (" (stages; 4 chunks)" if mode == "pipeline" else "")
        rows.append([label, r["weights_bitwise_equal"], small(r["max_loss_difference"]), small(r["test_acc_difference"])])
    return markdown(["change", "weights bitwise equal", "largest per-epoch loss difference", "test accuracy difference"], rows)


# --- fuzz.csv -----------------------------------------------------------------------------------------

def fig_fuzz__source():
    return table("fuzz.csv").source()


def fig_fuzz__table():
    return markdown(["target", "executions", "corpus"],
                    [[r["target"], f"{int(r['executions']):,}", r["corpus"]] for r in table("fuzz.csv").rows])


FIGURES = {name[4:].replace("__", "."): fn for name, fn in globals().items() if name.startswith("fig_")}


def sources():
    used = {}
    for name, fn in FIGURES.items():
        figure_base._tables.clear()
        fn()
        used[name] = sorted(figure_base._tables)
    return used


def main(argv):
    command = argv[1] if len(argv) > 1 else "check"
    readme = Path(argv[2]) if len(argv) > 2 else Path(__file__).resolve().parent.parent / "README.md"
    if command == "list":
        for name, csvs in sources().items():
            print(f"{name}: {', '.join(csvs)}")
        return 0
    if command not in ("check", "write"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    text = readme.read_text()
    problems, seen = [], set()

    def replace(m):
        name, old = m.group(1), m.group(2)
        seen.add(name)
        if name not in FIGURES:
            problems.append(f"{readme}: <!-- fig:{name} --> is not a figure of benchmarks/figures.py")
            return m.group(0)
        new = FIGURES[name]()
        if new != old:
            said, gives = old.strip().splitlines() or [""], new.strip().splitlines() or [""]
            row = next((i for i, (a, b) in enumerate(zip(said, gives)) if a != b), min(len(said), len(gives)) - 1)
            where = f" (line {row + 1})" if len(gives) > 1 else ""
            problems.append(f"{readme}: figure {name}{where}: the README says {said[row]!r}, "
                            f"the CSV gives {gives[row]!r}")
        return f"<!-- fig:{name} -->{new}<!-- /fig -->"

    updated = TAG.sub(replace, text)
    unused = sorted(set(FIGURES) - seen)
    if command == "write":
        readme.write_text(updated)
        changed = [p for p in problems if "figure " in p]
        print(f"{readme}: {len(seen)} figures, {len(changed)} rewritten")
        problems = [p for p in problems if "figure " not in p]
    problems += [f"{readme}: figure {n} of benchmarks/figures.py is not used" for n in unused]
    for p in problems:
        print(p, file=sys.stderr)
    if command == "check" and not problems:
        print(f"{readme}: {len(seen)} figures match their CSVs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
