//! Turns `spec/operations.json` (written by `scripts/spec-snapshot.py`) into
//! the SDK's typed operations: `src/api/models.rs` (one Rust type per schema)
//! and `src/api/ops.rs` (the operation table and the resource groups).
//!
//! ```text
//! cargo run -p iikocloud-codegen            # regenerate
//! cargo run -p iikocloud-codegen -- --check # fail when the committed files differ
//! ```
//!
//! The output goes through rustfmt, so it is committed formatted.

mod c;
mod docs;
mod names;
mod php;
mod php_shapes;
mod python;
mod rust;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace holds codegen/")
        .to_path_buf()
}

fn rustfmt(code: &str) -> Result<String, String> {
    use std::io::Write;
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = code.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt failed: {e}"))?;
    writer
        .join()
        .map_err(|_| "rustfmt writer panicked".to_string())?
        .map_err(|e| format!("cannot feed rustfmt: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rustfmt rejected the generated code:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// Folders whose every file is generated.
const GENERATED_DIRS: [&str; 1] = ["bindings/php/src/Api"];

/// Files under `dir` (relative to the root) that are not among `files`.
fn leftovers(root: &Path, dir: &str, files: &[(String, String)]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
        .filter(|rel| !files.iter().any(|(f, _)| f == rel))
        .collect();
    found.sort();
    found
}

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let root = root();
    let spec_path = root.join("spec/operations.json");
    let spec: Value = match std::fs::read_to_string(&spec_path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!("cannot read {}: {e}", spec_path.display());
            return ExitCode::FAILURE;
        }
    };
    let generated = match rust::generate(&spec) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("spec/operations.json: {e}");
            return ExitCode::FAILURE;
        }
    };
    let reference = match docs::generate(&spec) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("spec/operations.json: {e}");
            return ExitCode::FAILURE;
        }
    };
    let python = match python::generate(&spec) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("spec/operations.json (Python): {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stale = Vec::new();
    let mut files = vec![
        ("src/api/models.rs".to_string(), generated.models),
        ("src/api/ops.rs".to_string(), generated.ops),
        ("docs/operations.md".to_string(), reference),
    ];
    // One line per further generator (each in its own module).
    files.extend(
        python
            .files
            .into_iter()
            .map(|(rel, code)| (rel.to_string(), code)),
    );
    for more in [c::files(&spec, &root), php::files(&spec)] {
        match more {
            Ok(f) => files.extend(f),
            Err(e) => {
                eprintln!("spec/operations.json: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    // Folders only the generator writes: a file there that it no longer
    // makes (an operation group renamed or gone) is stale too.
    for dir in GENERATED_DIRS {
        for rel in leftovers(&root, dir, &files) {
            if check {
                stale.push(rel);
            } else if let Err(e) = std::fs::remove_file(root.join(&rel)) {
                eprintln!("cannot remove {rel}: {e}");
                return ExitCode::FAILURE;
            } else {
                println!("removed {rel}");
            }
        }
    }
    for (rel, code) in files {
        let rel = rel.as_str();
        let formatted = if !rel.ends_with(".rs") {
            Ok(code)
        } else {
            rustfmt(&code)
        };
        let formatted = match formatted {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{rel}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let path = root.join(rel);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == formatted {
            continue;
        }
        if check {
            stale.push(rel.to_string());
        } else if let Err(e) = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, formatted))
        {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        } else {
            println!("wrote {rel}");
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "generated code is out of date: {}; run `cargo run -p iikocloud-codegen`",
            stale.join(", ")
        );
        return ExitCode::FAILURE;
    }
    if check {
        println!("every generated file matches spec/operations.json");
    }
    ExitCode::SUCCESS
}
