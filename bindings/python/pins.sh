# Pinned Python tools of the bindings' tests (scripts/setup.sh, bindings/python/run-tests.sh).
PY_PINS=(maturin==1.16.0 pytest==9.2.0 wasmtime==50.0.1)
# The Ray tests (bindings/python/run-ray-tests.sh), in the venv scripts/setup.sh creates.
PY_RAY_PINS=(ray==2.60.0)

# Does the venv at $1 hold exactly the pin $2? `pip freeze` is read whole before grep looks at
# it: piped into `grep -q` under `set -o pipefail`, pip could get EPIPE when grep stopped at the
# match, and the check failed at random (a CI run reported "no ray==2.60.0" in a venv that had it).
venv_has() {
  local frozen
  frozen=$("$1/bin/pip" freeze 2>/dev/null) || return 1
  grep -qx "$2" <<<"$frozen"
}
