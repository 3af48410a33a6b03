#!/usr/bin/env python3
"""The layouts benchmarks/plan_check.sh runs from one `strata plan --json`: the planner's
first choice, its next two allowed layouts that fit, and the usual ones (graph mode with
float32 and int8 rows, the pipeline with 4 chunks exact and drop, hybrid 2 x H/2 with 4
chunks). One line each: rank<TAB>train arguments<TAB>CSV fields with MEASURED for the
measured time. Usage: plan_pick.py PLAN.json HOSTS"""
import json
import sys

plan = json.load(open(sys.argv[1]))
hosts = int(sys.argv[2])
layouts = plan["layouts"]
key = lambda l: (l["mode"], l["stages"], l["parts"], l["chunks"], l["stale_grad"], l["compress"])
usual = {("graph", 1, hosts, 1, "exact", "none"), ("graph", 1, hosts, 1, "exact", "int8"),
         ("pipeline", hosts, 1, 4, "exact", "none"), ("pipeline", hosts, 1, 4, "drop", "none"),
         ("hybrid", 2, hosts // 2, 4, "exact", "none")}
allowed = [i for i, l in enumerate(layouts) if l["allowed"] and l["fits"]][:3]
picked = sorted(set(allowed) | {i for i, l in enumerate(layouts) if key(l) in usual})
for i in picked:
    l = layouts[i]
    args = (f"--mode {l['mode']} --model {plan['model']} --layers {plan['layers']} "
            f"--hidden {plan['hidden']} --compress {l['compress']}")
    if l["stages"] > 1:
        args += f" --chunks {l['chunks']} --stale-grad {l['stale_grad']}"
    if l["mode"] == "hybrid":
        args += f" --parts {l['parts']}"
    fields = ",".join(str(x) for x in (
        l["mode"], l["stages"], l["parts"], l["chunks"], l["stale_grad"], l["compress"],
        f"{l['epoch_s']:.4f}", "MEASURED", i + 1, "yes" if i == plan["best"] else "no",
        l["risk"].replace(",", ";")))
    print(f"{i + 1}\t{args}\t{fields}")
