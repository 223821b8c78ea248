#!/usr/bin/env bash
# The .com-sized run of issue #27: a sorted CZDS dump of 143.5M names
# (2% IDN, four NS records a name: 29.9 GB, more than this machine's
# 24 GB of memory), scanned with the built-in set at 2 threads against
# `wc -l` on the same file, each command after the page cache is dropped,
# so both read from disk. Prints each round's times, ratio and peak RSS.
#
# Generated once (examples/gen_zone.rs czds, fixed seed, about 7 minutes
# and 10 GB of memory; never committed) under $CARGO_TARGET_DIR/bench/.
# Dropping the page cache needs root (`/proc/sys/vm/drop_caches`).
#
# Usage: benches/com.sh [NAMES] [NS_PER_NAME]   (defaults: 143500000 4)
# Env: CARGO_TARGET_DIR (default: target), LGRSCAN_REFERENCE_DIR (default:
#      ../shared), ROUNDS (default: 2), BASE (another lgrscan binary, run
#      in each round too, and its report compared)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-143500000}
NS=${2:-4}
ROUNDS=${ROUNDS:-2}
TARGET=${CARGO_TARGET_DIR:-target}
REF=${LGRSCAN_REFERENCE_DIR:-../shared}
DIR=$TARGET/bench
F=$DIR/com-$N-$NS.zone
. benches/lib.sh
[ -w /proc/sys/vm/drop_caches ] || { echo "com.sh: needs root to drop the page cache" >&2; exit 2; }
mkdir -p "$DIR"
cargo build --release --quiet --bin lgrscan --example gen_zone
BIN=$TARGET/release/lgrscan
[ -s "$F" ] || GEN_ZONE_NS=$NS "$TARGET/release/examples/gen_zone" czds "$N" 2 "$F" "$REF/golden/corpus.tsv"
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; once "$@"; }
echo "load: $(uptime)"
echo "$N names, $NS NS a name, $(($(stat -L -c %s "$F") / 1000000)) MB, page cache dropped before each command"
echo
echo "| round | wc -l | lgrscan | ratio | peak RSS |${BASE:+ base | base RSS |}"
echo "|---|---|---|---|---|${BASE:+---|---|}"
for r in $(seq "$ROUNDS"); do
  read -r w _ < <(cold wc -l "$F")
  read -r s kb _ < <(cold "$BIN" scan "$F" --threads 2 -q --format csv -o "$DIR/com.csv")
  extra=""
  if [ -n "${BASE:-}" ]; then
    read -r b bkb _ < <(cold "$BASE" scan "$F" --threads 2 -q --format csv -o "$DIR/com-base.csv")
    extra=" $(printf '%.1f s | %d MB |' "$b" "$((bkb / 1024))")"
  fi
  printf '| %d | %.1f s | %.1f s | %.2f× | %d MB |%s\n' \
    "$r" "$w" "$s" "$(calc "$s / $w")" "$((kb / 1024))" "$extra"
done
if [ -n "${BASE:-}" ]; then
  cmp -s "$DIR/com.csv" "$DIR/com-base.csv" && echo "reports identical" || echo "reports differ"
fi
