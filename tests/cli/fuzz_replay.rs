//! Replays the reproducers the fuzz targets found (`tests/hostile/fuzz/`
//! TARGET/FILE) through the functions the targets run
//! (`fuzz/src/lib.rs`, included here): each must now pass its target's
//! checks. Runs on the stable toolchain, without libFuzzer.

use std::path::Path;

#[test]
fn fuzz_reproducers_pass_their_targets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/fuzz");
    let mut failed = Vec::new();
    let mut ran = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let run = crate::util::fuzz_checks::target(&name)
            .unwrap_or_else(|| panic!("no fuzz target {name}"));
        let mut files: Vec<_> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            ran += 1;
            if std::panic::catch_unwind(|| run(&data)).is_err() {
                failed.push(file.display().to_string());
            }
        }
    }
    assert!(ran > 0, "no reproducer in {}", root.display());
    assert!(failed.is_empty(), "reproducers failing their fuzz target: {failed:#?}");
}
