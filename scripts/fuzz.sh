#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader litnav has (cargo-fuzz + libFuzzer, nightly toolchain).
#
#   scripts/fuzz.sh                      every target for 30 s, one at a time
#   scripts/fuzz.sh -j 2                 the same, two targets at a time (what CI runs: libFuzzer
#                                        uses one core, so each target still gets a core's 30 s)
#   scripts/fuzz.sh -t 600 bibtex trec   the named targets for 10 minutes each (the record runs)
#   scripts/fuzz.sh -l                   list the targets
#
# Each target's corpus lives in $LITNAV_HOME/fuzz/corpus/<target> (LITNAV_HOME defaults to
# ~/.cache/litnav), so it grows from run to run; a new corpus is seeded from slices of the real
# files in ../shared/datasets, the repository's fixtures and fuzz/seeds. fuzz/regressions/<target>
# (inputs that once crashed, fixed since) is read on every run. A crash, a hang longer than
# 10 s, an RSS above 2 GiB or a single allocation above 512 MiB (inputs up to 16 KiB, 128 KiB for
# TaxoBench's files) ends the target's run and leaves the
# input under $LITNAV_HOME/fuzz/artifacts/<target>/. The report (per target: seconds, executions,
# coverage, corpus, peak RSS, outcome) is printed and written to $LITNAV_HOME/fuzz/report.tsv (or
# $LITNAV_FUZZ_REPORT, so that two runs over different targets can share a machine).
# Exit status 1 when any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=30
jobs=1
list=0
while getopts "t:j:lh" option; do
  case $option in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    l) list=1 ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

all_targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^litnav-fuzz$')
if [ "$list" = 1 ]; then echo "$all_targets"; exit 0; fi
targets=${*:-$all_targets}

home=${LITNAV_HOME:-$HOME/.cache/litnav}
work=$home/fuzz
datasets=${LITNAV_DATASETS:-$root/../shared/datasets}
fuzz_target_dir=${LITNAV_FUZZ_TARGET_DIR:-$home/fuzz-target}
export PATH=$home/tools/bin:$HOME/.cargo/bin:$PATH

# The fuzzer itself: cargo-fuzz from crates.io, installed once under $LITNAV_HOME/tools.
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "installing cargo-fuzz into $home/tools" >&2
  CARGO_TARGET_DIR=$home/tools-target cargo install --quiet --locked cargo-fuzz --version 0.13.2 --root "$home/tools"
fi

# Seed a target's corpus (only files not there yet; libFuzzer dedups by content anyway).
seed() {
  local target=$1 dir=$work/corpus/$1
  mkdir -p "$dir"
  [ -d "fuzz/seeds/$target" ] && cp -n fuzz/seeds/"$target"/* "$dir"/ 2>/dev/null || true
  local nul
  nul() { printf '\0'; }
  case $target in
    papers)
      head -n 20 "$datasets/litbench/corpus.jsonl" >"$dir/litbench-20"
      head -n 50 "$datasets/citations/aan/papers.jsonl" >"$dir/aan-50"
      head -n 20 "$datasets/citations/citeseer/papers.jsonl" >"$dir/citeseer-20"
      cp tests/fixtures/mini/papers.jsonl "$dir/mini" ;;
    topics)
      head -n 1 "$datasets/litbench/topics.jsonl" >"$dir/topic-1"
      sed -n 15p "$datasets/litbench/topics.jsonl" >"$dir/topic-15" ;;
    openalex)
      cp crates/corpus/tests/fixtures/openalex_works.jsonl "$dir/works" ;;
    openalex_api)
      printf '{"meta": {"next_cursor": "abc", "count": 1}, "results": [' >"$dir/page"
      head -n 1 crates/corpus/tests/fixtures/openalex_works.jsonl | tr -d '\n' >>"$dir/page"
      printf ']}' >>"$dir/page" ;;
    bibtex)
      cp crates/corpus/tests/fixtures/references.bib "$dir/references" ;;
    edges)
      head -n 200 "$datasets/citations/aan/citations.csv" >"$dir/aan-200"
      cp tests/fixtures/mini/citations.csv "$dir/mini" ;;
    taxobench_data)
      head -n 1 "$datasets/taxobench/data.jsonl" >"$dir/instance-1" ;;
    taxobench_predictions)
      { head -n 1 "$datasets/taxobench/data.jsonl"; nul; head -n 1 "$datasets/taxobench/predictions_example.jsonl"; } >"$dir/pair-1" ;;
    contexts)
      cp tests/fixtures/mini/contexts-a.jsonl "$dir/a"
      cp tests/fixtures/mini/contexts-b.jsonl "$dir/b" ;;
    survey_markdown)
      cp tests/fixtures/survey/generated.md "$dir/generated"
      head -c 60000 "$datasets/bloom-eval/cs_01/llm/A Survey on Vision Transformers.md" >"$dir/cs01-llm" ;;
    survey_bloom)
      local expert=tests/fixtures/survey/expert
      { cat $expert/content.json; nul; cat $expert/outline.json; nul; cat $expert/reference.json; } >"$dir/fixture"
      { cat $expert/content.json; nul; cat "$datasets/bloom-eval/cs_01/human/outline.json"; nul; cat $expert/reference.json; } >"$dir/cs01-outline" ;;
  esac
}

mkdir -p "$work"
report=${LITNAV_FUZZ_REPORT:-$work/report.tsv}
printf 'target\tseconds\texecutions\texec_per_s\tcoverage\tfeatures\tcorpus\tpeak_rss_mb\toutcome\n' >"$report"
echo "building the fuzz targets (nightly, sanitizer coverage; cached in $fuzz_target_dir)" >&2
cargo +nightly fuzz build -a --fuzz-dir fuzz --target-dir "$fuzz_target_dir" >/dev/null

# One target's run; its report row goes to $work/<target>.row.
fuzz_one() {
  local target=$1 max_len status executions rss last coverage features corpus outcome rate
  seed "$target"
  mkdir -p "$work/artifacts/$target" "fuzz/regressions/$target"
  local log=$work/$target.log
  # Small inputs run faster and reach the same code; TaxoBench's instances need room for a tree.
  case $target in taxobench_*) max_len=131072 ;; *) max_len=16384 ;; esac
  set +e
  cargo +nightly fuzz run -a --fuzz-dir fuzz --target-dir "$fuzz_target_dir" "$target" "$work/corpus/$target" "fuzz/regressions/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=$max_len \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$target/" >"$log" 2>&1
  status=$?
  set -e
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  coverage=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  features=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(ls "$work/corpus/$target" | wc -l)
  if [ "$status" = 0 ]; then outcome=ok; else outcome="FAILED (exit $status, see $log)"; fi
  rate=$(( ${executions:-0} / (seconds > 0 ? seconds : 1) ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$seconds" "${executions:-?}" "$rate" \
    "${coverage:-?}" "${features:-?}" "$corpus" "${rss:-?}" "$outcome" | tee "$work/$target.row"
  if [ "$status" != 0 ]; then grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -5 >&2 || true; fi
}

# Up to $jobs targets at a time; the report keeps the targets' order.
running=0
for target in $targets; do
  rm -f "$work/$target.row"
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait
failed=0
for target in $targets; do
  row=$(cat "$work/$target.row" 2>/dev/null || printf '%s\t%s\t?\t?\t?\t?\t?\t?\tFAILED (no report)\n' "$target" "$seconds")
  printf '%s\n' "$row" >>"$report"
  case $row in *FAILED*) failed=1 ;; esac
done
echo "report: $report" >&2
exit $failed
