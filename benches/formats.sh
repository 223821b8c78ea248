#!/usr/bin/env bash
# The same registered names in the six input shapes of issue #27, scanned
# with the built-in set: time at 1 and 2 threads, `wc -l` on the same file,
# the ratio, labels per second, peak RSS and, at 2 threads, the cores kept
# busy (user plus system time over wall time: near 2, what is left of a
# goal is work, not waiting), printed as one table.
#
# Shapes (examples/gen_zone.rs `shapes`, fixed seed, never committed):
#   czds-sorted     CZDS profile (absolute lower-case owners, tabs), sorted
#   czds-random     the same records, owners in random order
#   master-sorted   RFC 1035 master file: $ORIGIN, $TTL, relative owners,
#                   blank owner = previous, IN/NS upper case
#   master-random   the same, owners in random order
#   list            one A-label a line
#   csv             label,registered,registrant
#   csv-crlf        the same CSV with CRLF line ends (as Windows tools
#                   export it), made from it with `sed`
#
# Each figure is the fastest of ROUNDS runs (default 3); the rounds
# interleave `wc -l` and the scans so that the VM's drift reaches both
# sides of a ratio. The reports of the sorted shapes (all but the random
# two) must be identical apart from the source and line columns, and so
# must the two random ones (the holder of a set is the first member in
# input order).
#
# Usage: benches/formats.sh [NAMES] [IDN_PERCENT]   (defaults: 10000000 2)
# Env: CARGO_TARGET_DIR (default: target), LGRSCAN_REFERENCE_DIR (default:
#      ../shared), ROUNDS (default: 3), SHAPES (default: all six)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000000}
PCT=${2:-2}
ROUNDS=${ROUNDS:-3}
TARGET=${CARGO_TARGET_DIR:-target}
REF=${LGRSCAN_REFERENCE_DIR:-../shared}
DIR=$TARGET/bench/shapes-$N-$PCT
SHAPES=${SHAPES:-czds-sorted czds-random master-sorted master-random list csv csv-crlf}
. benches/lib.sh
mkdir -p "$DIR"
cargo build --release --quiet --bin lgrscan --example gen_zone
BIN=$TARGET/release/lgrscan
[ -s "$DIR/labels.csv" ] || "$TARGET/release/examples/gen_zone" shapes "$N" "$PCT" "$DIR" "$REF/golden/corpus.tsv"
[ -s "$DIR/labels-crlf.csv" ] || sed 's/$/\r/' "$DIR/labels.csv" > "$DIR/labels-crlf.csv"
file_of() {
  case $1 in
    list) echo "$DIR/labels.list" ;;
    csv) echo "$DIR/labels.csv" ;;
    csv-crlf) echo "$DIR/labels-crlf.csv" ;;
    *) echo "$DIR/$1.zone" ;;
  esac
}
echo "load: $(uptime)"
echo "$N names, $PCT% IDN, fastest of $ROUNDS rounds"
echo
echo "| shape | size | wc -l | 2 threads | ratio | labels/s | peak RSS | cores busy | 1 thread | 1→2 | peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for shape in $SHAPES; do
  f=$(file_of "$shape")
  # Cached as a read from disk leaves it (large folios): see scan.sh.
  dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || true
  cat "$f" > /dev/null
  wc_r=() s2_r=() s1_r=()
  for _ in $(seq "$ROUNDS"); do
    read -r w _ < <(once wc -l "$f")
    read -r s2 kb2 cpu2 _ < <(once "$BIN" scan "$f" --threads 2 -q --format csv -o "$DIR/$shape-2.csv")
    read -r s1 kb1 _ < <(once "$BIN" scan "$f" --threads 1 -q --format csv -o "$DIR/$shape-1.csv")
    wc_r+=("$w") s2_r+=("$s2 $kb2 $cpu2") s1_r+=("$s1 $kb1")
  done
  cmp -s "$DIR/$shape-1.csv" "$DIR/$shape-2.csv" || echo "warning: $shape: 1 and 2 threads differ" >&2
  w=$(fastest "${wc_r[@]}")
  read -r s2 kb2 cpu2 < <(fastest "${s2_r[@]}")
  read -r s1 kb1 < <(fastest "${s1_r[@]}")
  printf '| %s | %d MB | %.3f s | %.3f s | %.1f× | %.2f M | %d MB | %.2f | %.3f s | %.2f | %d MB |\n' \
    "$shape" "$(($(stat -L -c %s "$f") / 1000000))" "$w" "$s2" "$(calc "$s2 / $w")" \
    "$(calc "$N / $s2 / 1e6")" "$((kb2 / 1024))" "$(calc "$cpu2 / $s2")" "$s1" "$(calc "$s1 / $s2")" \
    "$((kb1 / 1024))"
done
echo
# Reports identical apart from `source` and `line` (columns 4 and 5) and
# the columns a CSV input carries (the last four: registered, registrant,
# registrar, ns).
same() { # prints whether the reports of the shapes given agree
  local first="" s
  for s in "$@"; do
    [ -s "$DIR/$s-2.csv" ] || continue
    cut -d, -f1-3,6- "$DIR/$s-2.csv" | sed -E 's/(,[^,]*){4}$//' > "$DIR/$s.rows"
    if [ -z "$first" ]; then first=$s; elif ! cmp -s "$DIR/$first.rows" "$DIR/$s.rows"; then
      echo "reports differ: $first and $s"; return 1
    fi
  done
  [ -n "$first" ] && echo "reports identical apart from source, line and CSV columns: $*"
}
same czds-sorted master-sorted list csv csv-crlf || true
same czds-random master-random || true
