#!/usr/bin/env bash
# Bad input through the CLI: each case must exit with status 2 and print exactly one
# line that names what is wrong, and never crash.
set -uo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

make_ogb() {  # a valid 3-vertex dataset in $tmp/$1
  local d=$tmp/$1
  mkdir -p "$d/raw" "$d/split/s"
  printf '0,1\n1,2\n' | gzip >"$d/raw/edge.csv.gz"
  printf '1.0,0.0\n0.0,1.0\n1.0,1.0\n' | gzip >"$d/raw/node-feat.csv.gz"
  printf '0\n1\n0\n' | gzip >"$d/raw/node-label.csv.gz"
  printf '3\n' | gzip >"$d/raw/num-node-list.csv.gz"
  printf '2\n' | gzip >"$d/raw/num-edge-list.csv.gz"
  printf '0\n' | gzip >"$d/split/s/train.csv.gz"
  printf '1\n' | gzip >"$d/split/s/valid.csv.gz"
  printf '2\n' | gzip >"$d/split/s/test.csv.gz"
}

expect_error "unknown flag" "--bogus" train --bogus
expect_error "bad number" "--layers" train --layers x
expect_error "zero layers" "--layers must be at least 1" train --layers 0 --epochs 1
expect_error "dropout out of range" "--dropout" train --dropout 1.5 --epochs 1
expect_error "one class" "classes must be in [2" train --classes 1 --epochs 1
expect_error "signal out of range" "feature_signal must be in [0, 1]" train --feature-signal 2 --epochs 1
expect_error "missing dataset" "nowhere" train --dataset "$tmp/nowhere" --epochs 1
expect_error "unknown model" "--model: unknown model 'gatv2'" train --mode local --model gatv2
expect_error "alpha out of range" "--alpha" train --mode local --model gcnii --alpha 2
expect_error "lambda not positive" "--lambda" train --mode local --model gcnii --lambda 0
expect_error "unknown stale-grad" "--stale-grad must be drop, delay or exact, got 'later'" train --mode local --stale-grad later
expect_error "bad layer split" "--layer-split: 'x' is not a positive layer count" train --mode local --layer-split 1,x
expect_error "unknown on-nan" "--on-nan must be stop or skip-step" train --mode local --on-nan ignore
expect_error "unknown format" "--compress must be none, bf16 or int8, got 'int4'" train --compress int4 --epochs 1
expect_error "unknown backward format" "--compress-backward must be none, bf16 or int8, got 'fp8'" train --compress int8 --compress-backward fp8 --epochs 1
expect_error "format local mode cannot use" "--compress int8,int8: mode local sends no rows" train --mode local --compress int8 --epochs 1
expect_error "comm-volume format" "--compress must be none, bf16 or int8, got 'x'" comm-volume --compress x
expect_error "unknown vertex order" "--order must be as-loaded or rcm, got 'bfs'" convert --order bfs --out "$tmp/o.strata"
expect_error "unknown storage" "--storage must be fp32 or bf16, got 'fp16'" train --storage fp16 --epochs 1
expect_error "eps-learnable gcn" "--eps-learnable is for model gin, not gcn" train --eps-learnable --epochs 1
expect_error "heads gcn" "--heads, --output-heads and --attention-dropout are for model gat, not gcn" train --heads 4 --epochs 1
expect_error "attention dropout 1" "--attention-dropout must be in [0, 1), got 1" train --model gat --attention-dropout 1 --epochs 1
expect_error "no heads" "--heads and --output-heads must be at least 1, got 0 and 1" train --model gat --heads 0 --epochs 1
expect_error "gat recompute" "--recompute is for models gcn, sage and gin, not gat" train --model gat --recompute --epochs 1
expect_error "gat bf16" "--storage bf16 is for models gcn, sage and gin, not gat" train --model gat --storage bf16 --epochs 1
expect_error "storage gcnii" "--storage bf16 is for models gcn, sage and gin, not gcnii" train --storage bf16 --model gcnii --epochs 1
expect_error "comm-volume storage" "--storage must be fp32 or bf16, got 'int8'" comm-volume --storage int8 --memory-per-rank 1GiB
expect_error "unknown adjacency" "--adjacency must be values or degrees, got 'half'" train --adjacency half --epochs 1
expect_error "adjacency sage" "--adjacency degrees is for models gcn and gcnii (sage keeps no value" train --model sage --adjacency degrees --epochs 1
expect_error "adjacency cuda" "--adjacency degrees is for --device cpu" train --device cuda --adjacency degrees --epochs 1
expect_error "comm-volume adjacency" "--adjacency must be values or degrees, got 'x'" comm-volume --adjacency x --memory-per-rank 1GiB
expect_error "comm-volume device" "--device must be cpu or cuda, not 'tpu'" comm-volume --device tpu
expect_error "bad balance" "--balance" partition --balance cores

make_ogb ok
"$strata" train --dataset "$tmp/ok" --epochs 2 >/dev/null || { echo "FAIL valid dataset"; failures=$((failures + 1)); }

# corrupt_case NAME FILE CONTENT PATTERN: a valid dataset with FILE replaced by the
# gzip of CONTENT must fail with PATTERN in its one-line error.
corrupt_case() {
  make_ogb "$1"
  printf "$3" | gzip >"$tmp/$1/$2"
  expect_error "$1" "$4" train --dataset "$tmp/$1" --epochs 1
}

