//! Composite values of `bind!` modules on the wire: the Rust types the macro generates
//! (records, arrays, sets, `TStrings`) cross as their serde JSON; `TBytes` (`Vec<u8>`) as
//! base64 text (`docs/types.md`), also inside arrays, through [`ToBase64Wire`] /
//! [`FromBase64Wire`] and the serde `with` module [`base64_wire`].

use crate::call::ToolError;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// A value holding `TBytes` (directly or as items of arrays) as its JSON: bytes as base64 text.
pub trait ToBase64Wire {
    /// The JSON of `self`.
    fn to_wire(&self) -> Value;
}

/// A value holding `TBytes` read from its JSON (bytes as base64 text).
pub trait FromBase64Wire: Sized {
    /// Reads `value`; the error says what was expected.
    fn from_wire(value: Value) -> Result<Self, String>;
}

impl ToBase64Wire for [u8] {
    fn to_wire(&self) -> Value {
        Value::String(BASE64.encode(self))
    }
}

impl<T: ToBase64Wire> ToBase64Wire for [T] {
    fn to_wire(&self) -> Value {
        Value::Array(self.iter().map(ToBase64Wire::to_wire).collect())
    }
}

impl<T> ToBase64Wire for Vec<T>
where
    [T]: ToBase64Wire,
{
    fn to_wire(&self) -> Value {
        self.as_slice().to_wire()
    }
}

impl FromBase64Wire for Vec<u8> {
    fn from_wire(value: Value) -> Result<Self, String> {
        match &value {
            Value::String(text) => BASE64
                .decode(text)
                .map_err(|e| format!("expected base64 text: {e}")),
            other => Err(format!("expected base64 text, got {}", shown(other))),
        }
    }
}

impl<T: FromBase64Wire> FromBase64Wire for Vec<T> {
    fn from_wire(value: Value) -> Result<Self, String> {
        match value {
            Value::Array(items) => items.into_iter().map(T::from_wire).collect(),
            other => Err(format!("expected an array, got {}", shown(&other))),
        }
    }
}

/// The serde `with` module of record fields that hold `TBytes`.
pub mod base64_wire {
    use super::{FromBase64Wire, ToBase64Wire};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `value` with bytes as base64 text.
    pub fn serialize<T: ToBase64Wire + ?Sized, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value.to_wire().serialize(serializer)
    }

    /// Reads a value with bytes as base64 text.
    pub fn deserialize<'de, T: FromBase64Wire, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        T::from_wire(value).map_err(serde::de::Error::custom)
    }
}

/// The JSON argument of a composite value.
pub fn to_argument<T: Serialize + ?Sized>(tool: &str, value: &T) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(|e| ToolError::Failed {
        tool: tool.to_string(),
        message: format!("an argument has no JSON form: {e}"),
    })
}

/// A composite result read into its Rust type.
pub fn from_json_result<T: DeserializeOwned>(tool: &str, value: Value) -> Result<T, ToolError> {
    let shown = shown(&value);
    serde_json::from_value(value).map_err(|e| ToolError::Failed {
        tool: tool.to_string(),
        message: format!("returned {shown}, which does not fit the bound type: {e}"),
    })
}

/// A result holding `TBytes` read into its Rust type.
pub fn from_base64_result<T: FromBase64Wire>(tool: &str, value: Value) -> Result<T, ToolError> {
    let shown = shown(&value);
    T::from_wire(value).map_err(|e| ToolError::Failed {
        tool: tool.to_string(),
        message: format!("returned {shown}: {e}"),
    })
}

/// The first 80 characters of `value`'s JSON.
pub(super) fn shown(value: &Value) -> String {
    value.to_string().chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bytes_cross_as_base64_also_in_arrays() {
        let nested = vec![vec![1u8, 2], vec![]];
        assert_eq!(nested.to_wire(), json!(["AQI=", ""]));
        assert_eq!(Vec::<Vec<u8>>::from_wire(json!(["AQI=", ""])), Ok(nested));
        assert!(Vec::<u8>::from_wire(json!("not base64!")).is_err());
        assert!(Vec::<u8>::from_wire(json!([1, 2])).is_err());
    }
}
