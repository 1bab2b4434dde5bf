//! Replays, through the same checks as the fuzz targets, every seed input and
//! every crash kept in `fuzz/regressions/<target>/`: a crash found once stays
//! fixed. Runs on the stable toolchain (`./scripts/fuzz.sh` runs it first).

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files of `dir`, sorted; none when it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != ".gitkeep"))
        .collect();
    out.sort();
    out
}

fn replay(target: &str, dirs: &[PathBuf]) -> usize {
    let mut n = 0;
    for dir in dirs {
        for file in files(dir) {
            let data = std::fs::read(&file).expect("readable input");
            let outcome = std::panic::catch_unwind(|| iikocloud_fuzz_checks::run(target, &data));
            assert!(outcome.is_ok(), "{target}: {} fails", file.display());
            n += 1;
        }
    }
    n
}

#[test]
fn regressions_stay_fixed() {
    for target in iikocloud_fuzz_checks::TARGETS {
        let n = replay(target, &[fuzz_dir().join("regressions").join(target)]);
        println!("{target}: {n} regression inputs");
    }
}

#[test]
fn seeds_pass() {
    let payloads = fuzz_dir().join("../tests/vectors/payloads");
    assert!(
        files(&payloads).len() >= 10,
        "the shared payloads are missing"
    );
    for target in iikocloud_fuzz_checks::TARGETS {
        let n = replay(
            target,
            &[payloads.clone(), fuzz_dir().join("seeds").join(target)],
        );
        assert!(n >= 10, "{target}: only {n} seeds");
    }
}

/// The reference the verifier is compared with says what the documented
/// examples say, so the comparison is not between two things that accept
/// everything.
#[test]
fn the_reference_verifier_follows_the_documented_examples() {
    use iikocloud::webhook::VerifyError::*;
    let check =
        |h: Option<&str>, t: &str| iikocloud_fuzz_checks::reference_verify(h.map(str::as_bytes), t);
    assert_eq!(check(Some("s3cret"), "s3cret"), Ok(()));
    assert_eq!(check(Some("bEARER s3cret"), "s3cret"), Ok(()));
    assert_eq!(check(Some("Bearer my token"), "my token"), Ok(()));
    assert_eq!(check(None, "s3cret"), Err(MissingHeader));
    assert_eq!(check(Some("x"), " \t"), Err(EmptyExpectedToken));
    assert_eq!(
        check(Some("Bearer  s3cret"), "s3cret"),
        Err(MalformedHeader)
    );
    assert_eq!(check(Some("Bearer"), "s3cret"), Err(MalformedHeader));
    assert_eq!(check(Some("s3cret\r\n"), "s3cret"), Err(MalformedHeader));
    assert_eq!(check(Some("Bearers3cret"), "s3cret"), Err(Mismatch));
    assert_eq!(check(Some("Basic s3cret"), "s3cret"), Err(Mismatch));
    let unknown = std::panic::catch_unwind(|| iikocloud_fuzz_checks::run("nope", b"[]"));
    assert!(unknown.is_err(), "an unknown target must fail loudly");
}
