#!/usr/bin/env bash
# bench/run.sh: the speed and memory benchmark of onnx-lint (issue 6), in one command.
#
# Builds the release binary, gets the project venv (tools/venv.sh), generates the missing input models in
# bench/out/ (existing ones are never regenerated unless --regen), then runs bench/bench.py, which prints one
# table (median wall time and peak RSS of onnx-lint check/shapes/expand, the onnx anchor, cat and cp over
# interleaved rounds) and the targets with PASS/FAIL. The report is also written to bench/out/results.md
# and every sample to bench/out/results.json.
#
# Usage: bench/run.sh [--regen] [--no-build] [bench.py options: --rounds N, --only NAMES, --tools LIST,
#                      --wait-load L, ...]
#   --regen      regenerate the selected input models even if they exist
#   --no-build   do not run cargo build --release (use the binary as it is)
#   --corpus real  instead: the real corpus of the conformance harness (48 models), onnx-lint check and
#                shapes against onnx's and onnxruntime's shape inference (bench/corpus.py; takes
#                --rounds, --only, --bin; the PyPI models come from the harness's cache)
# Inputs (--only takes these names or globs, comma-separated): bert_base, bert_base_ext, bert_base_x4,
# synthetic_10k, synthetic_100k, synthetic_1M, synthetic_100k_expanded, synthetic_1M_expanded (`expand` of
# the synthetic model by the binary benchmarked; its output is the same bytes whatever the build). bert_base_x4 (1.74 GB) needs about 4 GB of free disk (the
# model, and the expand/cp outputs while they run) and about 6 GB of memory to generate; it is skipped with
# a message if there is less.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/bench/out"

corpus="" regen=0 build=1 only="" pass=() bin="$root/target/release/onnx-lint"
while [ $# -gt 0 ]; do
  case "$1" in
    --regen) regen=1 ;;
    --corpus) corpus="$2"; shift ;;
    --no-build) build=0 ;;
    --only) only="$2"; pass+=("$1" "$2"); shift ;;
    --only=*) only="${1#--only=}"; pass+=("$1") ;;
    --bin) bin="$2"; pass+=("$1" "$2"); shift ;;
    --bin=*) bin="${1#--bin=}"; pass+=("$1") ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) pass+=("$1") ;;
  esac
  shift
done

if [ "$build" = 1 ]; then
  echo "== cargo build --release" >&2
  (cd "$root" && cargo build --release --quiet)
fi
py=$("$root/tools/venv.sh")
mkdir -p "$out"
if [ -n "$corpus" ]; then
  [ "$corpus" = real ] || { echo "run.sh: --corpus: only 'real' is known" >&2; exit 2; }
  exec "$py" "$root/bench/corpus.py" --python "$py" "${pass[@]}"
fi

selected() {  # is input $1 selected by --only?
  [ -z "$only" ] && return 0
  local pat
  IFS=',' read -ra pats <<<"$only"
  for pat in "${pats[@]}"; do
    # shellcheck disable=SC2254
    case "$1" in $pat) return 0 ;; esac
  done
  return 1
}

avail_kb() { df -Pk "$out" | awk 'NR==2 {print $4}'; }
memavail_kb() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }

# name | files | generator arguments | disk needed (GB) | memory needed to generate (GB)
inputs=(
  "bert_base|bert_base.onnx|bench/make_bert.py|1|3"
  "bert_base_ext|bert_base_ext.onnx bert_base_ext.onnx.data|bench/make_bert.py --external|1|2"
  "bert_base_x4|bert_base_x4.onnx|bench/make_bert.py --scale 4|4|7"
  "synthetic_10k|synthetic_10k.onnx|bench/make_synthetic.py --nodes 10k|1|1"
  "synthetic_100k|synthetic_100k.onnx|bench/make_synthetic.py --nodes 100k|1|1"
  "synthetic_1M|synthetic_1M.onnx|bench/make_synthetic.py --nodes 1M|1|2"
  "synthetic_100k_expanded|synthetic_100k_expanded.onnx|expand synthetic_100k|1|1"
  "synthetic_1M_expanded|synthetic_1M_expanded.onnx|expand synthetic_1M|1|2"
)
for entry in "${inputs[@]}"; do
  IFS='|' read -r name files gen disk_gb mem_gb <<<"$entry"
  selected "$name" || continue
  missing=0
  for f in $files; do [ -e "$out/$f" ] || missing=1; done
  [ "$missing" = 0 ] && [ "$regen" = 0 ] && continue
  if [ "$(avail_kb)" -lt $((disk_gb * 1024 * 1024)) ]; then
    echo "== $name: skipped, needs ~${disk_gb} GB of free disk in bench/out ($(($(avail_kb) / 1024)) MB free)" >&2
    continue
  fi
  if [ "$(memavail_kb)" -lt $((mem_gb * 1024 * 1024)) ]; then
    echo "== $name: skipped, needs ~${mem_gb} GB of free memory to generate ($(($(memavail_kb) / 1024)) MB available)" >&2
    continue
  fi
  echo "== generating $name: $gen" >&2
  case "$gen" in
    expand\ *)  # `expand` of another input, made by the binary
      src="$out/${gen#expand }.onnx"
      [ -e "$src" ] || (cd "$root" && "$py" bench/make_synthetic.py --nodes "${gen#expand synthetic_}" -o "$src") >&2
      "$bin" expand "$src" -o "$out/${files%% *}" --no-fsync 2>/dev/null ;;
    *)
      # shellcheck disable=SC2086
      (cd "$root" && "$py" $gen -o "$out/${files%% *}") >&2 ;;
  esac
done

exec "$py" "$root/bench/bench.py" --python "$py" "${pass[@]}"
