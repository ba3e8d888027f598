#!/usr/bin/env bash
# bench/same_output.sh BIN_A BIN_B: do two onnx-lint binaries give the same output, byte for byte?
#
# For every model of the set below it runs, with each binary, `expand` (the written model, its standard
# error, its exit status), `fold` of the model and `fold` of A's `expand` output (same), `shapes` and
# `shapes --format json` (standard output, exit status) and `check --format json` (standard output,
# exit status), and compares the two. It prints one line per difference and a summary; exit 0 when
# everything is identical, 1 otherwise. A speed change must not change a byte of any of them.
#
# The models: every *.onnx under models/ (recursively); the real corpus (the checked-in models of
# tests/conformance/real/models and the PyPI ones in the harness's cache); bench/out/synthetic_{1k,10k,100k}
# (made by bench/make_synthetic.py if missing); every 4th model (sorted by path) of the harness's cache of
# node tests and onnx's shipped models (tests/conformance/cache/{node,real}: 509 of 2033).
#
# Environment: CACHE, the harness's cache folder (default tests/conformance/cache); SAMPLE_EVERY (4).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -ne 2 ]; then
  sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
fi
bin_a=$(realpath "$1") bin_b=$(realpath "$2")
cache="${CACHE:-$root/tests/conformance/cache}"
every="${SAMPLE_EVERY:-4}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

models=()
while IFS= read -r f; do models+=("$f"); done < <(
  find "$root/models" -name '*.onnx' | sort
  find "$root/tests/conformance/real/models" -name '*.onnx' | sort
  find "$cache/real-corpus" -name '*.onnx' 2>/dev/null | sort
)
for n in 1k 10k 100k; do
  f="$root/bench/out/synthetic_$n.onnx"
  if [ ! -e "$f" ]; then
    mkdir -p "$root/bench/out"
    "$("$root/tools/venv.sh")" "$root/bench/make_synthetic.py" --nodes "$n" -o "$f" >&2
  fi
  models+=("$f")
done
i=0
while IFS= read -r f; do
  [ $((i % every)) = 0 ] && models+=("$f")
  i=$((i + 1))
done < <(find "$cache/node" "$cache/real" -name '*.onnx' 2>/dev/null | sort)

compared=0 differ=0
# run TAG BIN ARGS...: stdout, stderr and exit status of BIN ARGS in $tmp/TAG.{out,err,rc}
run() {
  local tag=$1 bin=$2
  shift 2
  "$bin" "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
  echo $? >"$tmp/$tag.rc"
}
# same WHAT MODEL FILES...: compare $tmp/a.X with $tmp/b.X for each X
same() {
  local what=$1 model=$2 x
  shift 2
  for x in "$@"; do
    compared=$((compared + 1))
    if ! cmp -s "$tmp/a.$x" "$tmp/b.$x"; then
      differ=$((differ + 1))
      echo "DIFFER: $what ($x): $model"
    fi
  done
}
# written COMMAND MODEL [ARGS...]: a command that writes a model; both write to the same path (it is in
# the report on standard error), moved aside after each run.
written() {
  local cmd=$1 model=$2 tag
  shift 2
  for tag in a b; do
    local bin=$bin_a
    [ $tag = b ] && bin=$bin_b
    rm -f "$tmp/w.onnx"
    run $tag "$bin" "$cmd" "$model" -o "$tmp/w.onnx" --no-fsync --no-copy-data "$@"
    if [ -e "$tmp/w.onnx" ]; then mv "$tmp/w.onnx" "$tmp/$tag.onnx"; else echo none >"$tmp/$tag.onnx"; fi
  done
  same "$cmd $*" "$model" out err rc onnx
}
printed() {
  local model=$1
  shift
  run a "$bin_a" "$@"
  run b "$bin_b" "$@"
  same "$*" "$model" out err rc
}

for m in "${models[@]}"; do
  written expand "$m"
  cp "$tmp/a.onnx" "$tmp/expanded.onnx"
  written fold "$m"
  if [ "$(head -c 4 "$tmp/expanded.onnx")" != none ]; then
    written fold "$tmp/expanded.onnx"
  fi
  printed "$m" shapes "$m"
  printed "$m" shapes --format json "$m"
  printed "$m" check --format json "$m"
done
echo "same_output: ${#models[@]} models, $compared outputs compared, $differ differ"
[ "$differ" = 0 ]
