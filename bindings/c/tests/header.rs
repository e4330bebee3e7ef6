//! `include/mlsched.h` is what cbindgen generates from the crate today (CI needs no
//! `cargo install`: cbindgen runs as a library). `MLSCHED_BLESS=1` rewrites the header.
use std::path::Path;

#[test]
fn header_is_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = dir.join("include/mlsched.h");
    if std::env::var_os("MLSCHED_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "bindings/c/include/mlsched.h is out of date: run \
         `MLSCHED_BLESS=1 cargo test -p mlsched-capi --test header` and commit it"
    );
}
