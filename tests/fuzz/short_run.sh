#!/bin/sh
# One short run of a libFuzzer harness from its seeds, as a ctest test: fails on anything the
# fuzzer finds (crash, sanitizer report, an input slower than 10 s, a leak) or when it ran no input;
# exits 77 (skipped, with the reason) when build-fuzz/ has no harness or no seeds to run.
#
# usage: short_run.sh FUZZ_BUILD_DIR HARNESS SECONDS WORK_DIR [SEED_DIR...]
set -u
fuzz_build=$1 harness=$2 seconds=$3 work=$4
shift 4
binary=$fuzz_build/bin/fuzz_$harness
if [ ! -x "$binary" ]; then
  echo "skipped: no $binary: scripts/build-fuzz builds it (clang 14, libFuzzer; scripts/test runs it when they are installed)"
  exit 77
fi
for seeds in "$@"; do
  if [ ! -d "$seeds" ]; then
    echo "skipped: no seeds in $seeds: scripts/build-fuzz makes them"
    exit 77
  fi
done
# A fresh corpus each run: the test starts from the seeds alone, and scripts/fuzz's corpus is
# left to the long runs.
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
"$binary" "$work/corpus" "$@" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$work/fuzz.log" 2>&1
status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
if [ $status -ne 0 ]; then
  tail -n 60 "$work/fuzz.log"
  echo "fuzz_$harness found a problem (status $status); the input is in $work/artifacts/"
  exit 1
fi
if [ -z "$runs" ] || [ "$runs" -eq 0 ]; then
  tail -n 20 "$work/fuzz.log"
  echo "fuzz_$harness ran no input"
  exit 1
fi
echo "fuzz_$harness: $runs inputs in $seconds s, nothing found"
