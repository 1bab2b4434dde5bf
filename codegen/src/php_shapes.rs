//! The PHPDoc types of the PHP operations: one `@psalm-type` alias per schema
//! and direction, all in `IikoCloud\Api\Shapes` (PHPStan reads `@psalm-type`
//! and `@psalm-import-type` as its own), imported by the resource-group
//! classes for their `@param` and `@return`.
//!
//! A request (`…_In`) and an answer (`…_Out`) of the same schema differ in
//! what the binding takes and gives: an amount goes in as a numeric string,
//! an int or a float and comes back as a numeric string; an optional field
//! may be absent or null both ways (the core drops a null one from a request;
//! an answer is the service's JSON, which has both). Every answer shape ends
//! in `...` (more keys may
//! come); a request shape is sealed where the document closes the schema.
//! PHPStan refuses an alias that refers to itself, so a schema met again
//! while its own alias is being written is `array<string, mixed>` there.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use crate::spec::Spec;

/// Which side of the call a shape describes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    In,
    Out,
}

/// The class (in `IikoCloud\Api`) whose docblock defines every alias.
pub const CLASS: &str = "Shapes";
/// A JSON object the document says nothing more about.
const ANY_OBJECT: &str = "array<string, mixed>";
/// What `deliveries.create` answers when it is followed to the end
/// (`{"orderInfo": …}`, see `call_operation_and_wait` in src/api/call.rs).
const CREATED_ORDER: &str = "Deliveries.Response.Order.OrderInfo";

/// `Deliveries.Request.CreateOrderRequest` -> `Deliveries_Request_CreateOrderRequest_In`.
/// The underscores keep every alias apart from the class names of the
/// namespace (PascalCase, none), which PHPStan would refuse.
pub fn alias(schema: &str, dir: Dir) -> String {
    let suffix = match dir {
        Dir::In => "_In",
        Dir::Out => "_Out",
    };
    schema.replace('.', "_") + suffix
}

/// The types of one method's docblock.
pub struct MethodTypes {
    /// The `@param` type of `$request`.
    pub request: String,
    /// The `@return` type.
    pub answer: String,
    /// The aliases the two name, to import into the class.
    pub uses: BTreeSet<String>,
}

/// The `@param $request` and `@return` types of an operation's method.
pub fn method_types(spec: &Value, op: &Value) -> MethodTypes {
    let Some(schemas) = spec["schemas"].as_object() else {
        return MethodTypes {
            request: ANY_OBJECT.into(),
            answer: ANY_OBJECT.into(),
            uses: BTreeSet::new(),
        };
    };
    // Naming only: the definitions are `file`'s.
    let mut w = Writer::new(Spec { schemas }, false);
    let mut uses = BTreeSet::new();
    let request = w.top(&op["request"], Dir::In, &mut uses);
    let mut answer = w.top(&op["response"], Dir::Out, &mut uses);
    if op["name"] == "deliveries.create" && op["command"] == true {
        let created = w
            .named(CREATED_ORDER, Dir::Out, &mut uses)
            .unwrap_or_else(|_| ANY_OBJECT.into());
        answer = format!("($wait is true ? array{{orderInfo: {created}, ...}} : {answer})");
    }
    MethodTypes {
        request,
        answer,
        uses,
    }
}

/// The `@psalm-import-type` lines of a class docblock for the aliases its
/// methods name (PHPStan reads them too).
pub fn imports<'a>(spec: &Value, ops: impl Iterator<Item = &'a Value>) -> String {
    let mut uses = BTreeSet::new();
    for op in ops {
        uses.extend(method_types(spec, op).uses);
    }
    let mut out = String::new();
    for (i, a) in uses.iter().enumerate() {
        if i == 0 {
            out.push_str(" *\n");
        }
        out.push_str(&format!(" * @psalm-import-type {a} from {}\n", CLASS));
    }
    out
}

