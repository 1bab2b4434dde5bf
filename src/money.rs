//! Exact decimal amounts for money and quantities.
//!
//! # The rule (every binding reads amounts by it)
//!
//! [`Money::from_json`] decides, once, what an amount in the service's JSON
//! is, for the Rust types, the C accessors, the Python models (native and
//! reference readers) and PHP:
//!
//! * a JSON number, or a JSON string holding one (`"12.50"`; white space
//!   around it allowed), in the JSON grammar: `-`, digits, an optional
//!   fraction, an optional exponent (`1e3`, `1.5E-2`);
//! * its value is exactly what the text writes, digit for digit: never
//!   rounded, never through a double. `-0` is `0`; trailing fraction zeros
//!   are not kept (`1780.50` is `1780.5`);
//! * it holds at most [`MAX_DIGITS`] (28) digits from its first non-zero
//!   integer digit to its last non-zero fraction digit (`1e27` has 28,
//!   `0.0001` has 4). A longer one (a 30-digit sum, `1e-30`, `1e300`) is not
//!   an amount: the field reads as absent (`None`, `NULL`, `null`) in every
//!   binding, and its text stays in the event's JSON (the C
//!   `iiko_events_field`, `raw_json`). 28 digits is what [`Money`]'s decimal
//!   holds whatever the value, and what a binding without big decimals can
//!   still be given exactly;
//! * anything else (`true`, `"twelve"`, an object) is not an amount either.
//!
//! JSON numbers are read from their text (serde_json hands it over as a
//! raw value), so a 28-digit sum keeps every digit. Only a value that has
//! already become a double (a `serde_json::Value`, a Python `float`) is read
//! from the shortest text that gives that double back, which are the digits
//! the service wrote for every double it can produce.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most digits an amount may have (see the module's rule).
pub const MAX_DIGITS: u32 = 28;

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

    /// The general path: the shortest round-trip text of the double, read
    /// by the rule (`{:e}` prints it in exponent form: `1.2345678901234568e27`).
    fn from_f64_text(value: f64) -> Option<Money> {
        if !value.is_finite() {
            return None;
        }
        amount(format!("{value:e}").as_bytes())
    }

    /// The amount a JSON value holds, given its text exactly as written (a
    /// number, or a string with its quotes), by the rule of this module;
    /// `None` for anything that is not an amount.
    ///
    /// ```
    /// use iikocloud::Money;
    /// let sum = |t| Money::from_json(t).map(|m| m.to_string());
    /// assert_eq!(sum("1234567890123456789012345678").as_deref(), Some("1234567890123456789012345678"));
    /// assert_eq!(sum("\"12.50\"").as_deref(), Some("12.5"));
    /// assert_eq!(sum("-0.0").as_deref(), Some("0"));
    /// assert_eq!(sum("123456789012345678901234567890"), None); // 30 digits
    /// assert_eq!(sum("true"), None);
    /// ```
    pub fn from_json(raw: &str) -> Option<Money> {
        match raw.as_bytes().first()? {
            b'"' => amount(crate::lenient::string_text(raw)?.trim().as_bytes()),
            _ => amount(raw.as_bytes()),
        }
    }
}

