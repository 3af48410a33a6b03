"""Trains Strata's GCN, GCNII, GraphSAGE or GIN with PyTorch Geometric on an OGB raw-layout
directory.

The peer of `strata train --mode local`: the same files, preprocessing, model,
initialization scheme, loss, optimizer and epoch definition (zero_grad, training forward,
loss, backward, Adam step; evaluation is not timed). Prints one JSON line.
"""
import argparse
import gzip
import json
import resource
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", message="Sparse")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch_geometric.nn import GATConv, GCN2Conv, GCNConv, GINConv, Linear, SAGEConv  # noqa: E402
from torch_geometric.nn.conv.gcn_conv import gcn_norm  # noqa: E402
from torch_geometric.utils import remove_self_loops, to_undirected  # noqa: E402


def read_ints(path):
    with gzip.open(path, "rb") as f:
        return np.array(f.read().replace(b",", b" ").split(), dtype=np.int64)


def read_features(path, rows_per_block=1024):
    """The feature CSV as CSR (indptr, indices, values), a block of rows at a time."""
    indptr, indices, values = [np.zeros(1, np.int64)], [], []
    with gzip.open(path, "rb") as f:
        while True:
            lines = [line for _, line in zip(range(rows_per_block), f)]
            if not lines:
                break
            text = b",".join(line.rstrip() for line in lines)
            block = np.fromstring(text, dtype=np.float32, sep=",").reshape(len(lines), -1)
            r, c = np.nonzero(block)
            indptr.append(np.bincount(r, minlength=len(lines)).cumsum() + indptr[-1][-1])
            indices.append(c.astype(np.int32))
            values.append(block[r, c])
    return np.concatenate(indptr), np.concatenate(indices), np.concatenate(values), block.shape[1]


def load_raw(root, cache_dir):
    """Raw arrays of DIR/raw, cached as .npz (preprocessing is applied after, like Strata)."""
    cache = Path(cache_dir) / f"{root.name}.npz"
    if cache.exists():
        return dict(np.load(cache))
    raw = root / "raw"
    indptr, indices, values, cols = read_features(raw / "node-feat.csv.gz")
    d = dict(indptr=indptr, indices=indices, values=values, cols=np.int64(cols),
             labels=read_ints(raw / "node-label.csv.gz"),
             edges=read_ints(raw / "edge.csv.gz").reshape(-1, 2))
    assert len(d["labels"]) == read_ints(raw / "num-node-list.csv.gz")[0]
    assert len(d["edges"]) == read_ints(raw / "num-edge-list.csv.gz")[0]
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, **d)
    return d


def load(args):
    root = Path(args.dataset)
    d = load_raw(root, args.cache)
    n, f = len(d["labels"]), int(d["cols"])
    values = d["values"]
    if args.binarize:
        values = (values > 0).astype(np.float32)
    rows = np.repeat(np.arange(n), np.diff(d["indptr"]))
    if args.row_normalize:  # rows sum to 1 (sums in double, as Strata); zero rows stay zero
        sums = np.bincount(rows, weights=values, minlength=n)
        values = values * (1.0 / sums[rows]).astype(np.float32)
    x = torch.sparse_coo_tensor(np.stack([rows, d["indices"]]), values, (n, f)).coalesce()
    edge_index = torch.from_numpy(d["edges"].T.copy())
    if not args.directed:
        edge_index = to_undirected(edge_index, num_nodes=n)  # also drops duplicates
    edge_index, _ = remove_self_loops(edge_index)
    splits = sorted(p.name for p in (root / "split").iterdir() if p.is_dir())
    split = root / "split" / (args.split or splits[0])
    masks = {}
    for name in ("train", "valid", "test"):
        masks[name] = torch.zeros(n, dtype=torch.bool)
        masks[name][read_ints(split / f"{name}.csv.gz")] = True
    return x, torch.from_numpy(d["labels"]), edge_index, masks


def normalized_adjacency(edge_index, n, layout):
    """D^-1/2 (A + I) D^-1/2, computed once for every layer (what cached=True does per
    layer), as the convolutions' arguments: (edge_index, edge_weight) for PyG's gather and
    scatter message passing, or (adj_t,) a torch sparse CSR matrix for its SpMM path."""
    index, weight = gcn_norm(edge_index, None, n, add_self_loops=True)
    if layout == "edge_index":
        return index, weight
    return (torch.sparse_coo_tensor(index.flip(0), weight, (n, n)).coalesce().to_sparse_csr(),)


