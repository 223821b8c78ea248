#!/usr/bin/env bash
# Interleaved A/B timing of two or more lgrscan binaries on one command:
#
#   benches/ab.sh ROUNDS "ARGS" BINARY...
#   benches/ab.sh 7 "index target/bench/w1-10000000.zone --threads 2 -o /tmp/ab.idx" \
#       /tmp/lgrscan-before target/release/lgrscan
#
# Each round runs every binary once, in the order given, so that the
# machine's drift (a shared VM's speed moves by 10-40 % within minutes)
# reaches all of them alike; a comparison of figures from separate runs
# is not. Prints, per binary, the median wall time, the mean CPU time
# (user + system) and every wall time sorted. ARGS is split on white
# space; the command's output goes to /dev/null, so give `-o FILE` where
# a report's writing is part of what is timed. The exit status of the
# command is not checked (a scan with findings exits 1): compare the
# binaries' outputs apart (`cmp`).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ $# -lt 3 ]; then
  sed -n '2,5p' "$0" >&2
  exit 2
fi
rounds=$1 args=$2
shift 2
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
declare -A wall cpu
for _ in $(seq "$rounds"); do
  for bin in "$@"; do
    # shellcheck disable=SC2086 # ARGS is a command line, split on purpose
    read -r s _ c _ < <(once "$bin" $args)
    wall[$bin]="${wall[$bin]:-} $s"
    cpu[$bin]="${cpu[$bin]:-} $c"
  done
done
for bin in "$@"; do
  # shellcheck disable=SC2086
  sorted=$(printf '%s\n' ${wall[$bin]} | sort -g | tr '\n' ' ')
  # shellcheck disable=SC2086
  mid=$(printf '%s\n' ${wall[$bin]} | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  # shellcheck disable=SC2086
  mean_cpu=$(printf '%s\n' ${cpu[$bin]} | awk '{s += $1} END {printf "%.3f", s / NR}')
  echo "$bin: median $mid s, CPU $mean_cpu s | $sorted"
done