/// `bindings/php/src/Api/Shapes.php`: every alias the methods reach.
pub fn file(spec: &Value, header: &str) -> Result<(String, String), String> {
    let schemas = spec["schemas"].as_object().ok_or("schemas: not a map")?;
    let mut w = Writer::new(Spec { schemas }, true);
    let mut uses = BTreeSet::new();
    for op in spec["operations"]
        .as_array()
        .ok_or("operations: not a list")?
    {
        w.top_checked(&op["request"], Dir::In, &mut uses)?;
        w.top_checked(&op["response"], Dir::Out, &mut uses)?;
    }
    w.named(CREATED_ORDER, Dir::Out, &mut uses)?;
    let mut doc = String::new();
    for (name, definition) in &w.defs {
        doc.push_str(&format!(
            " *\n * @psalm-type {name} = {}\n",
            definition.replace('\n', "\n * ")
        ));
    }
    let text = format!(
        "{header}namespace IikoCloud\\Api;\n\n/**\n * The array shapes of every request (`…_In`) and answer (`…_Out`), for\n * PHPStan and Psalm; a method's `@param` and `@return` name them. Import one\n * into a class of yours with `@psalm-import-type Name from \\IikoCloud\\Api\\Shapes`\n * (or `@phpstan-import-type`).\n *\n * Amounts are `numeric-string` in answers; requests also take an int or a\n * float. An optional field may be absent or null. Every `…_Out`\n * ends in `...`: an answer may hold keys its shape does not list (the\n * service adds fields); a `…_In` is sealed where the document closes the\n * schema. A union's value whose discriminator this version does not know\n * comes back as the service sent it, outside these shapes. Where a schema\n * holds itself, the inner occurrence is `array<string, mixed>` (an alias\n * may not refer to itself).\n{doc} */\nfinal class {CLASS}\n{{\n    private function __construct()\n    {{\n    }}\n}}\n"
    );
    Ok((format!("bindings/php/src/Api/{CLASS}.php"), text))
}

struct Writer<'a> {
    spec: Spec<'a>,
    /// Whether aliases reached are written (`file`) or only named.
    defining: bool,
    /// Per schema and direction: false while its alias is being written.
    state: HashMap<(String, Dir), bool>,
    defs: BTreeMap<String, String>,
}

