"""The README's accuracy figures: one process (accuracy.csv), the pipeline and hybrid modes
against it (pipeline_accuracy.csv, pipeline_depth.csv, hybrid_accuracy.csv), what the
stale-gradient rules cost (stale_grad_cost.csv), GCNII's depth (gcnii_depth.csv) and GraphSAGE
GIN and GAT beside PyG (model_accuracy.csv).
Collected by figures.py, which documents the figure mechanism."""
import statistics

from figure_base import markdown, mb, pct, span, table, f

# --- accuracy.csv ------------------------------------------------------------------------------

ACCURACY = [  # dataset, model, setting, reference
    ("cora", "gcn", "Cora", "public split, 2 layers, hidden 16, dropout 0.5, lr 0.01, wd 5e-4, 200 epochs", "81.5% (Kipf & Welling)"),
    ("citeseer", "gcn", "CiteSeer", "same settings", "70.3%"),
    ("coauthor_cs", "gcn", "Coauthor CS", "binarized features, hidden 64, split random_20_30_seed0", "91.1 ± 0.5% (Shchur et al.)"),
    ("cora", "sage", "Cora", "GraphSAGE (mean aggregator), public split, 2 layers, hidden 16, dropout 0.5, lr 0.01, wd 5e-4, 200 epochs",
     "PyG's SAGEConv at hidden 64: see below"),
]


def fig_accuracy__source():
    return table("accuracy.csv").source()


def fig_accuracy__table():
    rows = []
    for dataset, model, name, setting, reference in ACCURACY:
        r = table("accuracy.csv").where(dataset=dataset, model=model)
        acc = [float(x["test_acc"]) for x in r]
        rows.append([name, setting, f"**{pct(statistics.mean(acc))}**",
                     ", ".join(f"{100 * a:.1f}" for a in acc), reference])
    return markdown(["dataset", "setting", "mean test accuracy", "per seed", "reference"], rows)


# --- pipeline_accuracy.csv, hybrid_accuracy.csv, gcnii_depth.csv ---------------------------------

DATASET_NAMES = {"coauthor_cs": "Coauthor CS", "amazon_computers": "Amazon Computers"}


def fig_pipeline_accuracy__source():
    return table("pipeline_accuracy.csv").source()


def fig_pipeline_accuracy__table():
    t = table("pipeline_accuracy.csv")
    rows = []
    for d in ("coauthor_cs", "amazon_computers"):
        local = [float(r["test_acc"]) for r in t.where(dataset=d, variant="local")]
        pipe = [float(r["test_acc"]) for r in t.where(dataset=d, variant="pipeline")]
        gap = 100 * (statistics.mean(pipe) - statistics.mean(local))
        rows.append([DATASET_NAMES[d], pct(statistics.mean(local)), pct(statistics.mean(pipe)), f"{gap:+.2f}",
                     ", ".join(f"{100 * a:.1f}/{100 * b:.1f}" for a, b in zip(local, pipe))])
    return markdown(["dataset", "one process", "pipeline S=4, K=8, `drop`", "gap", "per seed, one process / pipeline"], rows)


def fig_pipeline_accuracy__techniques():
    t = table("pipeline_accuracy.csv")
    parts = []
    for d in ("coauthor_cs", "amazon_computers"):
        acc = {v: pct(t.one(dataset=d, variant=v, seed=0)["test_acc"])
               for v in ("pipeline", "pipeline_alternate", "pipeline_warmup", "pipeline_smooth")}
        parts.append(f"{DATASET_NAMES[d]} {acc['pipeline']} (none), {acc['pipeline_alternate']} (`--alternate-order`), "
                     f"{acc['pipeline_warmup']} (`--warmup 20`), {acc['pipeline_smooth']} (`--smoothing 0.5`)")
    return "; ".join(parts)


def fig_pipeline_accuracy__amazon_best_epochs():
    epochs = [int(r["best_epoch"]) for r in table("pipeline_accuracy.csv").rows
              if r["dataset"] == "amazon_computers" and r["variant"].startswith("pipeline")]
    return f"{min(epochs)}-{max(epochs)}"