/// The rule: `-`, digits, optionally `.` and digits, optionally `e` or `E`,
/// a sign and digits; the value exactly, when it has at most [`MAX_DIGITS`]
/// digits.
fn amount(text: &[u8]) -> Option<Money> {
    let (negative, rest) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    let run = |b: &[u8]| b.iter().take_while(|c| c.is_ascii_digit()).count();
    let int_len = run(rest);
    if int_len == 0 {
        return None;
    }
    let (int, rest) = rest.split_at(int_len);
    let (frac, rest) = match rest {
        [b'.', after @ ..] => {
            let n = run(after);
            if n == 0 {
                return None;
            }
            after.split_at(n)
        }
        _ => (&rest[..0], rest),
    };
    let exponent: i64 = match rest {
        [] => 0,
        [b'e' | b'E', after @ ..] => {
            let (minus, after) = match after {
                [b'-', a @ ..] => (true, a),
                [b'+', a @ ..] => (false, a),
                _ => (false, after),
            };
            if after.is_empty() || run(after) != after.len() {
                return None;
            }
            // Saturates: any exponent this large leaves the 28 digits anyway.
            let e = after.iter().fold(0i64, |acc, &c| {
                (acc * 10 + i64::from(c - b'0')).min(1_000_000_000)
            });
            if minus {
                -e
            } else {
                e
            }
        }
        _ => return None,
    };
    let digit = |i: usize| {
        if i < int.len() {
            int[i]
        } else {
            frac[i - int.len()]
        }
    };
    let n = int.len() + frac.len();
    let Some(first) = (0..n).find(|&i| digit(i) != b'0') else {
        // Zero, whatever its sign and exponent.
        return Some(Money(Decimal::ZERO));
    };
    let last = (0..n).rev().find(|&i| digit(i) != b'0')?;
    let significant = i64::try_from(last - first + 1).ok()?;
    // The value is `mantissa * 10^power`, the mantissa without trailing zeros.
    let power = exponent - i64::try_from(frac.len()).ok()? + i64::try_from(n - 1 - last).ok()?;
    let max = i64::from(MAX_DIGITS);
    let width = if power >= 0 {
        significant + power
    } else {
        significant.max(-power)
    };
    if width > max {
        return None;
    }
    let mut mantissa = (first..=last).fold(0i128, |acc, i| acc * 10 + i128::from(digit(i) - b'0'));
    let scale = if power >= 0 {
        mantissa *= 10i128.pow(u32::try_from(power).ok()?);
        0
    } else {
        u32::try_from(-power).ok()?
    };
    if negative {
        mantissa = -mantissa;
    }
    // At most 28 digits and scale 28: within the decimal's range.
    Some(Money(Decimal::from_i128_with_scale(mantissa, scale)))
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Digits that fit in a u64 (every real amount) are written here:
        // rust_decimal's `normalize` and `Display` take a 96-bit division per
        // digit. The text is the same, flags included (the same
        // `pad_integral`; zero has no sign, as `normalize` makes it).
        if f.precision().is_none() {
            if let Ok(mantissa) = u64::try_from(self.0.mantissa().unsigned_abs()) {
                let mut buf = [0u8; PLAIN_DIGITS_MAX];
                let text = plain_digits(mantissa, self.0.scale(), &mut buf);
                return f.pad_integral(text == "0" || self.0.is_sign_positive(), "", text);
            }
        }
        fmt::Display::fmt(&self.0.normalize(), f)
    }
}

/// Room for a u64's 20 digits, a point, and the zeros of the largest scale.
const PLAIN_DIGITS_MAX: usize = 20 + 1 + 28 + 1;

/// `mantissa` × 10^-`scale` in plain notation as `Decimal::normalize` then
/// `Display` write it: no trailing fraction zeros (zero is `0`), no point
/// without a fraction, `0` before a point with no integer part.
fn plain_digits(mut mantissa: u64, mut scale: u32, buf: &mut [u8; PLAIN_DIGITS_MAX]) -> &str {
    while scale > 0 && mantissa.is_multiple_of(10) {
        mantissa /= 10;
        scale -= 1;
    }
    let mut at = buf.len();
    for place in 0.. {
        if place == scale && scale > 0 {
            at -= 1;
            buf[at] = b'.';
        }
        at -= 1;
        buf[at] = b'0' + (mantissa % 10) as u8;
        mantissa /= 10;
        if mantissa == 0 && place >= scale {
            break;
        }
    }
    // Only ASCII digits and a point were written.
    std::str::from_utf8(&buf[at..]).unwrap_or("0")
}

impl FromStr for Money {
    type Err = rust_decimal::Error;

    /// Reads an amount by the rule of this module (white space around it
    /// allowed), as the service's JSON string `"12.50"` is read.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        amount(s.trim().as_bytes()).ok_or_else(|| {
            rust_decimal::Error::ErrorString(format!(
                "{s:?} is not an amount (a decimal number of at most {MAX_DIGITS} digits)"
            ))
        })
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