impl<'a> Writer<'a> {
    fn new(spec: Spec<'a>, defining: bool) -> Writer<'a> {
        Writer {
            spec,
            defining,
            state: HashMap::new(),
            defs: BTreeMap::new(),
        }
    }

    /// The type of a whole request or answer; anything unexpected is a JSON
    /// object (the binding decodes a non-object answer as `['value' => …]`).
    fn top(&mut self, t: &Value, dir: Dir, uses: &mut BTreeSet<String>) -> String {
        self.top_checked(t, dir, uses)
            .unwrap_or_else(|_| ANY_OBJECT.into())
    }

    fn top_checked(
        &mut self,
        t: &Value,
        dir: Dir,
        uses: &mut BTreeSet<String>,
    ) -> Result<String, String> {
        if let Some(r) = t["ref"].as_str() {
            if matches!(self.spec.kind(r)?, "object" | "union") {
                return self.named(r, dir, uses);
            }
        } else if t["type"] == "array" {
            return self.ty(t, dir, uses);
        }
        Ok(ANY_OBJECT.into())
    }

    /// The type of a named schema: its alias (written first if need be).
    fn named(
        &mut self,
        name: &str,
        dir: Dir,
        uses: &mut BTreeSet<String>,
    ) -> Result<String, String> {
        match self.spec.kind(name)? {
            // Open enums: a value this version does not know is kept.
            "enum" => return Ok("string".into()),
            "int_enum" => return Ok("int".into()),
            _ => {}
        }
        if self.defining {
            let key = (name.to_string(), dir);
            match self.state.get(&key) {
                Some(false) => return Ok(ANY_OBJECT.into()),
                Some(true) => {}
                None => {
                    self.state.insert(key.clone(), false);
                    let definition = self.definition(name, dir)?;
                    let a = alias(name, dir);
                    if self.defs.insert(a.clone(), definition).is_some() {
                        return Err(format!("two schemas make the PHP alias {a}"));
                    }
                    self.state.insert(key, true);
                }
            }
        }
        let a = alias(name, dir);
        uses.insert(a.clone());
        Ok(a)
    }

    fn ty(&mut self, t: &Value, dir: Dir, uses: &mut BTreeSet<String>) -> Result<String, String> {
        if let Some(r) = t["ref"].as_str() {
            return self.named(r, dir, uses);
        }
        Ok(match t["type"].as_str().unwrap_or("any") {
            "string" => "string".into(),
            "integer" => "int".into(),
            // Exact amounts: the binding answers them as numeric strings.
            "number" => match dir {
                Dir::In => "numeric-string|int|float".into(),
                Dir::Out => "numeric-string".into(),
            },
            "boolean" => "bool".into(),
            "array" => format!("list<{}>", self.ty(&t["items"], dir, uses)?),
            "map" => match t["values"]["type"].as_str() {
                Some("any") | None => ANY_OBJECT.into(),
                _ => format!("array<string, {}>", self.ty(&t["values"], dir, uses)?),
            },
            _ => "mixed".into(),
        })
    }

    /// An object's shape, or a union's: one shape per documented variant
    /// (no catch-all: PHPStan would fold the variants into it).
    fn definition(&mut self, name: &str, dir: Dir) -> Result<String, String> {
        let s = self.spec.schema(name)?;
        let variants = s["variants"].as_object().filter(|v| !v.is_empty());
        let (Some(variants), Some(tag)) = (variants, s["discriminator"].as_str()) else {
            return self.object(name, dir, None);
        };
        let mut parts = Vec::new();
        for (value, target) in variants {
            let target = target.as_str().ok_or("a variant without a schema")?;
            parts.push(self.object(target, dir, Some((tag, value, true)))?);
        }
        Ok(parts.join("|"))
    }

    /// `array{…}` of an object; `tagged` is the discriminator to set, and
    /// whether the binding always writes it (through the union) or not (the
    /// variant's schema used on its own).
    fn object(
        &mut self,
        name: &str,
        dir: Dir,
        tagged: Option<(&str, &str, bool)>,
    ) -> Result<String, String> {
        let s = self.spec.schema(name)?;
        let tagged = tagged.or_else(|| self.variant_of(name));
        let mut items = Vec::new();
        for f in self.spec.fields(name)? {
            let wire = f["name"].as_str().ok_or("a field without a name")?;
            let key = key(wire);
            if let Some((_, value, always)) = tagged.filter(|t| t.0 == wire) {
                let mark = if always { "" } else { "?" };
                items.push(format!("{key}{mark}: {}", literal(value)));
                continue;
            }
            // What a definition names needs no import: the aliases share a class.
            let mut named = BTreeSet::new();
            let ty = match f["const"].as_str() {
                Some(c) => literal(c),
                None => self.ty(&f["type"], dir, &mut named)?,
            };
            let required = f["required"] == true;
            let nullable = f["nullable"] == true;
            let (mark, null) = match dir {
                Dir::In if !required => ("?", true),
                Dir::In => ("", nullable),
                Dir::Out if !required => ("?", true),
                Dir::Out => ("", nullable),
            };
            let ty = if null && ty != "mixed" {
                format!("{ty}|null")
            } else {
                ty
            };
            items.push(format!("{key}{mark}: {ty}"));
        }
        // An answer is never sealed: the core keeps fields it does not know,
        // and the service adds fields to closed schemas too. A request is
        // sealed where the document closes the schema.
        let open = dir == Dir::Out || s["closed"] != true;
        if items.is_empty() {
            return Ok(if open { ANY_OBJECT } else { "array{}" }.into());
        }
        if open {
            items.push("...".into());
        }
        Ok(format!("array{{\n    {}\n}}", items.join(",\n    ")))
    }

    /// The discriminator and value of the union `name` is a variant of, for
    /// the schema used on its own.
    fn variant_of(&self, name: &str) -> Option<(&'a str, &'a str, bool)> {
        let base = self
            .spec
            .schema(self.spec.schema(name).ok()?["base"].as_str()?)
            .ok()?;
        let tag = base["discriminator"].as_str()?;
        let (value, _) = base["variants"]
            .as_object()?
            .iter()
            .find(|(_, target)| target.as_str() == Some(name))?;
        Some((tag, value.as_str(), false))
    }
}

/// A shape key: bare when PHPDoc allows it, else quoted.
fn key(name: &str) -> String {
    let bare = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if bare {
        name.to_string()
    } else {
        format!("'{}'", name.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// A literal string type (`'one-time'`), or `string` for text PHPDoc could misread.
fn literal(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '));
    if plain {
        format!("'{value}'")
    } else {
        "string".into()
    }
}
