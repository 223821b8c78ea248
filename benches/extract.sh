#!/usr/bin/env bash
# Label extraction speed on a CZDS-profile dump (issue #3, "Speed").
#
# Generates a >= 1 GiB dump with a fixed seed (not committed), warms the
# page cache, then in one run times `wc -l` and the extraction example on
# the same file (1 and 2 threads; labels borrowed from the map, copied with
# --copy, and with NS target sets), in interleaved rounds, and prints GB/s
# and the ratio to `wc -l`.
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
secs() { # wall-clock seconds of one run of "$@"
  local t0 t1
  t0=$(now); "$@" > /dev/null; t1=$(now)
  calc "$t1 - $t0"
}
least() { printf '%s\n' "$@" | sort -g | head -1; }

# Five rounds, each running every command once, `wc -l` just before the
# extraction at 2 threads: the VM's speed drifts within a run, and a
# command timed only at the start or only at the end would carry the
# drift into the ratio. Each figure is the fastest of its five runs; the
# ratio of each round's pair is printed too.
EX=$TARGET/release/examples/extract
wc_r=() ex1_r=() ex2_r=() cp2_r=() ns2_r=() pair_r=()
for _ in 1 2 3 4 5; do
  w=$(secs wc -l "$ZONE")
  e=$(RAYON_NUM_THREADS=2 secs "$EX" "$ZONE")
  wc_r+=("$w") ex2_r+=("$e") pair_r+=("$(calc "$e / $w")")
  ex1_r+=("$(RAYON_NUM_THREADS=1 secs "$EX" "$ZONE")")
  cp2_r+=("$(RAYON_NUM_THREADS=2 secs "$EX" --copy "$ZONE")")
  ns2_r+=("$(RAYON_NUM_THREADS=2 secs "$EX" --ns "$ZONE")")
done
wc_s=$(least "${wc_r[@]}")
ex1_s=$(least "${ex1_r[@]}")
ex2_s=$(least "${ex2_r[@]}")
cp2_s=$(least "${cp2_r[@]}")
ns2_s=$(least "${ns2_r[@]}")
RAYON_NUM_THREADS=2 "$TARGET/release/examples/extract" --ns "$ZONE"
printf 'file: %s (%d bytes, %s lines)\n' "$ZONE" "$size" "$(wc -l < "$ZONE")"
printf 'wc -l:                         %.3f s  %.2f GB/s\n' "$wc_s" "$(calc "$size / $wc_s / 1e9")"
line() { printf '%-30s %.3f s  %.2f GB/s  ratio to wc -l %.2f\n' "$1" "$2" "$(calc "$size / $2 / 1e9")" "$(calc "$2 / $wc_s")"; }
line 'extract, 1 thread:' "$ex1_s"
line 'extract, 2 threads:' "$ex2_s"
line 'extract, 2 threads, --copy:' "$cp2_s"
line 'extract + NS, 2 threads:' "$ns2_s"
printf 'speed-up 1 -> 2 threads:       %.2f\n' "$(calc "$ex1_s / $ex2_s")"
printf 'extract at 2 threads / wc -l, round by round: %s\n' \
  "$(printf '%s\n' "${pair_r[@]}" | awk '{printf "%.2f ", $1}')"
