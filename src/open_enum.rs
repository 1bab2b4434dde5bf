//! `open_enum!`: the string enums of the webhook events and of the generated
//! models (`codegen` writes `crate::open_enum!`).

/// Declares a string enum that keeps values it does not know.
///
/// The service adds enum values without notice, so every enum we read is open:
/// an unknown value is kept verbatim in `Unknown(String)` instead of failing the
/// whole response or webhook event.
#[macro_export]
#[doc(hidden)]
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this version of the SDK does not know, kept as sent.
            Unknown(String),
        }

        impl $name {
            /// The value as it appears on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )+
                    $name::Unknown(other) => other.as_str(),
                }
            }

            /// Whether the value is one this SDK version knows.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_))
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok(match s {
                    $( $text => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                })
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl ::serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " string"))
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok(v.parse().unwrap_or_else(|never: ::std::convert::Infallible| match never {}))
                    }
                }
                d.deserialize_str(V)
            }
        }

        // The lenient read of webhook events: any string is kept (unknown
        // values too), anything else reads as `None`.
        impl $crate::lenient::Lenient for $name {
            fn read<'de, D: ::serde::Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
                Ok(match $crate::lenient::scalar(d)? {
                    $crate::lenient::Scalar::Str(s) => s.parse().ok(),
                    _ => None,
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::open_enum! {
        /// Test enum.
        pub enum Colour {
            /// Red.
            Red = "Red",
            /// Green.
            Green = "Green",
        }
    }

    #[test]
    fn unknown_values_survive_a_round_trip() {
        let c: Colour = serde_json::from_str("\"Teal\"").unwrap();
        assert_eq!(c, Colour::Unknown("Teal".into()));
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"Teal\"");
        let c: Colour = serde_json::from_str("\"Red\"").unwrap();
        assert!(c.is_known());
        assert_eq!(c.as_str(), "Red");
        assert!(serde_json::from_str::<Colour>("3").is_err());
    }
}
