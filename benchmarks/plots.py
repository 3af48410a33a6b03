#!/usr/bin/env python3
"""Draws the benchmark CSVs in RESULTS as PNGs with gnuplot: comm_vs_layers.png (bytes per
epoch against depth, per mode), epoch_vs_ranks.png (epoch time against ranks, per mode and
dataset), spmm_vs_width.png (SpMM GB/s against width, with the STREAM triad) and
pyg_vs_strata.png (epoch times of both), stale_grad_loss.png (training loss of one process
and the pipeline's stale-gradient rules, row-normalized features), cluster_vs_gbit.png
(on the emulated cluster, per mode: epoch time and time to the validation target against
the link rate, cluster_depth.csv) and plan_vs_measured.png (`strata plan`'s predicted
epoch times against measured ones, plan_check.csv). Usage: plots.py RESULTS"""
import csv
import subprocess
import sys
from pathlib import Path

MODES = ["graph", "pipeline", "hybrid", "local"]


def read(path):
    if not path.exists():
        return []
    return list(csv.DictReader(l for l in path.open() if not l.startswith("#")))


def table(path, rows):
    path.write_text("".join(" ".join(str(v) for v in r) + "\n" for r in rows))
    return path


def terminal(out, title, size="900,560"):
    return (f"set terminal pngcairo size {size} font 'sans,11'\nset output '{out}'\n"
            f"set title '{title}' noenhanced\nset key left top\nset grid\n")


def comm_plot(results, data):
    rows = read(results / "comm_volume.csv")
    dataset = next((d for d in ("coauthor_physics", "coauthor_cs", "sbm100k")
                    if any(r["dataset"] == d for r in rows)), None)
    if dataset is None:
        return None
    pick = [r for r in rows if r["dataset"] == dataset and r["model"] == "gcnii"
            and r["ranks"] == "4"]
    series = {"graph, METIS": ("graph", "metis"), "graph, random": ("graph", "random"),
              "pipeline": ("pipeline", "metis"), "hybrid 2x2, METIS": ("hybrid", "metis")}
    plots = []
    for label, (mode, method) in series.items():
        pts = [(int(r["layers"]), int(r["training"]) / 1e6) for r in pick
               if r["mode"] == mode and r["method"] == method]
        f = table(data / f"comm_{mode}_{method}.dat", sorted(pts))
        plots.append(f"'{f}' using 1:2 with linespoints lw 2 title '{label}'")
    measured = [(int(r["layers"]), int(r["bytes_per_epoch"]) / 1e6, r["mode"])
                for r in read(results / "pipeline_vs_graph.csv")]
    if measured and dataset == "coauthor_physics":
        f = table(data / "comm_measured.dat", [m[:2] for m in measured])
        plots.append(f"'{f}' using 1:2 with points pt 6 ps 2.5 lc rgb 'black' "
                     "title 'measured (pipeline_vs_graph.sh)' noenhanced")
    out = results / "comm_vs_layers.png"
    return terminal(out, f"{dataset}, GCNII hidden 64, 4 ranks: bytes per training epoch") + (
        "set logscale xy\nset xlabel 'layers'\nset ylabel 'MB per epoch (all ranks)'\n"
        "set xtics (2, 4, 8, 16, 32)\nplot " + ", ".join(plots) + "\n")


