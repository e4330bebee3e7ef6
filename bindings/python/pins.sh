# Pinned Python tools of the bindings' tests (scripts/setup.sh, bindings/python/run-tests.sh).
PY_PINS=(maturin==1.16.0 pytest==9.2.0 wasmtime==50.0.1)
