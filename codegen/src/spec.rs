//! The snapshot (`spec/operations.json`) as every generator reads it.

use serde_json::Value;

pub(crate) struct Spec<'a> {
    pub(crate) schemas: &'a serde_json::Map<String, Value>,
}

impl<'a> Spec<'a> {
    pub(crate) fn schema(&self, name: &str) -> Result<&'a Value, String> {
        self.schemas
            .get(name)
            .ok_or_else(|| format!("schema {name:?} is referenced but not defined"))
    }

    pub(crate) fn kind(&self, name: &str) -> Result<&'a str, String> {
        Ok(self.schema(name)?["kind"].as_str().unwrap_or("object"))
    }

    /// Fields of an object or union, inherited ones included (the snapshot
    /// resolves inheritance).
    pub(crate) fn fields(&self, name: &str) -> Result<Vec<&'a Value>, String> {
        Ok(self.schema(name)?["fields"]
            .as_array()
            .map(|fields| fields.iter().collect())
            .unwrap_or_default())
    }
}

/// A field that carries a credential or token (marked `secret` by the
/// snapshot from `spec/rules.json`): typed as `Secret`, so `Debug` never
/// prints it.
pub(crate) fn is_secret(f: &Value) -> bool {
    f["secret"] == true
}
