#!/usr/bin/env python3
"""Converts the public sources of the datasets the README uses into the OGB
node-property raw layout Strata reads (DIR/NAME/raw/*.csv.gz, DIR/NAME/split/*/...).
scripts/get-datasets.sh downloads the sources and calls this; see it for usage.

    get_datasets.py SOURCES OUT [NAME...]
    get_datasets.py --list [NAME...]      the source files, as OWNER/REPO/COMMIT/PATH

SOURCES holds the source files under OWNER/REPO/COMMIT/PATH (as get-datasets.sh lays them
out); each is checked against its git blob id before it is read. Needs numpy and scipy.

The conversion follows the datasets' usual loaders: Planetoid's pickles as Kipf & Welling
load them (public split), gnn-benchmark's npz files (Shchur et al.) with its own random
20-per-class / 30-per-class splits (seeds 0-4), and the heterophilous-graphs npz with its
10 official splits. Features are written as floats (the shortest text that reads back to
the same float32), edges as the source stores them.
"""
import gzip
import hashlib
import io
import pickle
import warnings
import sys
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

PLANETOID = ("kimiyoung/planetoid", "af6abf468a772cc055bec88c52e4d6f51b7c37e3")
CRAWL = ("CrawlScript/gnn_datasets", "482d7152d60e429763ca256dd0906fa9badaae0c")
HETERO = ("yandex-research/heterophilous-graphs", "a431395582e929d88271309716bea4fe24ce6318")

# name: (repo, commit, [(path, git blob id)], converter); the blob ids as GitHub lists them
SOURCES = {
    "cora": (*PLANETOID, [
        ("data/ind.cora.x", "c4a91d008245403e7f26aa616b437191509793c0"),
        ("data/ind.cora.y", "58e30ef120d3553cfaac33ff28c6b5436dbef661"),
        ("data/ind.cora.tx", "6e856d777401ee15dc8619db76c97d0a40ba2d60"),
        ("data/ind.cora.ty", "da1734ab670b5c8ecee78a9c30b35566df916f4b"),
        ("data/ind.cora.allx", "44d53b1fece343538e45592caac521d73c6f98d6"),
        ("data/ind.cora.ally", "04fbd0b083d09341fcf16b395c642329637f0542"),
        ("data/ind.cora.graph", "4d3bf85dfc8b1c105a2c995597a1b3eed6947925"),
        ("data/ind.cora.test.index", "ded8092db4cd767a367eebe09003b954a5316f24"),
    ], "planetoid"),
    "citeseer": (*PLANETOID, [
        ("data/ind.citeseer.x", "f094104a66f2689ffbd01085fe6a856689e9db9e"),
        ("data/ind.citeseer.y", "e857ac49b611da98e101a068cf4855350274f68a"),
        ("data/ind.citeseer.tx", "b2aff18aa1fc6f4f5e8c64db7643b59b24e42584"),
        ("data/ind.citeseer.ty", "3795f79df0cd1123f4478b77c148a5fbacc4cefb"),
        ("data/ind.citeseer.allx", "592091071ac35b78599c722d0e60b1c655711728"),
        ("data/ind.citeseer.ally", "7503f81a0b6ac1cc21cb5a97073542a6b1dfe99c"),
        ("data/ind.citeseer.graph", "a01dca663d0103c130f525017a4a9c313037e286"),
        ("data/ind.citeseer.test.index", "62d9e3d5ed53c66b069125af98529d76c70d9b3e"),
    ], "planetoid"),
    "amazon_computers": (*CRAWL, [
        ("AmazonElectronics/amazon-computers.zip", "3ed6ba3fb85f86246d8164cd026ada87dc841556"),
    ], "gnn_benchmark"),
    "coauthor_cs": (*CRAWL, [
        ("Coauthor/coauthor-cs.zip", "d79763bc4aa0c44f6814d4d905740c5e29cd2b20"),
    ], "gnn_benchmark"),
    "coauthor_physics": (*CRAWL, [
        ("Coauthor/coauthor-physics.zip", "96bfe2fdd2e4cbfdd24e5a0d347df4bc82b48770"),
    ], "gnn_benchmark"),
    "tolokers": (*HETERO, [
        ("data/tolokers.npz", "b8375a91a8f3c9e32c84fed7c151bbaf6ea6f0c7"),
    ], "hetero"),
}


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_source(root, repo, commit, path, blob):
    data = (root / repo / commit / path).read_bytes()
    if blob is not None and blob_id(data) != blob:
        raise SystemExit(f"{repo}/{path}: git blob {blob_id(data)}, expected {blob} (a damaged download?)")
    return data


