# Pinned Python tools of the bindings' tests (scripts/setup.sh, bindings/python/run-tests.sh).
PY_PINS=(maturin==1.16.0 pytest==9.2.0 wasmtime==50.0.1)
# The Ray tests (bindings/python/run-ray-tests.sh), in the venv scripts/setup.sh creates.
PY_RAY_PINS=(ray==2.60.0)
