//! Reading JSON text without converting its values: objects as members in order (duplicates
//! kept, values as raw text), arrays as raw elements. Every valid JSON text is readable this
//! way, including numbers an `f64` cannot hold (`1e400`) and strings with lone surrogates
//! (`"\ud800"`), which `serde_json::Value` refuses. The envelope reader ([`crate::jsonrpc`]) and
//! argument validation ([`crate::marshal`]) both read through here.

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashSet;
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

/// One step of a path into a JSON value.
enum Step<'a> {
    Key(Key<'a>),
    Index(usize),
}

/// A key that repeats a key of the same object, as [`duplicate_keys`] reports it.
pub struct Duplicate<'p, 'a> {
    path: &'p [Step<'a>],
}

impl Duplicate<'_, '_> {
    /// How deep the object holding the key is: 1 for the text's own object.
    pub fn depth(&self) -> usize {
        self.path.len()
    }

    /// The path of the repeated key in the notation of argument messages: `a`, `a.b`,
    /// `a[2].b`; each key at most `limit` characters.
    pub fn path(&self, limit: usize) -> String {
        let mut out = String::new();
        for (i, step) in self.path.iter().enumerate() {
            match step {
                Step::Key(key) if i == 0 => out.push_str(&key.display(limit)),
                Step::Key(key) => {
                    out.push('.');
                    out.push_str(&key.display(limit));
                }
                Step::Index(index) => out.push_str(&format!("[{index}]")),
            }
        }
        out
    }
}

/// Calls `found` for every key that repeats a key of the same object, at any depth, in the
/// order of the text. Reads `text` once (linear in its length; each key is hashed once, and a
/// path is only formatted when `found` asks). Fails unless `text` is one JSON text that
/// `serde_json::Value` can hold.
pub fn duplicate_keys(
    text: &str,
    found: &mut dyn FnMut(&Duplicate<'_, '_>),
) -> Result<(), serde_json::Error> {
    let mut path = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    Walk {
        path: &mut path,
        found,
    }
    .deserialize(&mut de)?;
    de.end()
}

/// The walk of [`duplicate_keys`] through one value.
struct Walk<'w, 'a> {
    path: &'w mut Vec<Step<'a>>,
    found: &'w mut dyn FnMut(&Duplicate<'_, '_>),
}

impl<'de> DeserializeSeed<'de> for Walk<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys: HashSet<Key<'de>> = HashSet::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let repeated = !keys.insert(key.clone());
            self.path.push(Step::Key(key));
            if repeated {
                (self.found)(&Duplicate { path: self.path });
            }
            map.next_value_seed(Walk {
                path: &mut *self.path,
                found: &mut *self.found,
            })?;
            self.path.pop();
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        loop {
            self.path.push(Step::Index(index));
            let more = seq.next_element_seed(Walk {
                path: &mut *self.path,
                found: &mut *self.found,
            })?;
            self.path.pop();
            if more.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }
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
    fn duplicate_keys_are_found_at_every_depth() {
        let mut found = Vec::new();
        duplicate_keys(
            r#"{"a":{"b":1,"b":2},"c":[{"d":1},{"d":1,"d":[{"e":1,"e":2}]}],"a":0,"f":{"b":1}}"#,
            &mut |d| found.push((d.depth(), d.path(10))),
        )
        .expect("valid JSON");
        assert_eq!(
            found,
            [
                (2, "a.b".to_string()),
                (3, "c[1].d".to_string()),
                (5, "c[1].d[0].e".to_string()),
                (1, "a".to_string()),
            ]
        );
        let mut none = 0;
        duplicate_keys(r#"{"a":[1,"x",null,true,2.5],"b":{"a":1}}"#, &mut |_| {
            none += 1
        })
        .expect("valid JSON");
        assert_eq!(none, 0);
        assert!(duplicate_keys("{} {}", &mut |_| ()).is_err());
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
