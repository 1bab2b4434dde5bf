//! The language-neutral limit vectors (`tests/vectors/limits.json`), run
//! against the core's reader: the table must be the core's, and every case
//! must read as written. The C, Python and PHP bindings run the same file.

use iikocloud::limits::{self, Above, DefaultValue, Given, Unit, Zero, LIMITS};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/limits.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(doc["format"], "iikocloud-limit-vectors");
    assert_eq!(doc["version"], 1);
    doc
}

/// A case's given value, as `Given`.
fn given(case: &Value) -> Given {
    if case.get("absent").is_some() {
        Given::Absent
    } else if let Some(v) = case.get("int") {
        Given::Int(i128::from(v.as_i64().unwrap()))
    } else if let Some(v) = case.get("raw") {
        Given::Raw(v.as_u64().unwrap())
    } else {
        Given::Seconds(match &case["seconds"] {
            Value::String(s) => s.parse().unwrap(),
            v => v.as_f64().unwrap(),
        })
    }
}

#[test]
fn the_table_is_the_cores() {
    let doc = vectors();
    let rows = doc["limits"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let core: Vec<&str> = LIMITS.iter().map(|l| l.name).collect();
    assert_eq!(names, core, "the same limits, in the same order");
    for (row, l) in rows.iter().zip(LIMITS) {
        let unit = match l.unit {
            Unit::Millis => "ms",
            Unit::Bytes => "bytes",
            Unit::Levels => "levels",
            Unit::Count => "count",
        };
        assert_eq!(row["unit"], unit, "{}", l.name);
        let default = match l.default {
            DefaultValue::Fixed(v) => Value::from(v),
            DefaultValue::Elsewhere(_) => Value::Null,
        };
        assert_eq!(row["default"], default, "{}", l.name);
        let zero = match l.zero {
            Zero::Refused => "refused",
            Zero::Itself => "itself",
        };
        assert_eq!(row["zero"], zero, "{}", l.name);
        assert_eq!(
            row["raw_zero_is_default"], l.raw_zero_is_default,
            "{}",
            l.name
        );
        assert_eq!(row["min"], l.min, "{}", l.name);
        let max = if l.max == u64::MAX {
            Value::Null
        } else {
            Value::from(l.max)
        };
        assert_eq!(row["max"], max, "{}", l.name);
        let above = match l.above {
            Above::Refused => "refused",
            Above::Lowered => "lowered",
        };
        assert_eq!(row["above"], above, "{}", l.name);
    }
}

#[test]
fn every_case_reads_as_written() {
    let doc = vectors();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() > 100);
    for case in cases {
        let name = case["limit"].as_str().unwrap();
        let got = limits::read(name, given(case));
        match case.get("error") {
            Some(text) => {
                let e = match got {
                    Err(e) => e.to_string(),
                    Ok(v) => panic!("{case}: read as {v:?}"),
                };
                assert!(e.contains(text.as_str().unwrap()), "{case}: {e}");
            }
            None => {
                let want = case["value"].as_u64();
                let got = got.unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!(got, want, "{case}");
            }
        }
    }
}