def plain_adjacency(edge_index, n, layout):
    """A without self-loops or weights (SAGEConv's mean, GINConv's sum), as the
    convolutions' argument: edge_index, or a torch sparse CSR adj_t for their SpMM path."""
    if layout == "edge_index":
        return (edge_index,)
    values = torch.ones(edge_index.shape[1])
    return (torch.sparse_coo_tensor(edge_index.flip(0), values, (n, n)).coalesce().to_sparse_csr(),)


def drop_sparse(x, p, training):
    """Dropout on the stored values of a sparse matrix (= dense dropout: zeros stay zero)."""
    if not training or p == 0:
        return x
    return torch.sparse_coo_tensor(x.indices(), F.dropout(x.values(), p), x.shape,
                                   is_coalesced=True)


def drop(x, p, training):
    return drop_sparse(x, p, training) if x.is_sparse else F.dropout(x, p, training)


class Stack(torch.nn.Module):
    """Strata's conv models: dropout before every convolution, ReLU (GAT: ELU) between them."""

    def __init__(self, convs, dropout, activation=F.relu):
        super().__init__()
        self.convs = torch.nn.ModuleList(convs)
        self.dropout = dropout
        self.activation = activation

    def forward(self, x, adj):
        for i, conv in enumerate(self.convs):
            x = conv(drop(x, self.dropout, self.training), *adj)
            if i + 1 < len(self.convs):
                x = self.activation(x)
        return x


def widths(f, hidden, classes, layers):
    w = [f] + [hidden] * (layers - 1) + [classes]
    return list(zip(w, w[1:]))


def gcn(f, hidden, classes, layers, dropout):
    """Strata's gcn: GCNConv with bias."""
    return Stack((GCNConv(a, b, normalize=False) for a, b in widths(f, hidden, classes, layers)),
                 dropout)


def glorot(a, b):
    return Linear(a, b, weight_initializer="glorot", bias_initializer="zeros")


def sage(f, hidden, classes, layers, dropout):
    """Strata's sage: SAGEConv (mean aggregator, root weight, bias on the neighbours' linear
    layer) with Glorot weights."""
    convs = []
    for a, b in widths(f, hidden, classes, layers):
        conv = SAGEConv(a, b)
        conv.lin_l = glorot(a, b)
        conv.lin_r = Linear(a, b, bias=False, weight_initializer="glorot")
        convs.append(conv)
    return Stack(convs, dropout)


def gin(f, hidden, classes, layers, dropout, train_eps):
    """Strata's gin: GINConv with nn = Linear(a, hidden), ReLU, Linear(hidden, b), Glorot
    weights, eps 0 or learnt from 0."""
    return Stack((GINConv(torch.nn.Sequential(glorot(a, hidden), torch.nn.ReLU(), glorot(hidden, b)),
                          train_eps=train_eps) for a, b in widths(f, hidden, classes, layers)),
                 dropout)


def gat(f, hidden, classes, layers, dropout, heads, output_heads, attention_dropout):
    """Strata's gat (as PyG's GAT example): GATConv with self-loops, hidden layers of
    `heads` heads concatenated, the output layer's heads averaged, dropout before each
    conv and on the attention weights, ELU between them."""
    convs, width = [], f
    for _ in range(layers - 1):
        convs.append(GATConv(width, hidden, heads=heads, dropout=attention_dropout))
        width = hidden * heads
    convs.append(GATConv(width, classes, heads=output_heads, concat=False,
                         dropout=attention_dropout))
    return Stack(convs, dropout, F.elu)


class Gcnii(torch.nn.Module):
    """Strata's gcnii (as PyG's GCNII example): input linear, L GCN2Convs with one shared
    weight each, output linear; dropout before each of them."""

    def __init__(self, f, hidden, classes, layers, dropout, alpha, lam):
        super().__init__()
        glorot = dict(weight_initializer="glorot", bias_initializer="zeros")
        self.input = Linear(f, hidden, **glorot)
        self.convs = torch.nn.ModuleList(
            GCN2Conv(hidden, alpha, theta=lam, layer=l, normalize=False)
            for l in range(1, layers + 1))
        self.output = Linear(hidden, classes, **glorot)
        self.dropout = dropout

    def forward(self, x, adj):
        x = h0 = self.input(drop(x, self.dropout, self.training)).relu()
        for conv in self.convs:
            x = conv(drop(x, self.dropout, self.training), h0, *adj).relu()
        return self.output(drop(x, self.dropout, self.training))


