"""The one CSV layout every benchmark writes: a '# ' header line saying where the figures
came from, then a plain CSV table with a header row. Floats keep 6 significant digits."""
import csv


def write_csv(path, rows, header):
    with open(path, "w", newline="") as f:
        f.write(f"# {header}\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    print(f"wrote {path} ({len(rows)} rows)")
