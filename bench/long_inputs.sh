#!/bin/bash
# Long inputs: one row per n (a fresh process each, so each peak RSS is its own), 16 heads, d_model 1024.
# usage: bash bench/long_inputs.sh BUILD_DIR [N ...]
set -e
BUILD=${1:-build}; shift || true
NS=${*:-1024 2048 4096}
echo "long inputs: 16 heads, d_model 1024, d_k 64, $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg);"
echo "times: wall s (process CPU s), each beside its floor (same run); ratios of the CPU times"
echo "| n | mode | first maps | floor (GEMMs) | ratio | temperature toggle | floor (q kT) | ratio | d_k sweep | floor (GEMMs) | ratio | peak RSS MiB | floor MiB (x, q, k, v, pyramids) | ratio |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $NS; do "$BUILD/bench/attnviz_bench_long" "$n"; done
