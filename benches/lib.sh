# Shell helpers shared by the benchmark scripts (sourced, not run).
# They write /usr/bin/time's output to "$DIR/time.out".

now() { date +%s.%N; }
calc() { awk "BEGIN{printf \"%.3f\", $1}"; }
# Prints "seconds peak_kb cpu_seconds sys_seconds" of one run of "$@".
once() {
  local t0 t1 kb user sys
  t0=$(now)
  /usr/bin/time -o "$DIR/time.out" -f '%M %U %S' "$@" > /dev/null 2>&1 || true
  t1=$(now)
  read -r kb user sys < <(tail -1 "$DIR/time.out")
  echo "$(calc "$t1 - $t0") $kb $(calc "$user + $sys") $sys"
}
# The smallest of its arguments (each "seconds [more fields]"), whole.
fastest() { printf '%s\n' "$@" | sort -g | head -1; }
# The median of its arguments (numbers).
median() {
  printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