def epoch_plot(results, data):
    rows = [r for r in read(results / "end_to_end.csv") if r["epoch_s"]]  # not skipped
    if not rows:
        return None
    plots = []
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        local = [r for r in rows if r["dataset"] == dataset and r["mode"] == "local"]
        series = 0
        for mode in MODES[:3]:
            runs = [r for r in rows if r["dataset"] == dataset and r["mode"] == mode]
            if not runs:  # every distributed run of this graph was skipped
                continue
            pts = [(int(r["P"]), float(r["epoch_s"])) for r in local + runs]
            f = table(data / f"epoch_{dataset}_{mode}.dat", sorted(pts))
            plots.append(f"'{f}' using 1:2 with linespoints lw 2 title '{dataset} {mode}'")
            series += 1
        if local and series == 0:
            f = table(data / f"epoch_{dataset}_local.dat", [(1, float(local[0]["epoch_s"]))])
            plots.append(f"'{f}' using 1:2 with points pt 7 ps 1.5 "
                         f"title '{dataset} local (others skipped: memory)'")
    out = results / "epoch_vs_ranks.png"
    return terminal(out, "4-layer GCN, hidden 64: median epoch time (P = 1 is one process)") + (
        "set logscale y\nset xlabel 'ranks (one core each up to 2)'\nset ylabel 'seconds'\n"
        "set xtics (1, 2, 4)\nset key outside right\nplot " + ", ".join(plots) + "\n")


def spmm_plot(results, data):
    rows = [r for r in read(results / "kernels.csv")
            if r["kind"] == "spmm" and r["against"] == "baseline"]
    if not rows:
        return None
    plots = []
    for graph in dict.fromkeys(r["graph"] for r in rows):
        for model in ("compulsory", "gather"):
            pts = [(int(r["width"]), float(r[f"GBps_{model}"])) for r in rows if r["graph"] == graph]
            f = table(data / f"spmm_{graph}_{model}.dat", sorted(pts))
            plots.append(f"'{f}' using 1:2 with linespoints lw 2 title '{graph}, {model} bytes'")
    gathers = [r for r in read(results / "kernels.csv") if r["kind"] == "gather"]
    for graph, colour in zip(dict.fromkeys(r["graph"] for r in gathers), ("dark-red", "blue")):
        pts = [(int(r["width"]), float(r["GBps_gather"])) for r in gathers if r["graph"] == graph]
        f = table(data / f"gather_{graph}.dat", sorted(pts))
        plots.append(f"'{f}' using 1:2 with linespoints dt 3 lw 2 lc rgb '{colour}' "
                     f"title '{graph}: uniform random row gather'")
    stream = float(rows[0]["stream_GBps"])
    plots.append(f"{stream} with lines dt 2 lw 2 lc rgb 'black' title 'STREAM triad, same run'")
    out = results / "spmm_vs_width.png"
    return terminal(out, "SpMM (tiled kernel): bandwidth against feature width") + (
        "set logscale x 2\nset xlabel 'width (columns of X)'\nset ylabel 'GB/s'\n"
        "set yrange [0:*]\nset key outside right\nplot " + ", ".join(plots) + "\n")


def pyg_plot(results, data):
    rows = read(results / "pyg_compare.csv")
    if not rows:
        return None
    pts = [(i, r["model"], float(r["strata_epoch_s"]), float(r["pyg_epoch_s"]))
           for i, r in enumerate(rows)]
    f = table(data / "pyg.dat", pts)
    out = results / "pyg_vs_strata.png"
    return terminal(out, "coauthor_physics: median epoch time, same threads") + (
        "set style data histograms\nset style histogram clustered gap 1\n"
        "set style fill solid 0.8 border -1\nset ylabel 'seconds'\nset yrange [0:*]\n"
        f"plot '{f}' using 3:xtic(2) title 'Strata', '' using 4 title 'PyTorch Geometric'\n")


def stale_plot(results, data):
    rows = read(results / "pipeline_depth_curves.csv")
    if not rows:
        return None
    first = rows[0]
    labels = {"local": "one process", "pipeline": "pipeline 4x8, --stale-grad exact",
              "pipeline_drop": "pipeline 4x8, --stale-grad drop",
              "pipeline_delay": "pipeline 4x8, --stale-grad delay"}
    plots = []
    for variant, label in labels.items():
        pts = [(int(r["epoch"]), float(r["mean_loss"])) for r in rows
               if r["variant"] == variant and r["dataset"] == first["dataset"]
               and r["layers"] == first["layers"]]
        if pts:
            f = table(data / f"stale_{variant}.dat", pts)
            plots.append(f"'{f}' using 1:2 with lines lw 2 title '{label}'")
    out = results / "stale_grad_loss.png"
    title = (f"{first['dataset']}, row-normalized, GCNII {first['layers']} layers: "
             f"training loss, mean of {first['seeds']} seeds")
    return terminal(out, title) + (
        "set key right top\nset xlabel 'epoch'\nset ylabel 'training loss'\nplot " +
        ", ".join(plots) + "\n")