corrupt_case edge-id-out-of-range raw/edge.csv.gz '0,1\n1,5\n' "edge.csv.gz:2"
corrupt_case nan-feature raw/node-feat.csv.gz '1.0,0.0\nnan,1.0\n1.0,1.0\n' "node-feat.csv.gz:2"
corrupt_case wrong-column-count raw/node-feat.csv.gz '1.0,0.0\n0.0\n1.0,1.0\n' "node-feat.csv.gz:2"
corrupt_case node-count-disagrees raw/num-node-list.csv.gz '4\n' "node"
corrupt_case non-numeric-label raw/node-label.csv.gz '0\nx\n0\n' "node-label.csv.gz:2"
corrupt_case empty-file raw/node-label.csv.gz '' "node-label.csv.gz"

make_ogb trunc
head -c 12 "$tmp/ok/raw/node-feat.csv.gz" >"$tmp/trunc/raw/node-feat.csv.gz"
expect_error "truncated gzip" "node-feat.csv.gz" train --dataset "$tmp/trunc" --epochs 1

make_ogb missing
rm "$tmp/missing/raw/node-label.csv.gz"
expect_error "missing file" "node-label.csv.gz" train --dataset "$tmp/missing" --epochs 1

printf 'not a cache' >"$tmp/bad.strata"
expect_error "bad cache" "bad.strata" train --dataset "$tmp/bad.strata" --epochs 1

# Weights files: missing, written for another model, damaged.
expect_error "missing weights" "nowhere.weights" \
  train --mode local --epochs 0 --load-weights "$tmp/nowhere.weights"
"$strata" train --mode local --epochs 1 --nodes 300 --save-weights "$tmp/w.weights" >/dev/null ||
  { echo "FAIL: --save-weights"; exit 1; }
expect_error "weights of another model" "this model is a gcn with 2 layers, 64 input features, hidden 8" \
  train --mode local --epochs 1 --nodes 300 --hidden 8 --load-weights "$tmp/w.weights"
printf 'x' | dd of="$tmp/w.weights" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_error "damaged weights" "w.weights" \
  train --mode local --epochs 0 --nodes 300 --load-weights "$tmp/w.weights"

expect_error "resume without a folder" "--resume needs --checkpoint-dir" \
  train --mode local --epochs 1 --nodes 300 --resume
expect_error "negative checkpoint interval" "--checkpoint-every must not be negative, got -2" \
  train --mode local --epochs 1 --nodes 300 --checkpoint-dir "$tmp/ck" --checkpoint-every -2
expect_ok "checkpointed run" "$strata" train --mode local --epochs 2 --nodes 300 \
  --checkpoint-dir "$tmp/ck"
expect_error "resume with another learning rate" "(lr 0.01 there, 0.05 here)" \
  train --mode local --epochs 4 --nodes 300 --checkpoint-dir "$tmp/ck" --resume --lr 0.05
expect_error "resume beyond --epochs" "2 epochs done, more than --epochs 1" \
  train --mode local --epochs 1 --nodes 300 --checkpoint-dir "$tmp/ck" --resume
expect_error "unknown --on-nan" "--on-nan must be stop or skip-step, got 'ignore'" \
  train --mode local --epochs 1 --nodes 300 --on-nan ignore
STRATA_FAULT=kill expect_error "malformed STRATA_FAULT" "STRATA_FAULT must be KIND:RANK:EPOCH" \
  train --mode local --epochs 1 --nodes 300

expect_error "hybrid without parts" "--parts must be at least 1, got 0" \
  train --mode hybrid --parts 0 --epochs 1 --nodes 300
expect_error "hybrid parts not dividing ranks" \
  "hybrid mode with --parts 2 needs a multiple of 2 ranks, the job has 1" \
  train --mode hybrid --parts 2 --epochs 1 --nodes 300
expect_error "unknown mode" "--mode must be local, graph, pipeline or hybrid, got 'grid'" \
  train --mode grid --epochs 1 --nodes 300
expect_error "unknown device" "--device must be cpu or cuda, not 'tpu'" \
  train --mode local --device tpu --epochs 1 --nodes 300
expect_error "unknown comm" "--comm must be mpi or nccl, not 'gloo'" \
  train --mode local --comm gloo --epochs 1 --nodes 300
expect_error "unknown spmm" "--spmm must be deterministic or fastest, not 'quick'" \
  train --mode local --spmm quick --epochs 1 --nodes 300
expect_error "nccl on the cpu" "--comm nccl moves GPU tensors; it needs --device cuda" \
  train --mode local --comm nccl --epochs 1 --nodes 300
# Here no GPU answers (or the build has no CUDA); on a GPU machine this trains instead.
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi >/dev/null 2>&1; then
  expect_error "cuda without a device" "--device cuda: " \
    train --mode local --device cuda --epochs 1 --nodes 300
  expect_error "cuda pipeline without a device" "--device cuda: " \
    train --mode pipeline --device cuda --epochs 1 --nodes 300
fi
expect_error "a dataset option with --shards" "--binarize does not apply with --shards" \
  train --shards "$tmp" --binarize --epochs 1
expect_error "bad memory size" "--memory-per-rank must be a size such as 8GiB, 512MB or 4096, got '8XB'" \
  comm-volume --nodes 300 --memory-per-rank 8XB

echo "$failures failed"
[[ $failures -eq 0 ]]
