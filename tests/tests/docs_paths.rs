//! Every repository path the README names exists (architecture docs must not rot).
use std::path::Path;

#[test]
fn readme_paths_exist() {
    let root = mlsched_tests::repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut checked = 0;
    for chunk in readme.split('`') {
        let c = chunk.trim();
        let looks_like_path = (c.ends_with('/')
            || c.ends_with(".rs")
            || c.ends_with(".sh")
            || c.ends_with(".json")
            || c == ".ci/run")
            && !c.contains(' ')
            && !c.starts_with("../")
            && !c.contains('*');
        if looks_like_path {
            assert!(
                Path::new(&root.join(c)).exists(),
                "README names `{c}`, which does not exist"
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} paths found in README");
}
