# shellcheck shell=bash
# Shared parts of the scripts/perf comparisons, sourced by each script:
# compiling a reference program, running gcbench on one rank, reading a
# figure back from its results document, and the verdict table. Each
# comparison states what it runs; this file holds what they all repeat.

PERF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PERF_GOAL=0.95

# perf_setup BUILD: checks the build, makes a scratch dir removed on exit.
perf_setup() {
  BUILD=$1
  GCBENCH="$BUILD/gcbench"
  if [[ ! -x $GCBENCH ]]; then
    echo "$0: no gcbench in '$BUILD' (usage: $0 [BUILD_DIR])" >&2
    exit 2
  fi
  command -v python3 >/dev/null || { echo "$0: python3 is required" >&2; exit 2; }
  SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-perf.XXXXXX")
  trap 'rm -rf "$SCRATCH"' EXIT
}

# perf_compile SOURCE [EXTRA...]: builds scripts/perf/SOURCE.c into the
# scratch dir with the flags kernels/host.c gets (-O3), prints its path.
perf_compile() {
  local name=$1
  shift
  "${CC:-cc}" -std=c11 -O3 -Wall -Wextra -o "$SCRATCH/$name" \
    "$PERF_DIR/$name.c" "$@"
  echo "$SCRATCH/$name"
}

# perf_gcbench JSON ARGS...: gcbench on PERF_RANKS ranks (default 1, with
# PERF_MPIEXEC_ARGS) writing its document to JSON.
perf_gcbench() {
  local json=$1
  shift
  if ! mpiexec -n "${PERF_RANKS:-1}" ${PERF_MPIEXEC_ARGS:-} "$GCBENCH" "$@" \
      --output "$json" >"$SCRATCH/gcbench.log" 2>&1; then
    echo "$0: gcbench $* failed:" >&2
    cat "$SCRATCH/gcbench.log" >&2
    exit 1
  fi
}

# perf_json JSON EXPR: evaluates a Python expression over the document `d`,
# with `case` its first case and `median` that case's cross-rank median.
perf_json() {
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
case = d["cases"][0]
s = case.get("summary", {})
median = s["median"] if "median" in s else s.get("figure", {}).get("median")
print(eval(sys.argv[2]))
PY
}

# perf_row WHAT UNIT GCBENCH DIRECT [OP GOAL]: one table row with the ratio
# GCBENCH / DIRECT against the goal (default ">= 0.95"; OP "within" means
# |ratio - 1| <= GOAL); returns 1 when the goal is missed.
perf_row() {
  local op=${5:->=} goal=${6:-$PERF_GOAL} ratio
  ratio=$(python3 -c "print(f'{$3 / $4:.3f}')")
  local ok
  local test="$ratio $op $goal"
  [[ $op == within ]] && test="abs($ratio - 1) <= $goal"
  ok=$(python3 -c "print('ok' if $test else 'MISSES GOAL')")
  printf '%-34s %-8s %10.3f %10.3f %7s  %s %s %s\n' "$1" "$2" "$3" "$4" \
    "$ratio" "$op" "$goal" "$ok"
  [[ $ok == ok ]]
}

perf_header() {
  printf '%-34s %-8s %10s %10s %7s  %s\n' what unit gcbench direct ratio goal
}
