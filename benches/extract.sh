#!/usr/bin/env bash
# Label extraction speed on a CZDS-profile dump (issue #3, "Speed").
#
# Generates a >= 1 GiB dump with a fixed seed (not committed), warms the
# page cache, then in one run times `wc -l` and the extraction example on
# the same file (1 and 2 threads; labels borrowed from the map, copied with
# --copy, and with NS target sets) and prints GB/s and the ratio to `wc -l`.
#
# Usage: benches/extract.sh [BYTES] [SEED]     (defaults: 1073741824 42)
# Env: CARGO_TARGET_DIR (default: target), ZONE (file to use/create).
set -euo pipefail
cd "$(dirname "$0")/.."
BYTES=${1:-1073741824}
SEED=${2:-42}
TARGET=${CARGO_TARGET_DIR:-target}
ZONE=${ZONE:-$TARGET/bench/czds-$BYTES-$SEED.zone}

cargo build --release --quiet --example gen_czds --example extract
mkdir -p "$(dirname "$ZONE")"
if [ ! -s "$ZONE" ]; then
  echo "generating $ZONE ($BYTES bytes, seed $SEED)" >&2
  "$TARGET/release/examples/gen_czds" "$ZONE" "$BYTES" "$SEED"
fi
size=$(stat -c %s "$ZONE")
cat "$ZONE" > /dev/null   # warm the page cache

now() { date +%s.%N; }
calc() { awk "BEGIN{print $1}"; }
best() { # best of 5 wall-clock runs of "$@"
  local b=""
  for _ in 1 2 3 4 5; do
    local t0 t1 d
    t0=$(now); "$@" > /dev/null; t1=$(now)
    d=$(awk "BEGIN{print $t1 - $t0}")
    if [ -z "$b" ] || awk "BEGIN{exit !($d < $b)}"; then b=$d; fi
  done
  echo "$b"
}

wc_s=$(best wc -l "$ZONE")
ex1_s=$(RAYON_NUM_THREADS=1 best "$TARGET/release/examples/extract" "$ZONE")
ex2_s=$(RAYON_NUM_THREADS=2 best "$TARGET/release/examples/extract" "$ZONE")
cp2_s=$(RAYON_NUM_THREADS=2 best "$TARGET/release/examples/extract" --copy "$ZONE")
ns2_s=$(RAYON_NUM_THREADS=2 best "$TARGET/release/examples/extract" --ns "$ZONE")
RAYON_NUM_THREADS=2 "$TARGET/release/examples/extract" --ns "$ZONE"
printf 'file: %s (%d bytes, %s lines)\n' "$ZONE" "$size" "$(wc -l < "$ZONE")"
printf 'wc -l:                         %.3f s  %.2f GB/s\n' "$wc_s" "$(calc "$size / $wc_s / 1e9")"
line() { printf '%-30s %.3f s  %.2f GB/s  ratio to wc -l %.2f\n' "$1" "$2" "$(calc "$size / $2 / 1e9")" "$(calc "$2 / $wc_s")"; }
line 'extract, 1 thread:' "$ex1_s"
line 'extract, 2 threads:' "$ex2_s"
line 'extract, 2 threads, --copy:' "$cp2_s"
line 'extract + NS, 2 threads:' "$ns2_s"
printf 'speed-up 1 -> 2 threads:       %.2f\n' "$(calc "$ex1_s / $ex2_s")"