# --- pipeline_depth.csv -------------------------------------------------------------------------

DEPTH_NAMES = {**DATASET_NAMES, "coauthor_physics": "Coauthor Physics"}


def depth_runs(csv="pipeline_depth.csv", **match):
    """{seed: row} of the runs of csv (pipeline_depth.csv or pipeline_depth_masks.csv) that match."""
    return {r["seed"]: r for r in table(csv).where(**match)}


def versus_local(got, local, key="test_acc"):
    """'mean% (lo-hi)', mean gap and worst seed's gap to one process, in points."""
    acc = [100 * float(r[key]) for r in got.values()]
    gaps = [100 * (float(got[s][key]) - float(local[s][key])) for s in got if s in local]
    return [f"{statistics.mean(acc):.2f}% ({min(acc):.1f}-{max(acc):.1f})",
            f"{statistics.mean(gaps):+.2f}", f"{min(gaps):+.2f}"]


def fig_pipeline_depth__source():
    return table("pipeline_depth.csv").source()


def depth_table(key, csv="pipeline_depth.csv"):
    t = table(csv)
    rows = []
    for d in DEPTH_NAMES:
        for layers in sorted({int(r["layers"]) for r in t.where(dataset=d, features="raw")}):
            local = depth_runs(csv, dataset=d, features="raw", layers=layers, variant="local")
            row = [DEPTH_NAMES[d], layers, len(local), versus_local(local, local, key)[0]]
            for v in ("pipeline", "hybrid"):
                got = depth_runs(csv, dataset=d, features="raw", layers=layers, variant=v)
                row += versus_local(got, local, key) if got else ["-", "-", "-"]
            rows.append(row)
    return markdown(["dataset", "layers", "seeds", "one process", "pipeline 4x8", "gap", "worst seed",
                     "hybrid 2x2, K=8", "gap", "worst seed"], rows)


def fig_pipeline_depth__table():
    return depth_table("test_acc")


def fig_pipeline_depth__last10():
    return depth_table("test_acc_last10")


def fig_pipeline_depth__validation():
    parts = []
    for d in DEPTH_NAMES:
        runs = {v: depth_runs(dataset=d, features="raw", layers=16, variant=v) for v in ("local", "pipeline")}
        if not all(runs.values()):
            continue
        val = {v: statistics.mean(float(r["best_val_acc"]) for r in got.values()) for v, got in runs.items()}
        parts.append(f"{DEPTH_NAMES[d]} {pct(val['local'], 1)} in one process, {pct(val['pipeline'], 1)} in the pipeline")
    return "; ".join(parts)


def rownorm_summary(layers, csv="pipeline_depth.csv"):
    parts = []
    for v, name in (("local", "one process"), ("pipeline", "pipeline (exact)"), ("pipeline_drop", "`drop`")):
        runs = depth_runs(csv, dataset="amazon_computers", features="rownorm", layers=layers, variant=v).values()
        lowest = [float(r["lowest_loss"]) for r in runs]
        final = [float(r["final_loss"]) for r in runs]
        acc = statistics.mean(float(r["test_acc"]) for r in runs)
        parts.append(f"{name} lowest loss {span(lowest, 2)} (final {span(final, 2)}), test {pct(acc, 1)}")
    return "; ".join(parts)


def fig_pipeline_depth__rownorm():
    return rownorm_summary(4)


def fig_pipeline_depth__rownorm16():
    return rownorm_summary(16)


def cora_summary(csv="pipeline_depth.csv", key="test_acc"):
    local = depth_runs(csv, dataset="cora", features="rownorm", layers=64, variant="local")
    pipe = depth_runs(csv, dataset="cora", features="rownorm", layers=64, variant="pipeline")
    mine, _, _ = versus_local(local, local, key)
    theirs, gap, worst = versus_local(pipe, local, key)
    return (f"one process {mine}, pipeline {theirs}: {gap} points on average, worst seed {worst} "
            f"({len(pipe)} seeds)")


