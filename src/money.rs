//! Exact decimal amounts for money and quantities.
//!
//! The service declares money fields as JSON numbers (`number(double)`), and its
//! server side serializes .NET doubles in their shortest round-trip form. We read
//! a JSON number through `f64` and rebuild the decimal from the shortest
//! representation of that `f64`, which gives back exactly the digits that were
//! sent for every value the server can produce (any shortest round-trip string,
//! and any literal of 15 significant digits or fewer). Integers and JSON strings
//! (`"12.50"`) are read without going through `f64` at all.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An exact decimal amount (order sums, prices, payments, balances).
///
/// `Display` prints the plain decimal (`"1250.5"`), which is also what the C
/// ABI returns and what the Python binding turns into `decimal.Decimal`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(pub Decimal);

impl Money {
    /// The underlying decimal.
    pub fn as_decimal(&self) -> Decimal {
        self.0
    }

    /// Reads the shortest round-trip form of a double as an exact decimal.
    pub fn from_f64(value: f64) -> Option<Money> {
        if !value.is_finite() {
            return None;
        }
        // `{}` on f64 prints the shortest string that parses back to the same
        // double, never in exponent form.
        Decimal::from_str(&format!("{value}"))
            .or_else(|_| Decimal::from_scientific(&format!("{value:e}")))
            .ok()
            .map(|d| Money(d.normalize()))
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.normalize(), f)
    }
}

impl FromStr for Money {
    type Err = rust_decimal::Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        Decimal::from_str(s)
            .or_else(|_| Decimal::from_scientific(s))
            .map(|d| Money(d.normalize()))
    }
}

impl From<Decimal> for Money {
    fn from(value: Decimal) -> Self {
        Money(value)
    }
}

impl From<i64> for Money {
    fn from(value: i64) -> Self {
        Money(Decimal::from(value))
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Requests carry numbers, as the service expects. An amount that is not
        // an f64 round-trip would lose digits here, but amounts we send come from
        // the service or from users in ordinary money precision.
        let text = self.to_string();
        match text.parse::<f64>() {
            Ok(v) => serializer.serialize_f64(v),
            Err(_) => serializer.serialize_str(&text),
        }
    }
}

struct MoneyVisitor;

impl Visitor<'_> for MoneyVisitor {
    type Value = Money;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a decimal number or a string holding one")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Money, E> {
        Ok(Money(Decimal::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Money, E> {
        Ok(Money(Decimal::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Money, E> {
        Money::from_f64(v).ok_or_else(|| E::custom(format!("amount {v} is out of range")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Money, E> {
        Money::from_str(v).map_err(|_| E::custom(format!("{v:?} is not a decimal amount")))
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MoneyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_cents_that_f64_arithmetic_would_blur() {
        for text in [
            "0.1",
            "0.3",
            "1250.50",
            "99999999999.99",
            "0.30000000000000004",
            "-12.07",
        ] {
            let m: Money = serde_json::from_str(text).unwrap();
            assert_eq!(m, Money::from_str(text).unwrap(), "{text}");
        }
        let m: Money = serde_json::from_str("\"12.50\"").unwrap();
        assert_eq!(m.to_string(), "12.5");
        let m: Money = serde_json::from_str("1e3").unwrap();
        assert_eq!(m.to_string(), "1000");
        let m: Money = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(m.to_string(), "18446744073709551615");
    }

    #[test]
    fn rejects_what_is_not_an_amount() {
        assert!(serde_json::from_str::<Money>("\"twelve\"").is_err());
        assert!(serde_json::from_str::<Money>("true").is_err());
        assert!(serde_json::from_str::<Money>("1e300").is_err());
    }
}
