//! JSON values between Rust (`serde_json::Value`) and Python objects.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::{Map, Number, Value};

use crate::errors::invalid_input;

/// Deepest nesting accepted from Python, so a self-referencing list cannot
/// recurse forever: the core's, the same as for a request given as text.
const MAX_DEPTH: usize = iikocloud::limits::MAX_REQUEST_DEPTH;

static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `decimal.Decimal`, imported once.
pub fn decimal_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    DECIMAL.import(py, "decimal", "Decimal")
}

/// An exact decimal string (from [`iikocloud::Money`]'s `Display`) as `Decimal`.
pub fn decimal<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    decimal_type(py)?.call1((text,))
}

/// Converts a JSON value to Python. Floats become `Decimal` when `decimals`
/// is set, built from the shortest text that reads back as the same double,
/// which is the text the service sent for every amount it can produce.
pub fn to_py<'py>(py: Python<'py>, value: &Value, decimals: bool) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number_to_py(py, n, decimals)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item, decimals)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => object_to_py(py, map, decimals)?.into_any(),
    })
}

/// Converts a JSON object to a Python `dict`.
pub fn object_to_py<'py>(
    py: Python<'py>,
    map: &Map<String, Value>,
    decimals: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in map {
        dict.set_item(k, to_py(py, v, decimals)?)?;
    }
    Ok(dict)
}

fn number_to_py<'py>(py: Python<'py>, n: &Number, decimals: bool) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if decimals {
        decimal(py, &format!("{f}"))
    } else {
        Ok(PyFloat::new(py, f).into_any())
    }
}

/// Converts a Python object made of `dict` (str keys), `list`, `tuple`, `str`,
/// `int`, `float`, `bool`, `None` and `Decimal` to JSON. Anything else is an
/// `InvalidInputError` naming where it was found.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_py_at(obj, "body", 0)
}

fn from_py_at(obj: &Bound<'_, PyAny>, at: &str, depth: usize) -> PyResult<Value> {
    let py = obj.py();
    if depth > MAX_DEPTH {
        return Err(invalid_input(
            py,
            &format!("{at}: nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: True is an int in Python.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(invalid_input(
            py,
            &format!("{at}: integer out of the 64-bit range"),
        ));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| invalid_input(py, &format!("{at}: NaN and infinity are not JSON")));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if obj.is_instance(decimal_type(py)?)? {
        let text: String = obj.str()?.extract()?;
        return text
            .parse::<Number>()
            .map(Value::Number)
            .map_err(|_| invalid_input(py, &format!("{at}: Decimal {text} is not a JSON number")));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| invalid_input(py, &format!("{at}: dict keys must be str")))?
                .to_cow()?
                .into_owned();
            let value = from_py_at(&v, &format!("{at}.{key}"), depth + 1)?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut items = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            items.push(from_py_at(&item?, &format!("{at}[{i}]"), depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    let type_name = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    Err(invalid_input(
        py,
        &format!(
            "{at}: a {type_name} cannot be sent as JSON (use dict, list, str, int, float, \
             bool, None or Decimal)"
        ),
    ))
}
