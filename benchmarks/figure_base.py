"""What every README figure is made from: the CSVs of benchmarks/results/ (Table) and the
few ways numbers are written (f, pct, mb, span, markdown). Used by figures.py and
figures_training.py."""
import csv
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
TAG = re.compile(r"<!-- fig:([a-z][a-z0-9_]*\.[a-z0-9_]+) -->(.*?)<!-- /fig -->", re.S)
PROVENANCE = re.compile(r"commit ([0-9a-f]{7,40})\b.*?(\d{4}-\d{2}-\d{2})")


class Table:
    """A CSV of benchmarks/results: its '# ' header lines and its rows (dicts of str)."""

    def __init__(self, name):
        self.name = name
        lines = (RESULTS / name).read_text().splitlines()
        self.header = " ".join(l[2:] for l in lines if l.startswith("# "))
        self.rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
        m = PROVENANCE.search(self.header)
        if not m:
            raise SystemExit(f"{name}: no 'commit ...; date' in its header line")
        self.commit, self.date = m.group(1), m.group(2)

    def where(self, **match):
        return [r for r in self.rows if all(r[k] == str(v) for k, v in match.items())]

    def one(self, **match):
        rows = self.where(**match)
        if len(rows) != 1:
            raise SystemExit(f"{self.name}: {len(rows)} rows match {match}")
        return rows[0]

    def source(self):
        return f"commit {self.commit}, {self.date}"


_tables = {}


def table(name):
    if name not in _tables:
        _tables[name] = Table(name)
    return _tables[name]


def f(x, digits):
    return f"{float(x):.{digits}f}"


def pct(x, digits=2):
    return f"{100 * float(x):.{digits}f}%"


def mb(x, digits=1):
    return f"{float(x) / 1e6:,.{digits}f}"


def span(values, digits, unit=""):
    lo, hi = f(min(values), digits), f(max(values), digits)
    return f"{lo}{unit}" if lo == hi else f"{lo} to {hi}{unit}"


def time_to_target(row):
    """A run summary's (run_summary.py) time to its validation target, with its epochs."""
    if not row["epochs_to_target"]:
        return "not reached"
    return f"{row['seconds_to_target']} s ({row['epochs_to_target']} epochs)"


def run_cells(row, in_flight=False):
    """A cluster run's (run_summary.py) epoch time, wait, [time in flight while computing,]
    bytes, time to target and test accuracy, as table cells."""
    cells = [f(row["epoch_s"], 3), f(row["comm_s"], 3)]
    if in_flight:
        cells.append(f(row["overlap_s"], 3))
    return cells + [mb(row["bytes_per_epoch"]), time_to_target(row), pct(row["test_acc"], 1)]


def planner_cell(row):
    return "yes" if row["planner_choice"] == "yes" else ""


def markdown(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n\n" + "\n".join(lines) + "\n\n"