/// What serde_json's `RawValue` asks a deserializer for: serde_json then
/// hands over the value's text as written instead of a double. Any other
/// deserializer reads the value as usual (see [`AmountVisitor`]). A test
/// below fails if serde_json stops honouring it.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The lenient models' amount: this module's rule. Here and not in
/// lenient.rs, so that the two depend one way only (this one reads strings
/// with `lenient::string_text`).
impl crate::lenient::Lenient for Money {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        read_amount(d)
    }
}

/// Reads one JSON value as an amount: `Some` of the amount, `None` for a
/// value that is not one (by the module's rule).
pub(crate) fn read_amount<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Money>, D::Error> {
    d.deserialize_newtype_struct(RAW_VALUE_TOKEN, AmountVisitor { strict: false })
}

/// Reads amounts; `strict`: a value that is not one is an error naming it.
#[derive(Clone, Copy)]
struct AmountVisitor {
    strict: bool,
}

impl AmountVisitor {
    fn verdict<E: de::Error>(
        self,
        amount: Option<Money>,
        value: impl fmt::Display,
    ) -> Result<Option<Money>, E> {
        match amount {
            None if self.strict => Err(E::custom(format!(
                "{value} is not an amount (a decimal number of at most {MAX_DIGITS} digits, or a string holding one)"
            ))),
            _ => Ok(amount),
        }
    }
}

