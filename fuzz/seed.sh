#!/usr/bin/env bash
# Seeds the fuzz corpora from the conformance corpus (run tests/conformance/run.sh once first), then
# runs each target for the given number of seconds (default 600):
#   fuzz/seed.sh [SECONDS]
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a nightly toolchain (libFuzzer's sanitizer flags).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/../tests/conformance/cache"
secs="${1:-600}"
mkdir -p "$here/corpus/load_check" "$here/corpus/expand_reload" "$here/corpus/decode_file" "$here/corpus/external_data" "$here/corpus/config"
if [ -d "$cache" ]; then
  find "$cache" -name model.onnx -size -64k | while read -r m; do
    h=$(sha256sum "$m" | cut -c1-16)
    cp "$m" "$here/corpus/load_check/$h"
    cp "$m" "$here/corpus/expand_reload/$h"
    cp "$m" "$here/corpus/decode_file/$h"
  done
fi
printf 'weights.bin\n0\n16' >"$here/corpus/external_data/ok"
printf '../secret.bin' >"$here/corpus/external_data/parent"
printf 'out_link.bin' >"$here/corpus/external_data/link"
printf 'fifo.bin' >"$here/corpus/external_data/fifo"
printf 'up/secret.bin' >"$here/corpus/external_data/up"
# The configuration target: the configurations of the docs and the tests' examples.
for c in "$here"/../docs/examples/*.toml; do
  [ -f "$c" ] && cp "$c" "$here/corpus/config/$(basename "$c")"
done
printf 'select = ["E", "W1"]\nignore = ["I"]\n[per-file-ignores]\n"legacy/**/*.onnx" = ["T004"]\n"e1_*.onnx" = ["E1"]\n' >"$here/corpus/config/keys"
printf '[[suppress]]\nmodel = "{a,b}/*.onnx"\ncode = "E1"\nnode = "/encoder/*/Add*"\nreason = "known"\n' >"$here/corpus/config/suppress"
printf '[tool.onnx-lint]\nextend-select = ["B001"]\nerror = ["W1"]\n' >"$here/corpus/config/pyproject"
printf '[per-file-ignores]\n"{a,{b,{c,{d,[!e]}}}}" = ["W"]\n' >"$here/corpus/config/braces"
cd "$here"
for t in load_check expand_reload decode_file external_data config; do
  echo "== $t ($secs s)"
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=4096 -timeout=10 2>&1 | tail -4
done