def write_gz(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write("".join(line + "\n" for line in lines).encode())


def number(value):
    """The shortest text that reads back to the same float32, always with a decimal point."""
    text = str(np.float32(value))
    return text if ("." in text or "e" in text or "inf" in text or "nan" in text) else text + ".0"


def feature_lines(x):
    x = sp.csr_matrix(x, dtype=np.float32)
    x.sum_duplicates()
    texts = {}  # value -> text: most datasets repeat a few values
    for i in range(x.shape[0]):
        row = ["0.0"] * x.shape[1]
        for j, v in zip(x.indices[x.indptr[i]:x.indptr[i + 1]], x.data[x.indptr[i]:x.indptr[i + 1]]):
            if v != 0:
                row[j] = texts.get(v) or texts.setdefault(v, number(v))
        yield ",".join(row)


def write_dataset(out, name, edges, features, labels, splits):
    d = out / name
    write_gz(d / "raw/edge.csv.gz", (f"{s},{t}" for s, t in edges))
    write_gz(d / "raw/num-edge-list.csv.gz", [str(len(edges))])
    write_gz(d / "raw/num-node-list.csv.gz", [str(len(labels))])
    write_gz(d / "raw/node-label.csv.gz", (str(int(c)) for c in labels))
    write_gz(d / "raw/node-feat.csv.gz", feature_lines(features))
    for split, parts in splits.items():
        for part, ids in zip(("train", "valid", "test"), parts):
            write_gz(d / "split" / split / f"{part}.csv.gz", (str(int(i)) for i in sorted(ids)))
    print(f"{name}: {len(labels)} vertices, {len(edges)} edge rows, {features.shape[1]} features, "
          f"{len(splits)} split(s) -> {d}")


def planetoid(name, files):
    """Kipf & Welling's load_data: test rows reordered, CiteSeer's missing test ids filled."""
    get = lambda x: files[f"data/ind.{name}.{x}"]
    with warnings.catch_warnings():  # the pickles name scipy.sparse.csr, deprecated in scipy 1.8
        warnings.simplefilter("ignore", DeprecationWarning)
        x, y, tx, ty, allx, ally, graph = [pickle.load(io.BytesIO(get(k)), encoding="latin1")
                                           for k in ("x", "y", "tx", "ty", "allx", "ally", "graph")]
    test_index = [int(l) for l in get("test.index").decode().split()]
    test_range = np.sort(test_index)
    if name == "citeseer":  # isolated test vertices are absent from tx/ty: zero rows for them
        full = range(min(test_index), max(test_index) + 1)
        tx_full = sp.lil_matrix((len(full), x.shape[1]))
        tx_full[test_range - min(test_range), :] = tx
        ty_full = np.zeros((len(full), y.shape[1]))
        ty_full[test_range - min(test_range), :] = ty
        tx, ty = tx_full, ty_full
    features = sp.vstack((allx, tx)).tolil()
    features[test_index, :] = features[test_range, :]
    onehot = np.vstack((ally, ty))
    onehot[test_index, :] = onehot[test_range, :]
    labels = onehot.argmax(axis=1)
    edges = [(k, v) for k in sorted(graph) for v in graph[k]]
    train = range(len(y))
    valid = range(len(y), len(y) + 500)
    return edges, features.tocsr(), labels, {"public": (train, valid, sorted(test_index))}


def sample_per_class(random_state, onehot, per_class, forbidden=None):
    """gnn-benchmark's sample_per_class (gnnbench/data/make_dataset.py), as written there."""
    samples, classes = onehot.shape
    by_class = {c: [] for c in range(classes)}
    for c in range(classes):
        for i in range(samples):
            if onehot[i, c] > 0.0 and (forbidden is None or i not in forbidden):
                by_class[c].append(i)
    return np.concatenate([random_state.choice(by_class[c], per_class, replace=False) for c in range(classes)])


def random_20_30(labels, seed):
    """gnn-benchmark's get_train_val_test_split(RandomState(seed), 20 and 30 per class)."""
    onehot = np.eye(labels.max() + 1)[labels]
    state = np.random.RandomState(seed)
    train = sample_per_class(state, onehot, 20)
    valid = sample_per_class(state, onehot, 30, forbidden=train)
    test = np.setdiff1d(np.arange(len(labels)), np.concatenate((train, valid)))
    return train, valid, test


def gnn_benchmark(name, files):
    zipped = zipfile.ZipFile(io.BytesIO(next(iter(files.values()))))
    npz = np.load(io.BytesIO(zipped.read(next(n for n in zipped.namelist() if n.endswith(".npz")))),
                  allow_pickle=True)
    adj = sp.csr_matrix((npz["adj_data"], npz["adj_indices"], npz["adj_indptr"]), shape=npz["adj_shape"])
    adj.sort_indices()  # row-major, each row's neighbours ascending
    features = sp.csr_matrix((npz["attr_data"], npz["attr_indices"], npz["attr_indptr"]), shape=npz["attr_shape"])
    labels = npz["labels"]
    rows = np.repeat(np.arange(adj.shape[0]), np.diff(adj.indptr))
    edges = list(zip(rows.tolist(), adj.indices.tolist()))
    splits = {f"random_20_30_seed{s}": random_20_30(labels, s) for s in range(5)}
    return edges, features, labels, splits


def hetero(name, files):
    npz = np.load(io.BytesIO(next(iter(files.values()))))
    edges = [tuple(e) for e in npz["edges"].tolist()]
    labels = npz["node_labels"]
    splits = {}
    for s in range(npz["train_masks"].shape[0]):
        splits[f"official_{s}"] = tuple(np.flatnonzero(npz[f"{part}_masks"][s])
                                        for part in ("train", "val", "test"))
    return edges, sp.csr_matrix(npz["node_features"]), labels, splits


def main(argv):
    if len(argv) >= 2 and argv[1] == "--list":  # what get-datasets.sh downloads
        for name in argv[2:] or SOURCES:
            repo, commit, paths, _ = SOURCES[name]
            for path, _ in paths:
                print(f"{repo}/{commit}/{path}")
        return 0
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, out = Path(argv[1]), Path(argv[2])
    names = argv[3:] or list(SOURCES)
    for name in names:
        if name not in SOURCES:
            raise SystemExit(f"no dataset {name!r}; known: {', '.join(SOURCES)}")
        repo, commit, paths, kind = SOURCES[name]
        files = {p: read_source(root, repo, commit, p, blob) for p, blob in paths}
        write_dataset(out, name, *globals()[kind](name, files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
