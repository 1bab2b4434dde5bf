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
mod event_closure;
mod events;
mod names;
mod numbering;
mod php;
mod php_shapes;
mod python;
mod rust;
mod spec;
mod wire;

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

/// Whether `.gitattributes` text marks the file `rel` as generated, by its
/// path or by its folder (`dir/**`).
fn marked_generated(attributes: &str, rel: &str) -> bool {
    attributes.lines().any(|line| {
        let mut parts = line.split_whitespace();
        let (Some(pattern), true) = (
            parts.next(),
            line.contains("linguist-generated=true") && !line.starts_with('#'),
        ) else {
            return false;
        };
        match pattern.strip_suffix("/**") {
            Some(dir) => rel.starts_with(dir) && rel[dir.len()..].starts_with('/'),
            None => pattern == rel,
        }
    })
}

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

/// An operation's own one-line summary: what it is for, in this project's
/// words (`spec/operation-summaries.json`, merged in by
/// `scripts/spec-snapshot.py`). Every surface documents the operation with it;
/// [`missing_summaries`] has made sure each operation has one.
pub(crate) fn summary(op: &Value) -> &str {
    op["summary"].as_str().unwrap_or_default()
}

/// Operations of the snapshot without a summary: a snapshot written by an
/// older script, or edited by hand.
fn missing_summaries(spec: &Value) -> Vec<String> {
    spec["operations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|op| summary(op).trim().is_empty())
        .map(|op| op["name"].as_str().unwrap_or("?").to_string())
        .collect()
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
    let missing = missing_summaries(&spec);
    if !missing.is_empty() {
        eprintln!(
            "spec/operations.json: no summary for {}; add lines to spec/operation-summaries.json \
             and run scripts/spec-snapshot.py",
            missing.join(", ")
        );
        return ExitCode::FAILURE;
    }
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
    let wire = match wire::generate(&spec) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("spec/operations.json (wire rules): {e}");
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
        ("src/api/wire.json".to_string(), wire),
        ("docs/operations.md".to_string(), reference),
    ];
    // One line per further generator (each in its own module).
    files.extend(
        python
            .files
            .into_iter()
            .map(|(rel, code)| (rel.to_string(), code)),
    );
    for more in [
        c::files(&spec, &root),
        php::files(&spec),
        events::files(&spec, &root),
    ] {
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
    // Review tools fold generated files away only when they are marked.
    let attributes = std::fs::read_to_string(root.join(".gitattributes")).unwrap_or_default();
    let unmarked: Vec<&str> = files
        .iter()
        .map(|(rel, _)| rel.as_str())
        .filter(|rel| !marked_generated(&attributes, rel))
        .collect();
    if !unmarked.is_empty() {
        eprintln!(
            "generated but not marked `linguist-generated=true` in .gitattributes: {}",
            unmarked.join(", ")
        );
        stale.push(".gitattributes".to_string());
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

#[cfg(test)]
mod tests {
    #[test]
    fn generated_files_are_marked_by_path_or_folder() {
        let text = "# a/b.rs linguist-generated=true\nsrc/x.rs linguist-generated=true\nphp/Api/** linguist-generated=true\nsrc/y.rs -diff\n";
        assert!(super::marked_generated(text, "src/x.rs"));
        assert!(super::marked_generated(text, "php/Api/Deliveries.php"));
        assert!(!super::marked_generated(text, "php/ApiX/Deliveries.php"));
        assert!(!super::marked_generated(text, "src/y.rs"));
        assert!(
            !super::marked_generated(text, "a/b.rs"),
            "a comment marks nothing"
        );
    }

    use super::*;

    fn spec() -> Value {
        let text = std::fs::read_to_string(root().join("spec/operations.json")).expect("snapshot");
        serde_json::from_str(&text).expect("JSON")
    }

    /// All the files of `files` whose path contains `part`, as one text.
    fn joined(files: &[(String, String)], part: &str) -> String {
        let found: Vec<&str> = files
            .iter()
            .filter(|(path, _)| path.contains(part))
            .map(|(_, text)| text.as_str())
            .collect();
        assert!(!found.is_empty(), "no generated file matches {part}");
        found.join("\n")
    }

    /// Every surface documents every operation with its own line, first: a
    /// generator that drops the summary fails here, not in a reader's editor.
    #[test]
    fn every_surface_opens_each_operation_with_its_summary() {
        let spec = spec();
        assert!(missing_summaries(&spec).is_empty());
        let mut files: Vec<(String, String)> = vec![
            (
                "src/api/ops.rs".into(),
                rust::generate(&spec).expect("rust").ops,
            ),
            (
                "docs/operations.md".into(),
                docs::generate(&spec).expect("docs"),
            ),
        ];
        files.extend(
            python::generate(&spec)
                .expect("python")
                .files
                .into_iter()
                .map(|(path, text)| (path.to_string(), text)),
        );
        files.extend(c::files(&spec, &root()).expect("c"));
        files.extend(php::files(&spec).expect("php"));
        let rust = joined(&files, "src/api/ops.rs");
        let docs = joined(&files, "docs/operations.md");
        let python = joined(&files, "iikocloud/_");
        let php = joined(&files, "bindings/php/src/Api/");
        let c = joined(&files, "op_table.rs");
        let cpp = joined(&files, "iikocloud_ops.hpp");
        for op in spec["operations"].as_array().expect("operations") {
            let name = op["name"].as_str().expect("name");
            let line = summary(op);
            assert!(rust.contains(&format!("/// {line}\n")), "Rust: {name}");
            assert!(
                rust.contains(&format!("summary: {line:?}")),
                "OPERATIONS: {name}"
            );
            assert!(docs.contains(&format!("| {line} |")), "docs: {name}");
            // Sync and async methods, in the module and in its stub.
            let docstrings = python.matches(&format!("\"\"\"{line}\n")).count();
            assert!(
                docstrings >= 4,
                "Python: {name} has {docstrings} docstrings"
            );
            assert!(
                php.contains(&format!("/**\n     * {line}\n")),
                "PHP: {name}"
            );
            assert!(c.contains(&format!("`{name}`: {line}\n")), "C: {name}");
            assert!(
                cpp.contains(&format!("/** `{name}`: {line}\n")),
                "C++: {name}"
            );
        }
    }
}
