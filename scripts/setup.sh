#!/usr/bin/env bash
# Installs everything the full test suite needs on a fresh machine of this project's kind
# (idempotent: skips what is already there). Used by .ci/run; run it once on a new machine.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' wasm/Cargo.toml)

step() { printf '\n== setup: %s\n' "$*"; }

step "rust components and targets"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
rustup target add wasm32-unknown-unknown thumbv7em-none-eabihf

step "wasm-bindgen CLI $WASM_BINDGEN_VERSION"
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  # Without --locked: the locked build asks for a webpki-roots the registry here lacks.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi
wasm-bindgen --version

step "chromium (Debian) for the browser tests"
if ! [ -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version || true

step "cargo-fuzz (fuzz smoke run)"
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
cargo fuzz --version

if [ -f wasm/package.json ]; then
  step "npm packages of the wasm package"
  (cd wasm && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi)
fi

step "valgrind and gcc (C ABI test of bindings/c)"
if ! command -v valgrind >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq valgrind gcc >/dev/null
fi
valgrind --version

step "slurm-wlm and munge (the real Slurm cluster of the Slurm tests, scripts/slurm-cluster.sh)"
if ! [ -x /usr/sbin/slurmctld ] || ! [ -x /usr/sbin/slurmd ] || ! [ -x /usr/sbin/munged ] || ! [ -x /usr/bin/sbatch ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # The packages' postinst would start munged (and try slurmctld/slurmd) as services: a
  # policy-rc.d refusing every start, only for this install (unless the machine has its own),
  # so nothing runs that the tests did not start.
  own_policy=0
  if ! [ -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  rc=0
  apt-get install -y -qq slurm-wlm munge >/dev/null || rc=$?
  [ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  [ "$rc" = 0 ] || exit "$rc"
fi
# The munge key: the package's postinst makes one; scripts/slurm-cluster.sh also makes it when
# missing. Nothing is started here: the tests start (and stop) their own daemons.
/usr/sbin/slurmctld -V

step "python venv of the bindings (wasmtime host test, maturin, ray for the Ray tests)"
. bindings/python/pins.sh
venv=bindings/python/.venv
if ! [ -x "$venv/bin/python" ] || ! venv_has "$venv" "${PY_PINS[2]}"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "${PY_PINS[@]}"
fi
if ! venv_has "$venv" "${PY_RAY_PINS[0]}"; then
  "$venv/bin/pip" install -q "${PY_RAY_PINS[@]}"
fi
"$venv/bin/pip" freeze | grep -E '^(maturin|pytest|wasmtime|ray)=='
