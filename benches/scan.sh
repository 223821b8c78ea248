#!/usr/bin/env bash
# End-to-end scan workloads of issue #4 ("Speed and memory").
#
# W1: a CZDS-profile zone of N names (default 10 million) with 2% IDN labels
#     (Devanagari, Hindi and Khmer words, digits in ASCII, Devanagari and
#     Khmer), scanned with the built-in set; compared with `wc -l` on the
#     same file, with peak RSS, at 1 and 2 threads.
# W2: 1 million IDN labels scanned with ICANN's 2nd-level Devanagari and
#     Khmer LGRs and the 2nd-level common LGR as --variants, at 1 and 2
#     threads (labels/s).
#
# Each figure is the fastest of its runs (the VM's timings swing by
# 10-30 %), with that run's peak RSS; W1 runs in ROUNDS rounds (default
# 5), each timing `wc -l` and both scans, and the ratio of each round is
# printed with their median.
#
# Inputs are generated with a fixed seed by examples/gen_zone.rs from
# ../shared/golden/corpus.tsv (never committed).
#
# Usage: benches/scan.sh [W1_NAMES] [W2_LABELS]   (defaults: 10000000 1000000)
# Env: CARGO_TARGET_DIR (default: target), LGRSCAN_REFERENCE_DIR (default: ../shared),
#      ROUNDS (default: 5)
set -euo pipefail
cd "$(dirname "$0")/.."
N1=${1:-10000000}
N2=${2:-1000000}
ROUNDS=${ROUNDS:-5}
TARGET=${CARGO_TARGET_DIR:-target}
REF=${LGRSCAN_REFERENCE_DIR:-../shared}
DIR=$TARGET/bench
mkdir -p "$DIR"
. benches/lib.sh
cargo build --release --quiet --bin lgrscan --example gen_zone
BIN=$TARGET/release/lgrscan
W1=$DIR/w1-$N1.zone
W2=$DIR/w2-$N2.list
[ -s "$W1" ] || "$TARGET/release/examples/gen_zone" czds "$N1" 2 "$W1" "$REF/golden/corpus.tsv"
[ -s "$W2" ] || "$TARGET/release/examples/gen_zone" idn "$N2" "$W2" "$REF/golden/corpus.tsv"
# The page cache holds the inputs as a read from disk leaves them: in large
# folios (ext4, Linux 6.x). A file written moments ago in small writes, or
# faulted in through a map, is held in 4 KiB pages, which cost a mapping
# reader about 0.2 s more system time per GB (`wc -l`, which copies, does
# not see it). So each input is dropped from the cache (GNU dd's nocache)
# and read back whole first.
for f in "$W1" "$W2"; do dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || true; done
cat "$W1" "$W2" > /dev/null

run() { # prints "seconds peak_kb" of the fastest of three runs of "$@"
  local best="" best_rss=""
  for _ in 1 2 3; do
    local t0 t1 rss d
    t0=$(now)
    /usr/bin/time -o "$DIR/time.out" -f '%M' "$@" > /dev/null 2>&1 || true
    t1=$(now)
    rss=$(tail -1 "$DIR/time.out")
    d=$(calc "$t1 - $t0")
    if [ -z "$best" ] || awk "BEGIN{exit !($d < $best)}"; then best=$d; best_rss=$rss; fi
  done
  echo "$best $best_rss"
}

echo "load: $(uptime)"
size=$(stat -c %s "$W1")
# ROUNDS rounds, each timing `wc -l`, then the scan at 2 and 1 threads:
# the VM's speed drifts within a run, and a command timed only at the
# start would carry the drift into the ratio. Each figure is the fastest
# of its runs (with that run's peak RSS); the ratio of each round's
# `wc -l` and 2-thread scan is printed too, with their median.
wc_r=() s1_r=() s2_r=() pair_r=() cpu_r=() sys_r=()
for _ in $(seq "$ROUNDS"); do
  read -r w _ < <(once wc -l "$W1")
  read -r s2 kb2 c2 y2 < <(once "$BIN" scan "$W1" --threads 2 -q --format csv -o "$DIR/w1-2.csv")
  read -r s1 kb1 c1 y1 < <(once "$BIN" scan "$W1" --threads 1 -q --format csv -o "$DIR/w1-1.csv")
  wc_r+=("$w") s2_r+=("$s2 $kb2") s1_r+=("$s1 $kb1") pair_r+=("$(calc "$s2 / $w")")
  cpu_r+=("$c1/$c2") sys_r+=("$y1/$y2")
done
wc_s=$(fastest "${wc_r[@]}")
printf 'W1 %s: %d bytes, %s lines\n' "$W1" "$size" "$(wc -l < "$W1")"
printf '  wc -l           %6.3f s\n' "$wc_s"
declare -A w1
for t in 1 2; do
  if [ "$t" = 1 ]; then read -r s kb < <(fastest "${s1_r[@]}"); else read -r s kb < <(fastest "${s2_r[@]}"); fi
  w1[$t]=$s
  printf '  scan, %d thread  %6.3f s  %.2f M names/s  ratio to wc -l %.1f  peak RSS %d MB\n' \
    "$t" "$s" "$(calc "$N1 / $s / 1e6")" "$(calc "$s / $wc_s")" "$((kb / 1024))"
done
printf '  scan at 2 threads / wc -l, round by round: %s (median %s)\n' \
  "$(printf '%s\n' "${pair_r[@]}" | awk '{printf "%s%.1f", (NR > 1 ? " " : ""), $1}')" \
  "$(median "${pair_r[@]}")"
# CPU time (user + system) of the scans, round by round: the same work at
# 1 and 2 threads, so a larger figure at 2 threads is what running two
# threads at once costs on this machine.
printf '  CPU seconds of the scan at 1/2 threads, round by round: %s\n' "${cpu_r[*]}"
# The system part: mostly mapping the input and faulting in new memory;
# about 0.1 s at 2 threads when the page cache holds the file in large
# folios (mapped 2 MiB at a time), twice that in 4 KiB pages.
printf '  of which system time: %s\n' "${sys_r[*]}"
cmp -s "$DIR/w1-1.csv" "$DIR/w1-2.csv" && echo "  1 and 2 threads: identical output"
printf '  speed-up 1 -> 2 threads: %.2f\n' "$(calc "${w1[1]} / ${w1[2]}")"

L=$REF/lgr
declare -A w2
printf 'W2 %s: %d IDN labels\n' "$W2" "$N2"
for t in 1 2; do
  read -r s kb < <(run "$BIN" scan "$W2" --input-format list --threads "$t" -q --format csv \
    --lgr "$L/lgr-second-level-devanagari-script-31may22-en.xml" \
    --lgr "$L/lgr-second-level-khmer-script-31may22-en.xml" \
    --variants "$L/lgr-second-level-common-31may22-en.xml" -o "$DIR/w2-$t.csv")
  w2[$t]=$s
  printf '  scan, %d thread  %6.3f s  %.0f labels/s  peak RSS %d MB\n' "$t" "$s" "$(calc "$N2 / $s")" "$((kb / 1024))"
done
cmp -s "$DIR/w2-1.csv" "$DIR/w2-2.csv" && echo "  1 and 2 threads: identical output"
printf '  speed-up 1 -> 2 threads: %.2f\n' "$(calc "${w2[1]} / ${w2[2]}")"
