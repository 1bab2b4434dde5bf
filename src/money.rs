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
    ///
    /// Ordinary amounts (|v| < 1e10, up to 4 decimals) skip the text round
    /// trip: the first scale `s` at which `m / 10^s` (correctly rounded, `m`
    /// and `10^s` exact in f64) gives back `v` yields exactly the digits of
    /// the shortest form, since candidates at one scale are 10^-4 apart while
    /// an ulp is below 2e-6. Everything else takes the general path; a
    /// property test checks that both agree.
    pub fn from_f64(value: f64) -> Option<Money> {
        const POW10: [f64; 5] = [1.0, 10.0, 100.0, 1_000.0, 10_000.0];
        if value.is_finite() && value.abs() < 1e10 {
            for (scale, &p) in (0u32..).zip(POW10.iter()) {
                let m = (value * p).round();
                if m / p == value {
                    // |m| < 1e14, so the cast is exact.
                    #[allow(clippy::cast_possible_truncation)]
                    let mantissa = m as i64;
                    return Some(Money(Decimal::new(mantissa, scale).normalize()));
                }
            }
        }
        Money::from_f64_text(value)
    }

    /// The general path: the shortest round-trip text of the double, parsed.
    fn from_f64_text(value: f64) -> Option<Money> {
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

thread_local! {
    static AS_TEXT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Serializes every [`Money`] inside `f` as a JSON string (`"1250.5"`), for
/// hosts whose JSON reader would turn a number into a double.
#[cfg(feature = "operations")]
pub(crate) fn as_text<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            AS_TEXT.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(AS_TEXT.with(|t| t.replace(true)));
    f()
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.to_string();
        if AS_TEXT.with(std::cell::Cell::get) {
            return serializer.serialize_str(&text);
        }
        // Requests carry numbers, as the service expects, and a double's
        // shortest form is written back with exactly these digits. An amount
        // no double holds exactly (more than ~15 significant digits) goes as
        // a string rather than rounded: the service reads numeric strings.
        match text.parse::<f64>() {
            Ok(v) if Money::from_f64(v) == Some(Money(self.0.normalize())) => {
                serializer.serialize_f64(v)
            }
            _ => serializer.serialize_str(&text),
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
    fn fast_path_matches_the_text_path() {
        for v in [
            0.0,
            -0.0,
            1.0,
            0.1,
            0.3,
            1780.0,
            1250.5,
            -122.0,
            99.99,
            0.0001,
            0.00015,
            12345.6789,
            9_999_999_999.99,
            1e10,
            1e-7,
            0.30000000000000004,
            55.751244,
            f64::NAN,
        ] {
            assert_eq!(Money::from_f64(v), Money::from_f64_text(v), "{v}");
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_path_matches_the_text_path_on_any_double(bits in proptest::num::u64::ANY) {
            let v = f64::from_bits(bits);
            proptest::prop_assert_eq!(Money::from_f64(v), Money::from_f64_text(v));
        }

        #[test]
        fn fast_path_matches_on_money_like_values(cents in -10_000_000_000_000i64..10_000_000_000_000, scale in 0u32..5) {
            let v = cents as f64 / 10f64.powi(scale as i32);
            proptest::prop_assert_eq!(Money::from_f64(v), Money::from_f64_text(v));
        }
    }

    #[test]
    fn rejects_what_is_not_an_amount() {
        assert!(serde_json::from_str::<Money>("\"twelve\"").is_err());
        assert!(serde_json::from_str::<Money>("true").is_err());
        assert!(serde_json::from_str::<Money>("1e300").is_err());
    }
}