impl<'de> Visitor<'de> for AmountVisitor {
    type Value = Option<Money>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a decimal number or a string holding one")
    }

    /// serde_json's raw value: one entry, the token and the text; any other
    /// map (from another deserializer) is no amount.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Money>, A::Error> {
        let mut found = None;
        let mut raw = false;
        while let Some(key) = map.next_key::<KeyIsToken>()? {
            if key.0 {
                raw = true;
                found = map.next_value_seed(RawText(self))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if raw {
            Ok(found)
        } else {
            self.verdict(None, "an object")
        }
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Option<Money>, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<Money>, E> {
        Ok(Some(Money(Decimal::from(v))))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<Money>, E> {
        Ok(Some(Money(Decimal::from(v))))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<Money>, E> {
        self.verdict(Money::from_f64(v), v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Money>, E> {
        self.verdict(amount(v.trim().as_bytes()), format_args!("{v:?}"))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<Money>, E> {
        self.verdict(None, v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Money>, E> {
        self.verdict(None, "null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Money>, E> {
        self.verdict(None, "null")
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Money>, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Money>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.verdict(None, "a list")
    }
}

/// Whether a map key is [`RAW_VALUE_TOKEN`].
struct KeyIsToken(bool);

impl<'de> Deserialize<'de> for KeyIsToken {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyIsToken;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyIsToken, E> {
                Ok(KeyIsToken(v == RAW_VALUE_TOKEN))
            }
        }
        d.deserialize_str(V)
    }
}

/// The raw value's text, read as an amount where it lies (no copy).
struct RawText(AmountVisitor);

impl<'de> de::DeserializeSeed<'de> for RawText {
    type Value = Option<Money>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Money>, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for RawText {
    type Value = Option<Money>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the text of a JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Money>, E> {
        let v = v.trim();
        self.0.verdict(Money::from_json(v), v)
    }
}

impl<'de> Deserialize<'de> for Money {
    /// Reads an amount by the module's rule; a value that is not one is an
    /// error (the typed models read their amount fields with
    /// `read_amount`, which makes it `None` instead).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let strict = AmountVisitor { strict: true };
        deserializer
            .deserialize_newtype_struct(RAW_VALUE_TOKEN, strict)?
            .ok_or_else(|| de::Error::custom("not an amount"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_writes_what_rust_decimal_writes() {
        let mantissas: [i128; 14] = [
            0,
            1,
            5,
            10,
            1250,
            125050,
            1_000_000,
            999_999_999_999,
            u64::MAX as i128,
            u64::MAX as i128 + 1,
            -1,
            -125050,
            -(u64::MAX as i128),
            79_228_162_514_264_337_593_543_950_335,
        ];
        for m in mantissas {
            for scale in 0..=28 {
                let money = Money(Decimal::from_i128_with_scale(m, scale));
                let reference = money.0.normalize();
                assert_eq!(money.to_string(), reference.to_string(), "{m}e-{scale}");
                assert_eq!(format!("{money:>40}"), format!("{reference:>40}"));
                assert_eq!(format!("{money:+}"), format!("{reference:+}"));
                assert_eq!(format!("{money:08}"), format!("{reference:08}"));
                assert_eq!(format!("{money:.2}"), format!("{reference:.2}"));
            }
        }
        // Negative zero is zero.
        let negative_zero = Money(Decimal::from_parts(0, 0, 0, true, 3));
        assert_eq!(negative_zero.to_string(), "0");
        assert_eq!(format!("{negative_zero:+}"), "+0");
        assert_eq!(
            format!("{negative_zero:+}"),
            format!("{:+}", negative_zero.0.normalize())
        );
    }

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
    fn the_rule_reads_the_text_digit_for_digit_up_to_28_digits() {
        let read = |raw: &str| Money::from_json(raw).map(|m| m.to_string());
        for (raw, want) in [
            ("1780.50", Some("1780.5")),
            ("-0", Some("0")),
            ("-0.000", Some("0")),
            ("0e999999999999", Some("0")),
            ("1e3", Some("1000")),
            ("1.5E-2", Some("0.015")),
            ("12E+1", Some("120")),
            (
                "1234567890123456789012345678",
                Some("1234567890123456789012345678"),
            ),
            (
                "-9999999999999999999999999999",
                Some("-9999999999999999999999999999"),
            ),
            (
                "0.1234567890123456789012345678",
                Some("0.1234567890123456789012345678"),
            ),
            ("1e27", Some("1000000000000000000000000000")),
            ("1e-28", Some("0.0000000000000000000000000001")),
            (
                "123456789012345678901234567.80",
                Some("123456789012345678901234567.8"),
            ),
            ("\"12.50\"", Some("12.5")),
            ("\" 7 \"", Some("7")),
            ("\"\\u0031\"", Some("1")),
            ("12345678901234567890123456789", None),
            ("123456789012345678901234567890", None),
            ("1e28", None),
            ("1e-29", None),
            ("1e300", None),
            ("1.00000000000000000000000000001", None),
            ("0.12345678901234567890123456789", None),
            ("\"twelve\"", None),
            ("\"+5\"", None),
            ("\"1_000\"", None),
            ("\".5\"", None),
            ("\"5.\"", None),
            ("\"NaN\"", None),
            ("\"\"", None),
            ("true", None),
            ("null", None),
            ("[1]", None),
            ("1e", None),
        ] {
            assert_eq!(read(raw).as_deref(), want, "{raw}");
        }
    }

    #[test]
    fn json_numbers_are_read_from_their_text_by_every_path() {
        // serde_json hands the text over (the raw value token still works),
        // so no digit goes through a double.
        let text = "1234567890123456789012345678";
        let m: Money = serde_json::from_str(text).unwrap();
        assert_eq!(m.to_string(), text);
        let m: Money = serde_json::from_reader(text.as_bytes()).unwrap();
        assert_eq!(m.to_string(), text);
        let m: Option<Money> = serde_json::from_str("0.12345678901234567891").unwrap();
        assert_eq!(m.unwrap().to_string(), "0.12345678901234567891");
        // A value already a double reads from its shortest text.
        let v: serde_json::Value = serde_json::from_str("0.30000000000000004").unwrap();
        assert_eq!(
            Money::deserialize(&v).unwrap().to_string(),
            "0.30000000000000004"
        );
        assert!(serde_json::from_str::<Money>("123456789012345678901234567890").is_err());
        let lenient: Option<Money> = read_amount(&mut serde_json::Deserializer::from_str(
            "123456789012345678901234567890",
        ))
        .unwrap();
        assert_eq!(lenient, None);
    }

    #[test]
    fn rejects_what_is_not_an_amount() {
        assert!(serde_json::from_str::<Money>("\"twelve\"").is_err());
        assert!(serde_json::from_str::<Money>("true").is_err());
        assert!(serde_json::from_str::<Money>("1e300").is_err());
    }
}
