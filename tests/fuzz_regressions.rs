//! Replays every fuzz seed and every input the fuzzers once crashed on
//! (fuzz/seeds/TARGET, fuzz/regressions/TARGET) through the same entry points
//! the fuzz targets call (`cudash::fuzz`). A regression panics here.

use std::path::Path;

#[test]
fn every_seed_and_past_finding_runs_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut ran = 0;
    for &(target, entry) in cudash::fuzz::TARGETS {
        for kind in ["seeds", "regressions"] {
            let dir = root.join(kind).join(target);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                panic!("{} is missing", dir.display());
            };
            for e in entries {
                let path = e.unwrap().path();
                if path.file_name().is_some_and(|n| n == ".keep") {
                    continue;
                }
                let data = std::fs::read(&path).unwrap();
                let outcome = std::panic::catch_unwind(|| entry(&data));
                assert!(outcome.is_ok(), "{target}: {} panics", path.display());
                ran += 1;
            }
        }
    }
    assert!(ran >= 150, "only {ran} inputs replayed");
}
