//! Reading JSON text without converting its values: objects as members in order (duplicates
//! kept, values as raw text), arrays as raw elements. Every valid JSON text is readable this
//! way, including numbers an `f64` cannot hold (`1e400`) and strings with lone surrogates
//! (`"\ud800"`), which `serde_json::Value` refuses. The envelope reader ([`crate::jsonrpc`]) and
//! argument validation ([`crate::marshal`]) both read through here.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// An object key as written, unescaped. Lone surrogates are kept (as WTF-8 bytes), so two keys
/// are equal exactly when the client wrote the same key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key<'a>(Cow<'a, [u8]>);

impl Key<'_> {
    /// The key as text, when it is valid Unicode (no lone surrogate).
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The exact bytes (UTF-8, or WTF-8 when the key holds a lone surrogate).
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The key for messages: at most `limit` characters (then `...`), a lone surrogate shown as
    /// its escape (`\ud800`).
    pub fn display(&self, limit: usize) -> String {
        let mut out = String::new();
        let mut rest: &[u8] = &self.0;
        let mut shown = 0;
        let mut push = |out: &mut String, piece: &str| {
            if shown < limit {
                out.push_str(piece);
            } else if shown == limit {
                out.push_str("...");
            }
            shown += 1;
        };
        while !rest.is_empty() {
            let (valid, invalid) = match std::str::from_utf8(rest) {
                Ok(text) => (text, &[][..]),
                Err(error) => {
                    let (valid, invalid) = rest.split_at(error.valid_up_to());
                    (std::str::from_utf8(valid).unwrap_or_default(), invalid)
                }
            };
            for c in valid.chars() {
                push(&mut out, c.encode_utf8(&mut [0; 4]));
            }
            // A lone surrogate is three bytes ED A0..BF 80..BF in WTF-8: show its escape.
            rest = match invalid {
                [0xED, b1 @ 0xA0..=0xBF, b2 @ 0x80..=0xBF, tail @ ..] => {
                    let code = 0xD000 | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F);
                    push(&mut out, &format!("\\u{code:04x}"));
                    tail
                }
                [_, tail @ ..] => {
                    push(&mut out, "\u{FFFD}");
                    tail
                }
                [] => &[],
            };
        }
        out
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl<'de> Visitor<'de> for Bytes {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_vec())))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v.as_bytes())))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.as_bytes().to_vec())))
            }
        }
        // `deserialize_bytes` is serde_json's way to read a string without rejecting lone
        // surrogates.
        deserializer.deserialize_bytes(Bytes)
    }
}

/// One member of an object: its key and its value's raw text.
pub type Member<'a> = (Key<'a>, &'a RawValue);

/// An object's members in order, duplicates kept. Fails unless `text` is exactly one object.
pub fn object_members(text: &str) -> Result<Vec<Member<'_>>, serde_json::Error> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<Member<'de>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut members = Vec::new();
            while let Some(key) = map.next_key::<Key<'de>>()? {
                let value: &'de RawValue = map.next_value()?;
                members.push((key, value));
            }
            Ok(members)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let members = de.deserialize_map(Members)?;
    de.end()?;
    Ok(members)
}

/// An array's elements as raw text. Fails unless `text` is exactly one array.
pub fn array_elements(text: &str) -> Result<Vec<&RawValue>, serde_json::Error> {
    struct Elements;
    impl<'de> Visitor<'de> for Elements {
        type Value = Vec<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(element) = seq.next_element::<&'de RawValue>()? {
                out.push(element);
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let elements = de.deserialize_seq(Elements)?;
    de.end()?;
    Ok(elements)
}

/// The JSON kind of a raw value, for messages: "a string", "a number", "null", ...
pub fn kind(raw: &str) -> &'static str {
    match raw.trim_start().as_bytes().first() {
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_duplicates_and_values_serde_cannot_hold() {
        let members =
            object_members(r#"{"a":1e400,"a":"\ud800","\ud800x":1,"é\"":[1]}"#).expect("object");
        let keys: Vec<String> = members.iter().map(|(k, _)| k.display(10)).collect();
        assert_eq!(keys, ["a", "a", "\\ud800x", "é\""]);
        assert_eq!(members[0].0, members[1].0);
        assert_eq!(members[2].0.as_str(), None);
        assert_eq!(members[0].1.get(), "1e400");
        assert_eq!(members[1].1.get(), r#""\ud800""#);
        assert!(object_members("[1]").is_err());
        assert!(object_members("{} {}").is_err());
    }

    #[test]
    fn keys_are_shortened_for_messages() {
        let members = object_members(r#"{"abcdefgh":1}"#).expect("object");
        assert_eq!(members[0].0.display(3), "abc...");
    }

    #[test]
    fn arrays_and_kinds() {
        let elements = array_elements(r#"[1e400, {"a":1}, "x"]"#).expect("array");
        let kinds: Vec<&str> = elements.iter().map(|e| kind(e.get())).collect();
        assert_eq!(kinds, ["a number", "an object", "a string"]);
    }
}
