#!/usr/bin/env bash
# Builds libmlsched (release, the workspace target dir), writes the expected bytes from Rust
# (`examples/expected.rs`), compiles tests/c/test.c with gcc against libmlsched.so and against
# libmlsched.a, and runs both (the shared one under valgrind when VALGRIND is not 0).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build --release -p mlsched-capi --lib --example expected
lib="$target/release"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$lib/examples/expected" "$work/expected"
cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror -I bindings/c/include)
gcc "${cflags[@]}" bindings/c/tests/c/test.c -L"$lib" -lmlsched -Wl,-rpath,"$lib" -o "$work/test-so"
gcc "${cflags[@]}" bindings/c/tests/c/test.c "$lib/libmlsched.a" -lpthread -ldl -lm -o "$work/test-a"
echo "== C test against libmlsched.a"
"$work/test-a" "$work/expected"
if [ "${VALGRIND:-1}" != 0 ]; then
    echo "== C test against libmlsched.so under valgrind"
    valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
        "$work/test-so" "$work/expected"
else
    echo "== C test against libmlsched.so"
    "$work/test-so" "$work/expected"
fi