def accuracy(logits, labels, mask):
    return (logits[mask].argmax(1) == labels[mask]).float().mean().item()


def train(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.perf_counter()
    x, labels, edge_index, masks = load(args)
    if args.features == "dense":
        x = x.to_dense()
    if args.model in ("gcn", "gcnii"):
        adj = normalized_adjacency(edge_index, x.shape[0], args.adjacency)
    else:
        adj = plain_adjacency(edge_index, x.shape[0], args.adjacency)
    load_s = time.perf_counter() - t0
    classes = int(labels.max()) + 1
    if args.model == "gcn":
        model = gcn(x.shape[1], args.hidden, classes, args.layers, args.dropout)
    elif args.model == "sage":
        model = sage(x.shape[1], args.hidden, classes, args.layers, args.dropout)
    elif args.model == "gin":
        model = gin(x.shape[1], args.hidden, classes, args.layers, args.dropout, args.eps_learnable)
    elif args.model == "gat":
        model = gat(x.shape[1], args.hidden, classes, args.layers, args.dropout, args.heads,
                    args.output_heads, args.attention_dropout)
    else:
        model = Gcnii(x.shape[1], args.hidden, classes, args.layers, args.dropout, args.alpha,
                      args.lam)
    # L2 on every weight and bias, folded into the gradient: Strata's Adam.
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay,
                           betas=(0.9, 0.999), eps=1e-8)
    times, best = [], dict(val=-1.0, test=0.0, epoch=-1)
    for epoch in range(args.epochs):
        start = time.perf_counter()
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(x, adj)[masks["train"]], labels[masks["train"]])
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - start)
        model.eval()
        with torch.no_grad():
            logits = model(x, adj)
        val, test = accuracy(logits, labels, masks["valid"]), accuracy(logits, labels, masks["test"])
        if val > best["val"]:
            best = dict(val=val, test=test, epoch=epoch)
        if args.verbose:
            print(f"epoch {epoch:4d}  loss {loss.item():.4f}  val {val:.4f}  {times[-1]:.3f} s")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(dict(
        model=args.model, layers=args.layers, threads=args.threads, features=args.features,
        adjacency=args.adjacency,
        epochs=args.epochs, median_epoch_s=statistics.median(times) if times else 0.0,
        test_acc=best["test"], best_val_acc=best["val"], best_epoch=best["epoch"],
        final_loss=loss.item() if times else None, load_s=load_s, peak_rss_mb=peak_mb,
        torch=torch.__version__)))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--dataset", required=True, help="OGB raw-layout directory")
    p.add_argument("--split", default="", help="split name (default: the first in name order)")
    p.add_argument("--directed", action="store_true")
    p.add_argument("--binarize", action="store_true")
    p.add_argument("--row-normalize", type=int, default=1)
    p.add_argument("--model", choices=["gcn", "gcnii", "sage", "gin", "gat"], default="gcn")
    p.add_argument("--eps-learnable", action="store_true", help="gin: train eps (from 0)")
    p.add_argument("--heads", type=int, default=1, help="gat: hidden layers' heads")
    p.add_argument("--output-heads", type=int, default=1, help="gat: output layer's heads")
    p.add_argument("--attention-dropout", type=float, default=0.0, help="gat")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--alpha", type=float, default=0.1)
    p.add_argument("--lambda", dest="lam", type=float, default=0.5)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--features", choices=["sparse", "dense"], default="sparse",
                   help="input features as a torch sparse COO matrix (Strata keeps them sparse) "
                        "or dense, as PyG's own Coauthor loader gives them")
    p.add_argument("--adjacency", choices=["edge_index", "csr"], default="edge_index",
                   help="edge_index: gather/scatter message passing (PyG's default); csr: "
                        "torch sparse CSR adj_t and SpMM (its backward re-sorts adj_t each "
                        "step: slower for 2 layers, faster for 16, measured on 2 cores)")
    p.add_argument("--cache", default=str(Path(__file__).parent / "cache"),
                   help="folder for the parsed raw arrays (.npz)")
    p.add_argument("--verbose", action="store_true", help="print one line per epoch")
    train(p.parse_args())


if __name__ == "__main__":
    main()
