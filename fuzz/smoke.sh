#!/usr/bin/env bash
# Smoke test of the fuzz targets (run by .ci/run): builds them with the
# nightly toolchain, writes the seed corpora (seed.sh) and runs each target
# for FUZZ_SECONDS (default 30) on one core. A crash, an OOM or a unit slower
# than 60 s (the timeout of the 30-minute runs, README "Fuzzing") fails the
# run; libFuzzer's reproducer is left in fuzz/artifacts/TARGET/.
# Skipped, with a note, when no nightly toolchain is installed.
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
cd "$fuzz"
seconds="${FUZZ_SECONDS:-30}"
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz smoke test skipped: no nightly toolchain" >&2
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
cargo +nightly fuzz build
./seed.sh
for target in $(cargo fuzz list); do
    mkdir -p "artifacts/$target"
    # A copy of the seeds: the smoke test does not grow the corpus it is
    # given (runs from one CI job to the next stay alike).
    work="$(mktemp -d)"
    cp -r "corpus/$target/." "$work/"
    echo "fuzz: $target for ${seconds}s" >&2
    status=0
    cargo +nightly fuzz run "$target" "$work" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=60 -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" 2>"artifacts/$target/log" || status=$?
    rm -rf "$work"
    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec)' \
        "artifacts/$target/log" >&2 || true
    if [ "$status" -ne 0 ]; then
        tail -n 40 "artifacts/$target/log" >&2
        echo "fuzz: $target failed (exit $status)" >&2
        exit 1
    fi
done