def cluster_plot(results, data):
    rows = read(results / "cluster_depth.csv")
    if not rows:
        return None
    out = results / "cluster_vs_gbit.png"
    script = terminal(out, "emulated cluster, 2 hosts, hidden 64", "1300,560") + (
        "set multiplot layout 1,2\nset logscale x\nset xlabel 'link Gbit/s'\n"
        "set xtics (1, 2, 4, 10, 25)\nset xrange [0.8:32]\nset yrange [0:*]\n"
        "set key outside bottom center maxrows 4\n")
    for column, label in (("epoch_s", "epoch s"), ("seconds_to_target", "s to val target")):
        plots = []
        for model, layers in dict.fromkeys((r["model"], r["layers"]) for r in rows):
            if model == "gcn":
                continue
            for mode in dict.fromkeys(r["mode"] for r in rows):
                pts = [(float(r["gbit"]), float(r[column])) for r in rows
                       if (r["model"], r["layers"], r["mode"]) == (model, layers, mode)
                       and r[column]]
                f = table(data / f"cluster_{column}_{model}{layers}_{mode}.dat", sorted(pts))
                plots.append(f"'{f}' using 1:2 with linespoints lw 2 "
                             f"title '{model.upper()} {layers} {mode}' noenhanced")
        script += f"set title '{label}' noenhanced\nset ylabel '{label}'\nplot " + ", ".join(
            plots) + "\n"
    return script + "unset multiplot\n"


def plan_plot(results, data):
    rows = read(results / "plan_check.csv")
    if not rows:
        return None
    out = results / "plan_vs_measured.png"
    plots = []
    for hosts, gbit in dict.fromkeys((r["hosts"], r["gbit"]) for r in rows):
        pts = [(float(r["measured_s"]), float(r["predicted_s"])) for r in rows
               if (r["hosts"], r["gbit"]) == (hosts, gbit)]
        f = table(data / f"plan_h{hosts}_g{gbit}.dat", pts)
        plots.append(f"'{f}' using 1:2 with points pt 7 ps 1.2 title '{hosts} hosts, {gbit} Gbit/s'")
    plots += ["x with lines lc 'black' title 'predicted = measured'",
              "1.25 * x with lines dt 2 lc 'gray' title '25% off'", "0.75 * x with lines dt 2 lc 'gray' notitle"]
    return terminal(out, "strata plan: predicted against measured epoch time, emulated cluster") + (
        "set logscale xy\nset xlabel 'measured s per epoch'\nset ylabel 'predicted s per epoch'\n"
        "set key left top\nset xrange [0.04:4]\nset yrange [0.04:4]\nplot " + ", ".join(plots) + "\n")


def main():
    results = Path(sys.argv[1])
    data = results / "plot_data"
    data.mkdir(exist_ok=True)
    for name, make in [("comm", comm_plot), ("epoch", epoch_plot), ("spmm", spmm_plot),
                       ("pyg", pyg_plot), ("stale", stale_plot), ("cluster", cluster_plot),
                       ("plan", plan_plot)]:
        script = make(results, data)
        if script is None:
            print(f"plot {name}: no data, skipped")
            continue
        (data / f"{name}.gp").write_text(script)
        subprocess.run(["gnuplot", str(data / f"{name}.gp")], check=True)
        print(f"plot {name}: {script.splitlines()[1].split(chr(39))[1]}")


if __name__ == "__main__":
    main()
