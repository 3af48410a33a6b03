"""The README's figures of runs on the emulated cluster (scripts/cluster.sh): the halo
overlapped or not (overlap.csv), every mode against the link rate (cluster.csv), and
against depth and model up to 25 Gbit/s (cluster_depth.csv), GCNII 16 on 2 and 4 hosts
(cluster_hosts.csv), a synthetic graph of 1M vertices (cluster_synthetic.csv), and where
graph mode and the pipeline change places (cluster_flip.csv)."""
import statistics

from figure_base import f, markdown, planner_cell, run_cells, table


def overlap_medians(gbit, build="this"):
    t = table("overlap.csv")
    of = lambda on, key: statistics.median(float(r[key]) for r in t.where(gbit=gbit, overlap=on)
                                           if r["build"] == build)
    return {"off": of(False, "epoch_s"), "on": of(True, "epoch_s"),
            "wait_off": of(False, "comm_s"), "wait_on": of(True, "comm_s")}


def fig_overlap__source():
    t = table("overlap.csv")
    rounds = len({r["round"] for r in t.rows})
    return f"{t.source()}, {rounds} rounds"


def fig_overlap__table():
    rows = []
    for gbit in dict.fromkeys(r["gbit"] for r in table("overlap.csv").rows):
        m = overlap_medians(gbit)
        saved = m["off"] - m["on"]
        rows.append([gbit, f(m["off"], 3), f(m["on"], 3), f(m["wait_off"], 3), f(m["wait_on"], 3),
                     f"{f(saved, 3)} ({100 * saved / m['wait_off']:.0f}%)"])
    return markdown(["Gbit/s", "epoch s, no overlap", "epoch s, overlap", "wait s, no overlap",
                     "wait s, overlap", "saved s (share of the wait)"], rows)


def fig_overlap__one_gbit():
    m = overlap_medians("1")
    return f"{100 * (m['off'] - m['on']) / m['wait_off']:.0f}%"


def fig_overlap__before():
    """This build overlapped against the build before (overlap.sh's STRATA_BEFORE) at 1 Gbit/s."""
    t = table("overlap.csv")
    label = t.header.split("build before: ")[1].strip()
    now, before = overlap_medians("1"), overlap_medians("1", "before")
    saved = before["off"] - now["on"]
    return (f"{label}, took {f(before['off'], 3)} s per epoch without overlap (waiting "
            f"{f(before['wait_off'], 3)} s) and {f(before['on'], 3)} s with its own overlap; this "
            f"build overlapped takes {f(now['on'], 3)} s, {f(saved, 3)} s less than the build "
            f"before without overlap: {100 * saved / before['wait_off']:.0f}% of its wait")


def fig_cluster__source():
    return table("cluster.csv").source()


MODE_NAMES = {"graph": "graph, overlap", "graph_no_overlap": "graph, no overlap",
              "pipeline": "pipeline (exact)", "pipeline_drop": "pipeline, `--stale-grad drop`",
              "hybrid": "hybrid"}


def fig_cluster__table():
    rows = [[r["hosts"], r["gbit"], model_name(r), MODE_NAMES[r["mode"]], *run_cells(r)]
            for r in table("cluster.csv").rows]
    return markdown(["hosts", "Gbit/s", "model", "mode", "epoch s", "wait s", "MB per epoch",
                     "to val 0.95", "test acc"], rows)


def fig_cluster_depth__source():
    return table("cluster_depth.csv").source()


def model_name(row):
    return f"{row['model'].upper()} {row['layers']}"


# The header of run_cells(row, in_flight=True) up to the time to target.
RUN_HEADER = ["epoch s", "wait s", "in flight while computing s", "MB per epoch"]


def fig_cluster_depth__table():
    rows = [[r["gbit"], model_name(r), MODE_NAMES[r["mode"]], *run_cells(r, True), planner_cell(r)]
            for r in table("cluster_depth.csv").rows]
    return markdown(["Gbit/s", "model", "mode", *RUN_HEADER, "to val 0.95", "test acc",
                     "fewest bytes"], rows)


def hosts_table(name):
    rows = [[r["hosts"], r["gbit"], model_name(r), MODE_NAMES[r["mode"]], *run_cells(r, True),
             planner_cell(r)] for r in table(name).rows]
    return markdown(["hosts", "Gbit/s", "model", "mode", *RUN_HEADER, "to target", "test acc",
                     "fewest bytes"], rows)


def fig_cluster_hosts__source():
    return table("cluster_hosts.csv").source()


def fig_cluster_hosts__table():
    return hosts_table("cluster_hosts.csv")


def fig_cluster_synthetic__source():
    return table("cluster_synthetic.csv").source()


def fig_cluster_synthetic__table():
    return hosts_table("cluster_synthetic.csv")


def fig_cluster_flip__source():
    return table("cluster_flip.csv").source()


def fig_cluster_flip__table():
    return hosts_table("cluster_flip.csv")
