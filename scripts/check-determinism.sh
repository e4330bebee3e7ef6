#!/usr/bin/env bash
# Mechanical guard of the determinism contract in the kernel (`docs/semantics.md`, "Determinism"): no fused
# multiply-add, no std float intrinsics (only libm), no hash-map iteration, no clocks, no usize
# in serialised record structs is checked by review and by the golden hashes.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
check() {
  local what=$1 pattern=$2
  local hits
  hits=$(grep -rnE "$pattern" kernel/src --include='*.rs' | grep -vE '^\S+:[0-9]+:\s*//' || true)
  if [ -n "$hits" ]; then
    echo "determinism: forbidden $what in kernel/src:"
    echo "$hits"
    fail=1
  fi
}
check "mul_add" '\.mul_add\('
check "std float intrinsic (use libm)" '\.(powf|powi|exp|ln|log2|log10|sqrt|sin|cos|tan)\(\)|\.(powf|powi)\('
check "HashMap/HashSet (iteration order)" '\b(HashMap|HashSet)\b'
check "clock" '\b(Instant|SystemTime)\b'
check "thread_rng / rand crate" '\b(thread_rng|rand::)\b'
if [ $fail -ne 0 ]; then exit 1; fi
echo "determinism: kernel sources clean (no mul_add, std float intrinsics, hash maps or clocks)"
