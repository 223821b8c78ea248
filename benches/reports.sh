#!/usr/bin/env bash
# Compliance reports read back: `diff`, `report`, `scan --baseline` and
# `scan --format html` on two JSON Lines reports of N variant pairs each
# (default 150,000: a number in ASCII digits and in Devanagari digits, so
# 2N rows, N findings), the later one with every tenth pair removed and
# N/10 new ones. Prints, for each command, the report sizes, the time
# (fastest of ROUNDS, default 3) and that run's peak RSS: the reports are
# read a line at a time and their rows kept compactly, so the peak should
# stay near the two reports' size on disk.
#
# Usage: benches/reports.sh [N]   Env: ROUNDS, CARGO_TARGET_DIR, BIN (another
# build of lgrscan to time, e.g. the commit before a change)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-150000}
ROUNDS=${ROUNDS:-3}
TARGET=${CARGO_TARGET_DIR:-target}
DIR=$TARGET/bench/reports-$N
mkdir -p "$DIR"
. benches/lib.sh
cargo build --release --quiet --bin lgrscan
BIN=${BIN:-$TARGET/release/lgrscan}

awk -v n="$N" 'BEGIN {
  split("० १ २ ३ ४ ५ ६ ७ ८ ९", dev, " ")
  for (i = 100000; i < 100000 + n * 11 / 10; i++) {
    s = i ""; d = ""
    for (j = 1; j <= length(s); j++) d = d dev[substr(s, j, 1) + 1]
    if (i < 100000 + n) print s "\n" d > "/dev/stderr"
    if (i % 10 || i >= 100000 + n) print s "\n" d
  }
}' > "$DIR/new.txt" 2> "$DIR/old.txt"
"$BIN" scan "$DIR/old.txt" --format jsonl -o "$DIR/old.jsonl" -q || [ $? = 1 ]
"$BIN" scan "$DIR/new.txt" --format jsonl -o "$DIR/new.jsonl" -q || [ $? = 1 ]
echo "reports: $(stat -c %s "$DIR/old.jsonl") and $(stat -c %s "$DIR/new.jsonl") bytes, $(wc -l < "$DIR/old.jsonl") and $(wc -l < "$DIR/new.jsonl") lines"

best() { # best CMD...: the fastest of ROUNDS runs, "seconds peak_kb cpu sys"
  local runs=()
  for _ in $(seq "$ROUNDS"); do runs+=("$(once "$@")"); done
  fastest "${runs[@]}"
}
row() { # row NAME CMD...
  local name=$1; shift
  read -r s kb _ < <(best "$@")
  printf '%-34s %7ss  peak RSS %8s KiB\n' "$name" "$s" "$kb"
}
row "diff old new" "$BIN" diff "$DIR/old.jsonl" "$DIR/new.jsonl" -o "$DIR/diff.csv"
row "report old new (HTML)" "$BIN" report "$DIR/old.jsonl" "$DIR/new.jsonl" -o "$DIR/period.html"
row "scan new --baseline old" "$BIN" scan "$DIR/new.txt" --baseline "$DIR/old.jsonl" --format jsonl -o "$DIR/b.jsonl"
row "scan new --format html" "$BIN" scan "$DIR/new.txt" --format html -o "$DIR/scan.html"
row "scan new --format jsonl (for scale)" "$BIN" scan "$DIR/new.txt" --format jsonl -o "$DIR/s.jsonl"
