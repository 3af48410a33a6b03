"""The README's figures of peak memory (benchmarks/memory.sh): bytes per vertex before and
after, the estimate against the measured peak, and what --recompute and --storage bf16
cost."""
import statistics

from figure_base import f, markdown, pct, table

GRAPH_NAMES = {"sbm1000k": "SBM 1M", "sbm4000k": "SBM 4M"}
FLAGS = {"default": "", "recompute": " --recompute", "bf16": " --storage bf16"}


def rows(**match):
    return table("memory.csv").where(**match)


def graph_name(graph):
    if graph.startswith("rmat"):
        return f"R-MAT {int(graph[4:-1]) // 1000}M" if int(graph[4:-1]) >= 1000 else graph
    return GRAPH_NAMES.get(graph, graph)


def ratio(r):
    """Measured / estimate of the fullest rank, where there is an estimate."""
    if not r["estimate_mb_max"]:
        return "none"
    return f"{float(r['peak_mb_max']) / float(r['estimate_mb_max']):.2f}"


def gib(megabytes):
    return f"{float(megabytes) * 1e6 / 2**30:.2f} GiB"


def fig_memory__source():
    return table("memory.csv").source()


def fig_memory__rmat():
    out = []
    for r in rows(section="rmat"):
        variant = r["build"] + FLAGS[r["variant"]]
        if r["skipped"]:
            out.append([graph_name(r["graph"]), variant, r["skipped"], "", "", "", ""])
            continue
        out.append([graph_name(r["graph"]), variant, f"{float(r['peak_mb_max']):,.0f}",
                    gib(r["peak_mb_max"]), f"{int(r['bytes_per_vertex']):,}", ratio(r),
                    f(r["epoch_s"], 3)])
    return markdown(["graph", "build", "peak MB", "peak", "bytes per vertex",
                     "measured / estimate", "epoch s"], out)


def sbm_cell(r):
    if r is None:
        return "not run"
    if r["skipped"]:
        return f"skipped ({r['skipped']})"
    return f"{int(r['bytes_per_vertex']):,} ({float(r['peak_mb_max']):,.0f} MB)"


def sbm_rows(**match):
    """The SBM section's rows: memory_sbm.csv's (STRATA_MEMORY_ONLY=sbm, or a whole run),
    but for a build it has no rows of (before), those of memory.csv's last whole run."""
    own = table("memory_sbm.csv").where(section="sbm", **match)
    if own or match.get("build") != "before":
        return own
    return rows(section="sbm", **match)


def fig_memory__sbm_source():
    before = table("memory_sbm.csv").where(build="before")
    source = table("memory_sbm.csv").source()
    if before:
        return source
    return f"after: {source}; before: {fig_memory__source()}'s run"


def fig_memory__sbm():
    out = []
    keys = dict.fromkeys((r["graph"], r["mode"], r["P"]) for r in sbm_rows())
    for graph, mode, p in keys:
        cells = []
        for build, variant in (("before", "default"), ("after", "default"), ("after", "bf16")):
            found = sbm_rows(graph=graph, mode=mode, P=p, build=build, variant=variant)
            cells.append(sbm_cell(found[0] if found else None))
        after = sbm_rows(graph=graph, mode=mode, P=p, build="after", variant="default")
        estimate = ratio(after[0]) if after and not after[0]["skipped"] else ""
        name = "hybrid 2x2" if mode == "hybrid" else mode
        out.append([GRAPH_NAMES.get(graph, graph), name, p] + cells + [estimate])
    return markdown(["graph", "mode", "P", "before: bytes per vertex, all ranks (fullest rank)",
                     "after: bytes per vertex, all ranks (fullest rank)",
                     "after, --storage bf16",
                     "after: measured / estimate, fullest rank"], out)


def recompute_runs(variant):
    return rows(section="recompute", variant=variant)


def fig_memory__recompute():
    out = []
    for variant in ("default", "recompute", "bf16"):
        runs = recompute_runs(variant)
        acc = [float(r["test_acc"]) for r in runs]
        out.append([FLAGS[variant].strip() or "kept in fp32 (default)",
                    f"{pct(statistics.mean(acc))} (worst {pct(min(acc))}, {len(acc)} seeds)",
                    f(statistics.median(float(r["epoch_s"]) for r in runs), 4),
                    f"{statistics.median(float(r['peak_mb_max']) for r in runs):,.0f}"])
    return markdown(["aggregations", "test accuracy, mean", "epoch s (median of runs)",
                     "peak MB"], out)


def cost(variant):
    """An option's epoch time against the default's, and how each seed's accuracy moved."""
    t = {v: statistics.median(float(r["epoch_s"]) for r in recompute_runs(v))
         for v in ("default", variant)}
    moves = [float(b["test_acc"]) - float(a["test_acc"])
             for a, b in zip(recompute_runs("default"), recompute_runs(variant))]
    if all(m == 0 for m in moves):
        effect = "every seed to the same test accuracy"
    else:
        mean = statistics.mean(moves)
        effect = (f"test accuracy {'+' if mean >= 0 else '-'}{abs(mean) * 100:.2f} points on "
                  f"average (seeds from {min(moves) * 100:+.2f} to {max(moves) * 100:+.2f})")
    return f"{t[variant] / t['default']:.2f}x the epoch time, {effect}"


def fig_memory__recompute_cost():
    return cost("recompute")


def fig_memory__bf16_cost():
    return cost("bf16")


def fig_memory__load():
    parts = []
    for graph in dict.fromkeys(r["graph"] for r in rows(section="load")):
        peak = {r["build"]: float(r["peak_mb_max"]) for r in rows(section="load", graph=graph)}
        before = f"{peak['before']:,.0f} MB before, " if "before" in peak else ""
        parts.append(f"{graph_name(graph)} {before}{peak['after']:,.0f} MB after")
    return "; ".join(parts)


