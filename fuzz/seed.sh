#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets to fuzz/corpus/TARGET/ from
# the project's samples and tests, the small hand-made seeds in
# fuzz/seeds/, and, when present, the reference data in ../shared (read
# here at run time, never copied into the project). Safe to run again.
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$fuzz")"
shared="${LGRSCAN_REFERENCE_DIR:-$root/../shared}"
corpus="$fuzz/corpus"
# Largest seed file kept: larger ones make every run slow.
max_bytes=131072

put() { # put TARGET NAME [PREFIX-BYTE-IN-OCTAL] < data
    local dir="$corpus/$1"
    mkdir -p "$dir"
    {
        if [ -n "${3:-}" ]; then printf "\\$3"; fi
        head -c "$max_bytes"
    } >"$dir/$2"
}

seed_file() { # seed_file TARGET FILE [PREFIX]
    [ -f "$2" ] || return 0
    put "$1" "$(basename "$2")${3:+-$3}" "${3:-}" <"$2"
}

for t in lgr_xml lgr_table zone_paths list_csv idna_roundtrip label_eval index_reader; do
    mkdir -p "$corpus/$t"
    if [ -d "$fuzz/seeds/$t" ]; then
        for f in "$fuzz/seeds/$t"/*; do seed_file "$t" "$f"; done
    fi
done

# LGRs: the built-ins, the test LGRs, the smaller ICANN ones.
for f in "$root"/src/builtin/*.xml "$root"/tests/data/lgr/*.xml; do seed_file lgr_xml "$f"; done
for f in "$shared"/lgr/*.xml; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max_bytes" ] && seed_file lgr_xml "$f"
done
# Tables: code point lists made from the golden corpus.
if [ -f "$shared/golden/corpus.tsv" ]; then
    awk -F'\t' 'NR > 1 && NR < 400 { print $2 }' "$shared/golden/corpus.tsv" |
        tr ' ' '\n' | sort -u | put lgr_table golden-cps.txt
    awk -F'\t' 'NR > 1 && NR < 200 { gsub(/ /, " U+", $2); print "U+" $2 }' \
        "$shared/golden/corpus.tsv" | put lgr_table golden-seqs.txt
fi

# Zones (the first byte is the target's knobs: chunk size, format forced).
for f in "$root"/samples/zone.txt "$root"/samples/czds.txt "$root"/tests/data/input/*.zone; do
    seed_file zone_paths "$f" 000
    seed_file zone_paths "$f" 207
done
# A zone file as named loads it, without $ORIGIN, read with --origin
# (bit 6 of the knobs) in chunks of 8 and 24 bytes.
seed_file zone_paths "$fuzz/seeds/zone_paths/named-no-origin.zone" 107
seed_file zone_paths "$fuzz/seeds/zone_paths/named-no-origin.zone" 127
if [ -f "$shared/zones/root-2018-03-12.zone" ]; then
    head -n 400 "$shared/zones/root-2018-03-12.zone" | put zone_paths root-head 003
    grep -m 200 '^xn--' "$shared/zones/root-2018-03-12.zone" | put zone_paths root-idn 003
fi

# Lists and CSV (first byte: format and chunk size).
for f in "$root"/samples/labels.csv "$root"/tests/data/scan/*; do
    seed_file list_csv "$f" 001
    seed_file list_csv "$f" 002
done
seed_file list_csv "$root/samples/labels.csv" 035
for f in "$shared"/golden/*.tsv; do
    [ -f "$f" ] || continue
    awk -F'\t' 'NR > 1 && NR < 300 { print $1 }' "$f" | put list_csv "$(basename "$f").list" 000
done

# Labels: one file per label for the IDNA target; the label evaluation
# target takes a first byte picking the LGR, then 0 (text mode).
n=0
{
    cat "$root"/samples/*.txt 2>/dev/null | awk '{ print $1 }' | sed 's/\..*//' | sort -u | awk 'NR <= 300'
    if [ -f "$shared/golden/corpus.tsv" ]; then
        awk -F'\t' 'NR > 1 { print $1 }' "$shared/golden/corpus.tsv" | awk 'NR <= 600'
    fi
} | while IFS= read -r label; do
    [ -n "$label" ] || continue
    n=$((n + 1))
    printf '%s' "$label" | put idna_roundtrip "label-$n"
    if [ $((n % 2)) -eq 0 ]; then
        printf '%s' "$label" | put label_eval "label-$n" "$(printf '%03o' $((n / 2 % 8)))"
        # Text mode: the target reads the byte after the LGR's.
        dir="$corpus/label_eval"
        { head -c 1 "$dir/label-$n"; printf '\0'; tail -c +2 "$dir/label-$n"; } >"$dir/l$n"
        rm "$dir/label-$n"
    fi
done
# Saved indexes: small valid ones (an LGR small enough for the target to
# compile), written by lgrscan itself.
idx() { # idx NAME LGR-FLAGS... < labels
    local name="$1"
    shift
    cargo run --quiet --manifest-path "$root/Cargo.toml" --bin lgrscan -- \
        index - --input-format list "$@" -o "$corpus/index_reader/$name.idx" 2>/dev/null || true
}
printf 'abc\nxyz\n123\na-b\n' | idx ascii --lgr builtin:ascii
printf 'alpha\nbeta\n' | idx ascii-rfc7940 --lgr builtin:ascii --index-mode rfc7940
echo "seeds: $(find "$corpus" -type f | wc -l) files in $corpus"
