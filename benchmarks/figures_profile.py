"""The README's figures of `strata train --profile` (benchmarks/profile.sh): each graph's and
model's epoch against its floor, before and after a change, with the run-to-run spread."""
import statistics

from figure_base import f, markdown, table

KEY = ("graph", "model", "layers")
GRAPH_NAMES = {"physics": "coauthor_physics", "physics-rcm": "coauthor_physics, RCM-numbered",
               "rmat-1M": "R-MAT, 1M vertices"}


def configs():
    runs = table("profile_runs.csv").rows
    return list(dict.fromkeys(tuple(r[k] for k in KEY) for r in runs))


def epochs(build, key):
    return sorted(float(r["epoch_s"]) for r in table("profile_runs.csv").rows
                  if r["build"] == build and tuple(r[k] for k in KEY) == key)


def op_rows(build, key):
    return [r for r in table("profile_ops.csv").rows
            if r["build"] == build and tuple(r[k] for k in KEY) == key]


def spread(t):
    """Median and the 10 runs' range, s."""
    return f"{f(statistics.median(t), 3)} ({f(t[0], 3)}-{f(t[-1], 3)})"


def against_floor(build, key):
    e = next(r for r in op_rows(build, key) if r["op"] == "epoch")
    seconds, floor = float(e["seconds"]), float(e["floor_s"])
    return f"{f(seconds, 3)} / {f(floor, 3)} = {seconds / floor:.2f}x"


def largest_ops(build, key, n=3):
    ops = [r for r in op_rows(build, key) if float(r["floor_s"]) > 0 and r["op"] != "epoch"]
    ops.sort(key=lambda r: -float(r["seconds"]))
    return ", ".join(f"{r['op']} {1e3 * float(r['seconds']):.0f} ms "
                     f"({float(r['seconds']) / float(r['floor_s']):.1f}x)" for r in ops[:n])


def floor_ratio(build, key):
    e = next(r for r in op_rows(build, key) if r["op"] == "epoch")
    return float(e["seconds"]) / float(e["floor_s"])


def fig_profile__gcnii_floor():
    """GCNII 16 on physics after: profiled epoch / floor, as loaded and RCM-numbered."""
    loaded, rcm = ("physics", "gcnii", "16"), ("physics-rcm", "gcnii", "16")
    return f"{floor_ratio('after', loaded):.2f}x as loaded, {floor_ratio('after', rcm):.2f}x RCM-numbered"


def speedup(key):
    return statistics.median(epochs("before", key)) / statistics.median(epochs("after", key))


def fig_profile__gcnii_same():
    """GCNII 16: before / after on the same file."""
    return (f"{speedup(('physics', 'gcnii', '16')):.2f}x on the same file as loaded, "
            f"{speedup(('physics-rcm', 'gcnii', '16')):.2f}x on the RCM-numbered file")


def fig_profile__rcm_vs_start():
    """GCNII 16: the start on physics as loaded against this build on the RCM-numbered file."""
    start = epochs("before", ("physics", "gcnii", "16"))
    now = epochs("after", ("physics-rcm", "gcnii", "16"))
    if not start or not now:
        return "not measured"
    return (f"{f(statistics.median(start), 3)} s -> {f(statistics.median(now), 3)} s, "
            f"{statistics.median(start) / statistics.median(now):.2f}x")


def fig_profile__source():
    return table("profile_runs.csv").source()


def fig_profile__table():
    rows = []
    for key in configs():
        graph, model, layers = key
        before, after = epochs("before", key), epochs("after", key)
        rows.append([GRAPH_NAMES.get(graph, graph), f"{model.upper()} {layers}",
                     spread(before), spread(after),
                     f"{statistics.median(before) / statistics.median(after):.2f}x",
                     against_floor("before", key), against_floor("after", key),
                     largest_ops("after", key)])
    return markdown(["graph", "model", "epoch before, s (10 runs)", "epoch after, s (10 runs)",
                     "before / after", "profiled epoch / floor before, s",
                     "profiled epoch / floor after, s", "largest operations after (x floor)"],
                    rows)
