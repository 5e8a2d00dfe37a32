//! Non-negative measurements.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// A finite, non-negative measurement (seconds, MiB/s, percent, ...). The
/// unit is carried by the name of the field that holds it.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct NonNeg(f64);

impl NonNeg {
    /// Checks `v` and wraps it.
    pub fn new(v: f64) -> Result<Self, String> {
        if !v.is_finite() {
            return Err(format!("{v} is not a finite number"));
        }
        if v < 0.0 {
            return Err(format!("{v} is negative; this value cannot be"));
        }
        Ok(NonNeg(v))
    }

    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Serialize for NonNeg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

impl<'de> Deserialize<'de> for NonNeg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        NonNeg::new(v).map_err(de::Error::custom)
    }
}

impl JsonSchema for NonNeg {
    fn schema_name() -> Cow<'static, str> {
        "NonNegativeNumber".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "number", "minimum": 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_rules() {
        assert_eq!(NonNeg::new(-1.0).unwrap_err(), "-1 is negative; this value cannot be");
        assert_eq!(NonNeg::new(f64::NAN).unwrap_err(), "NaN is not a finite number");
        assert_eq!(NonNeg::new(1.5).unwrap().get(), 1.5);
    }
}
