"""The README's figures of `strata plan`: predicted against measured epoch times on the
emulated cluster (plan_check.csv), and the simulated GPU clusters (plan_simulated.csv)."""
import statistics

from figure_base import f, markdown, table

CONFIG = ("hosts", "gbit", "model", "layers")


def layout_name(r):
    name = r["mode"] if r["mode"] == "graph" else f"{r['mode']} {r['stages']}x{r['parts']}"
    if int(r["chunks"]) > 1:
        name += f", {r['chunks']} chunks" + (", drop" if r["stale_grad"] == "drop" else "")
    return name + ("" if r["compress"] == "none" else f", {r['compress']}")


def errors():
    return [float(r["predicted_s"]) / float(r["measured_s"]) - 1 for r in table("plan_check.csv").rows]


def configs():
    t = table("plan_check.csv")
    for key in dict.fromkeys(tuple(r[k] for k in CONFIG) for r in t.rows):
        yield key, [r for r in t.rows if tuple(r[k] for k in CONFIG) == key]


def chosen_against_fastest():
    """Per configuration: the planner's choice, the fastest measured layout, their ratio."""
    out = []
    for key, rows in configs():
        chosen = next(r for r in rows if r["chosen"] == "yes")
        fastest = min(rows, key=lambda r: float(r["measured_s"]))
        out.append((key, chosen, fastest, float(chosen["measured_s"]) / float(fastest["measured_s"])))
    return out


def fig_plan__source():
    t = table("plan_check.csv")
    return f"{t.source()}, {len(t.rows)} runs"


def fig_plan__summary():
    e = errors()
    within = sum(abs(x) <= 0.25 for x in e)
    near = sum(abs(x) <= 0.10 for x in e)
    picks = chosen_against_fastest()
    good = sum(ratio <= 1.10 for *_, ratio in picks)
    worst = max(ratio for *_, ratio in picks)
    return (f"{within} of {len(e)} layouts predicted within 25% ({100 * within / len(e):.0f}%; "
            f"{near} within 10%, median error {100 * statistics.median(abs(x) for x in e):.0f}%); "
            f"the planner's first choice within 10% of the fastest measured layout in {good} of "
            f"{len(picks)} cases (at worst {worst:.2f}x)")


def fig_plan__table():
    rows = []
    for key, chosen, fastest, ratio in chosen_against_fastest():
        hosts, gbit, model, layers = key
        runs = [r for k, rs in configs() if k == key for r in rs]
        within = sum(abs(float(r["predicted_s"]) / float(r["measured_s"]) - 1) <= 0.25 for r in runs)
        same = chosen is fastest or layout_name(chosen) == layout_name(fastest)
        rows.append([hosts, gbit, f"{model.upper()} {layers}",
                     f"{layout_name(chosen)}: {f(float(chosen['predicted_s']), 3)} / "
                     f"{f(float(chosen['measured_s']), 3)}",
                     "the same" if same else
                     f"{layout_name(fastest)}: {f(float(fastest['predicted_s']), 3)} / "
                     f"{f(float(fastest['measured_s']), 3)}",
                     f"{ratio:.2f}", f"{within} of {len(runs)}"])
    return markdown(["hosts", "Gbit/s", "model", "planner's choice: predicted / measured s",
                     "fastest measured: predicted / measured s", "choice / fastest",
                     "layouts within 25%"], rows)


def fig_plan__simulated():
    t = table("plan_simulated.csv")
    rows = []
    for r in t.rows:
        staged = f"{r['staged']}: {f(float(r['staged_s']), 3)}" if r["staged_s"] else "-"
        rows.append([r["gpus"], f"{int(r['nodes']) // 1_000_000}M",
                     f"{r['model'].upper()} {r['layers']}, hidden {r['hidden']}",
                     r["network"].replace("Gbit", " Gbit/s"), r["best"], f(float(r["best_s"]), 3),
                     f(float(r["graph_s"]), 3), staged, f"{float(r['best_gb']):.1f}"])
    return markdown(["GPUs", "vertices", "model", "network", "best layout", "epoch s",
                     "graph mode, float32, s", "fastest exact with stages, s", "GB per GPU"], rows)


def fig_plan__simulated_source():
    return table("plan_simulated.csv").source()