def graph_run(variant):
    """memory_graph.csv's graph-mode run and partition row of one partitioner."""
    t = table("memory_graph.csv")
    return t.one(section="rmat-graph", variant=variant), t.one(section="partition", variant=variant)


def partition_cost(part):
    return (f"peaked at {float(part['peak_mb_max']) / 1e3:.1f} GB and took "
            f"{float(part['epoch_s']) / 60:.1f} minutes")


def fig_memory__graph():
    run, part = graph_run("default")
    return (f"{graph_name(run['graph'])} in graph mode on 2 ranks from shards: "
            f"{float(run['peak_mb_max']):,.0f} MB on the fuller rank, "
            f"{float(run['peak_mb_sum']) / 1e3:.1f} GB in all (measured / estimate {ratio(run)}), "
            f"3 epochs of {f(run['epoch_s'], 1)} s; writing the shards (`strata partition`, "
            f"METIS) {partition_cost(part)} (source: {table('memory_graph.csv').source()})")


def fig_memory__graph_fennel():
    run, part = graph_run("fennel")
    metis, _ = graph_run("default")
    return (f"Fennel's shards (`--method fennel`): writing them {partition_cost(part)}; trained "
            f"from them, {float(run['peak_mb_max']):,.0f} MB on the fuller rank, epochs of "
            f"{f(run['epoch_s'], 1)} s against {f(metis['epoch_s'], 1)} s from METIS's "
            f"(source: {table('memory_graph.csv').source()})")


def fig_memory__adjacency_source():
    return table("memory_adjacency.csv").source()


def adjacency_cell(r):
    return (f"{float(r['peak_mb_max']):,.0f} MB ({int(r['bytes_per_vertex']):,}), "
            f"{f(r['epoch_s'], 3)} s")


def fig_memory__adjacency():
    """Â stored against formed from its degrees, run for run: the fullest rank's peak (bytes
    a vertex over all ranks) and epoch time each way, and what the degrees save and cost."""
    t = table("memory_adjacency.csv")
    out = []
    for r in t.where(section="adjacency"):
        if r["variant"] not in ("default", "recompute"):
            continue
        pair = "degrees" if r["variant"] == "default" else "recompute-degrees"
        d = t.one(section="adjacency", graph=r["graph"], mode=r["mode"], P=r["P"], variant=pair)
        saved = 1 - float(d["bytes_per_vertex"]) / float(r["bytes_per_vertex"])
        slower = float(d["epoch_s"]) / float(r["epoch_s"])
        name = "hybrid 2x2" if r["mode"] == "hybrid" else r["mode"]
        out.append([graph_name(r["graph"]), name, r["P"], FLAGS[r["variant"]].strip() or "",
                    adjacency_cell(r), adjacency_cell(d), pct(saved, 1), f"{slower:.2f}x",
                    ratio(d)])
    return markdown(["graph", "mode", "P", "also", "Â stored: fullest rank (bytes per vertex), epoch",
                     "--adjacency degrees", "memory saved", "epoch time", "measured / estimate"],
                    out)


def fig_memory__history_source():
    return table("memory_history.csv").source()


def history_rows(**match):
    return table("memory_history.csv").where(section="history", **match)


def fig_memory__history():
    """A chunked pipeline: fp32, --storage bf16 before its history was stored (aggregations
    only) and after, per SBM graph and rank count: bytes a vertex over all ranks and the
    fullest rank's peak."""
    out = []
    keys = dict.fromkeys((r["graph"], r["P"]) for r in history_rows() if r["graph"] != "physics")
    for graph, p in keys:
        fp32, before, after = (history_rows(graph=graph, P=p, build=b, variant=v)[0]
                               for b, v in (("after", "default"), ("before", "bf16"),
                                            ("after", "bf16")))
        saved_all = 1 - float(after["peak_mb_sum"]) / float(before["peak_mb_sum"])
        saved_max = 1 - float(after["peak_mb_max"]) / float(before["peak_mb_max"])
        out.append([graph_name(graph), p, sbm_cell(fp32), sbm_cell(before), sbm_cell(after),
                    pct(saved_all, 1), pct(saved_max, 1), f(after["epoch_s"], 2),
                    f(before["epoch_s"], 2), ratio(after)])
    return markdown(["graph", "P", "fp32: bytes per vertex, all ranks (fullest rank)",
                     "--storage bf16, before (aggregations)", "--storage bf16 (history too)",
                     "saved, all ranks", "saved, fullest rank", "epoch s", "before: epoch s",
                     "measured / estimate"], out)


def fig_memory__history_accuracy():
    out = []
    for p in dict.fromkeys(r["P"] for r in history_rows(graph="physics")):
        for build, variant, name in (("after", "default", "fp32 (default)"),
                                     ("before", "bf16", "--storage bf16, before (aggregations)"),
                                     ("after", "bf16", "--storage bf16 (history too)")):
            runs = history_rows(graph="physics", P=p, build=build, variant=variant)
            acc = [float(r["test_acc"]) for r in runs]
            out.append([p, name,
                        f"{pct(statistics.mean(acc))} (worst {pct(min(acc))}, {len(acc)} seeds)",
                        f(statistics.median(float(r["epoch_s"]) for r in runs), 4),
                        f"{statistics.median(float(r['peak_mb_sum']) for r in runs):,.1f}"])
    return markdown(["P", "storage", "test accuracy, mean", "epoch s (median of runs)",
                     "peak MB, all ranks (median of runs)"], out)