def fig_pipeline_depth__cora():
    return cora_summary()


def fig_stale_grad_cost__source():
    return table("stale_grad_cost.csv").source()


def fig_stale_grad_cost__figures():
    t = table("stale_grad_cost.csv")
    epoch = {rule: statistics.median(float(r["median_epoch_s"]) for r in t.where(stale_grad=rule))
             for rule in ("exact", "drop", "delay")}
    sizes = {r["total_bytes"] for r in t.rows}
    same = f"{mb(next(iter(sizes)), 2)} MB per epoch under every rule" if len(sizes) == 1 else \
        "bytes per epoch: " + ", ".join(sorted(mb(b, 2) for b in sizes)) + " MB"
    return (f"{f(epoch['exact'], 3)} s per epoch with `exact`, {f(epoch['drop'], 3)} s with `drop` "
            f"({epoch['exact'] / epoch['drop']:.2f}x), {f(epoch['delay'], 3)} s with `delay`; {same}")


def fig_hybrid_accuracy__source():
    return table("hybrid_accuracy.csv").source()


def fig_hybrid_accuracy__table():
    t = table("hybrid_accuracy.csv")
    rows = []
    local = {r["seed"]: float(r["test_acc"]) for r in t.where(variant="local")}
    hybrid = {r["seed"]: float(r["test_acc"]) for r in t.where(variant="hybrid")}
    for seed in sorted(local):
        rows.append([seed, pct(local[seed]), pct(hybrid[seed])])
    gap = 100 * (statistics.mean(hybrid.values()) - statistics.mean(local.values()))
    rows.append(["mean", pct(statistics.mean(local.values())), f"{pct(statistics.mean(hybrid.values()))} ({gap:+.2f} points)"])
    return markdown(["seed", "one process", "hybrid 2 x 2"], rows)


def fig_gcnii_depth__source():
    return table("gcnii_depth.csv").source()


def fig_gcnii_depth__figures():
    t = table("gcnii_depth.csv")
    gcn = t.one(model="gcn")
    deep = t.where(model="gcnii")
    accs = ", ".join(f"{r['layers']} layers {pct(r['test_acc'], 1)}" for r in deep)
    times = ", ".join(f(r["median_epoch_s"], 2) for r in deep)
    return (f"2-layer GCN {pct(gcn['test_acc'], 1)}; GCNII {accs} (median epoch {times} s on one thread)")


# --- pipeline_depth_masks.csv: the same grid after history rows took their dropout masks ---------

def masks_runs(**match):
    return depth_runs("pipeline_depth_masks.csv", **match)


def fig_pipeline_masks__source():
    return table("pipeline_depth_masks.csv").source()


def fig_pipeline_masks__table():
    rows = []
    t = table("pipeline_depth_masks.csv")
    for d in DEPTH_NAMES:
        for layers in sorted({int(r["layers"]) for r in t.where(dataset=d, features="raw")}):
            match = dict(dataset=d, features="raw", layers=layers)
            local = masks_runs(variant="local", **match)
            before = depth_runs(variant="pipeline", **match)
            now = {v: masks_runs(variant=v, **match) for v in ("pipeline", "hybrid", "graph")}
            if not now["pipeline"]:
                continue
            gaps = lambda got, key="test_acc": versus_local(got, local, key)[1:] if got else ["-", "-"]
            rows.append([DEPTH_NAMES[d], layers, len(now["pipeline"]), *gaps(before),
                         *gaps(now["pipeline"]), *gaps(now["pipeline"], "test_acc_last10"),
                         *gaps(now["hybrid"]), *gaps(now["hybrid"], "test_acc_last10"),
                         *gaps(now["graph"]),
                         *gaps(now["graph"], "test_acc_last10")])
    return markdown(["dataset", "layers", "seeds", "pipeline before: gap", "worst",
                     "pipeline now: gap", "worst", "now, last 10: gap", "worst", "hybrid now: gap",
                     "worst", "hybrid, last 10: gap", "worst", "graph mode: gap", "worst", "graph, last 10: gap", "worst"], rows)


def fig_pipeline_masks__rownorm():
    return rownorm_summary(4, "pipeline_depth_masks.csv")


def fig_pipeline_masks__cora():
    return (f"best validation epoch: {cora_summary('pipeline_depth_masks.csv')}; "
            f"last 10 epochs: {cora_summary('pipeline_depth_masks.csv', 'test_acc_last10')}")


def fig_pipeline_masks__control():
    match = dict(dataset="amazon_computers", features="raw", layers=32)
    local, graph = masks_runs(variant="local", **match), masks_runs(variant="graph", **match)
    _, gap, worst = versus_local(graph, local)
    _, gap10, worst10 = versus_local(graph, local, "test_acc_last10")
    spread = max(abs(float(graph[s]["test_acc_last10"]) - float(local[s]["test_acc_last10"]))
                 for s in graph)
    return (f"{gap} points on average and {worst} on the worst seed at the best validation epoch, "
            f"{gap10} and {worst10} over the last 10 epochs (no seed more than "
            f"{100 * spread:.2f} apart)")


def pipeline_bars(key):
    """The pipeline's largest mean gap and worst seed over the raw-feature grid, in points."""
    t = table("pipeline_depth_masks.csv")
    means, worsts = [], []
    for d, layers in {(r["dataset"], r["layers"]) for r in t.where(features="raw", variant="pipeline")}:
        match = dict(dataset=d, features="raw", layers=layers)
        gaps = versus_local(masks_runs(variant="pipeline", **match),
                            masks_runs(variant="local", **match), key)
        means.append(float(gaps[1]))
        worsts.append(float(gaps[2]))
    return max(means, key=abs), min(worsts)


def fig_pipeline_masks__bars():
    m10, w10 = pipeline_bars("test_acc_last10")
    m, w = pipeline_bars("test_acc")
    return (f"over the last 10 epochs, every mean gap is within {abs(m10):.2f} points of one "
            f"process and no seed is more than {abs(w10):.2f} points worse; at the best "
            f"validation epoch, the largest mean gap is {m:+.2f} and the worst seed {w:+.2f}")


def fig_pipeline_masks__means():
    return depth_table("test_acc_last10", "pipeline_depth_masks.csv")


def fig_pipeline_masks__means_best_val():
    return depth_table("test_acc", "pipeline_depth_masks.csv")


# --- model_accuracy.csv ---------------------------------------------------------------------------

MODEL_SETTINGS = [  # model, options, the setting's name
    ("sage", "none", "GraphSAGE (mean)"),
    ("gin", "none", "GIN, eps 0"),
    ("gin", "--eps-learnable", "GIN, eps learnt"),
    ("gat", "none", "GAT, 8 heads of 8"),
]


def fig_model_accuracy__source():
    return table("model_accuracy.csv").source()


def model_accuracies(dataset, model, options, framework):
    return [float(r["test_acc"]) for r in table("model_accuracy.csv").where(
        dataset=dataset, model=model, options=options, framework=framework)]


def fig_model_accuracy__table():
    rows = []
    for dataset, name in (("cora", "Cora"), ("citeseer", "CiteSeer")):
        for model, options, setting in MODEL_SETTINGS:
            ours = model_accuracies(dataset, model, options, "strata")
            theirs = model_accuracies(dataset, model, options, "pyg")
            gap = 100 * (statistics.mean(ours) - statistics.mean(theirs))
            rows.append([name, setting, f"**{pct(statistics.mean(ours))}** ({pct(min(ours), 1)})",
                         f"{pct(statistics.mean(theirs))} ({pct(min(theirs), 1)})", f"{gap:+.2f}"])
    return markdown(["dataset", "model", "Strata: mean (worst seed)", "PyG: mean (worst seed)",
                     "Strata - PyG, points"], rows)
