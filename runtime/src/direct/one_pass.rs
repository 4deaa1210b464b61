//! A plain `tools/call` read in one pass over its text ([`PlainCall::read_text`]).
//!
//! The general reading ([`crate::jsonrpc::parse`], then [`PlainCall::read`]) checks the whole
//! text, then reads the envelope's members, then those of `params`, then `_meta` twice (its
//! shape, its members), each step scanning the text inside the one before again: the strings of
//! a stateless call's `_meta` are skipped five to seven times, about a quarter of the
//! instructions of a call over HTTP. This reads the envelope and `params` in one pass and
//! `_meta` in a second, and gives up at the first thing it does not expect (a member it does
//! not know or meets twice, a key written with escapes, any syntax error): the general reading
//! then reads the text as before, with its exact answers. What it reads it reads as the
//! general reading does; the tests compare the two on every text they hold and on mutations of
//! them.

use super::{MetaFacts, PlainCall};
use crate::jsonrpc::{RawId, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use delphi_mcp_manifest::ValueShaped;
use serde::de::{Deserialize, Deserializer, Error, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

impl PlainCall {
    /// `text` (a line or body) when it is one plain `tools/call` request read in one pass, with
    /// its id: exactly what [`crate::jsonrpc::parse`] and [`PlainCall::read`] make of it. `None`
    /// when the text is anything else or holds anything this reading does not expect: read it
    /// the general way then.
    pub fn read_text(text: &str) -> Option<(RawId, PlainCall)> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut de = serde_json::Deserializer::from_str(text);
        let envelope = Envelope::deserialize(&mut de).ok()?;
        de.end().ok()?;
        let (Some(id), true, true, Some(params)) = (
            envelope.id,
            envelope.jsonrpc,
            envelope.tools_call,
            envelope.params,
        ) else {
            return None;
        };
        let id = RawId::check(id).ok()?;
        let is_object = |raw: &RawValue| raw.get().starts_with('{');
        if params.arguments.is_some_and(|raw| !is_object(raw))
            || params.meta.is_some_and(|raw| !is_object(raw))
        {
            return None;
        }
        let (meta_facts, meta_version) = match params.meta {
            Some(raw) => {
                let meta = serde_json::from_str::<Meta>(raw.get()).ok()?;
                let version = match &meta.version {
                    Some(Value::String(version)) => Some(version.clone()),
                    _ => None,
                };
                let facts = MetaFacts::of_values(
                    meta.progress_token.as_ref(),
                    meta.version.as_ref(),
                    meta.capabilities.as_ref(),
                );
                (facts, version)
            }
            None => (MetaFacts::of_values(None, None, None), None),
        };
        let call = PlainCall {
            name: params.name?,
            arguments: params.arguments.map(|raw| Arc::from(raw.get())),
            meta: params.meta.map(|raw| Box::from(raw.get())),
            meta_facts,
            meta_version,
        };
        Some((id, call))
    }
}

/// The error that hands a text back to the general reading (never shown).
fn unexpected<E: Error>() -> E {
    E::custom("not a plain tools/call")
}

/// Sets `slot` to `value` unless it was set before (a member met twice).
fn once<T, E: Error>(slot: &mut Option<T>, value: T) -> Result<(), E> {
    match slot.replace(value) {
        None => Ok(()),
        Some(_) => Err(unexpected()),
    }
}

/// The envelope of a plain `tools/call` request.
#[derive(Default)]
struct Envelope<'a> {
    /// `"jsonrpc": "2.0"` was met.
    jsonrpc: bool,
    id: Option<&'a RawValue>,
    /// `"method": "tools/call"` was met.
    tools_call: bool,
    params: Option<Params<'a>>,
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EnvelopeVisitor;
        impl<'de> Visitor<'de> for EnvelopeVisitor {
            type Value = Envelope<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tools/call request")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut envelope = Envelope::default();
                // Keys written with escapes are not borrowed: they fail here.
                while let Some(key) = map.next_key::<&'de str>()? {
                    let flag = match key {
                        "id" => {
                            once(&mut envelope.id, map.next_value()?)?;
                            continue;
                        }
                        "params" => {
                            once(&mut envelope.params, map.next_value()?)?;
                            continue;
                        }
                        "jsonrpc" => (&mut envelope.jsonrpc, "\"2.0\""),
                        "method" => (&mut envelope.tools_call, "\"tools/call\""),
                        _ => return Err(unexpected()),
                    };
                    let (seen, expected) = flag;
                    let value: &RawValue = map.next_value()?;
                    if *seen || value.get() != expected {
                        return Err(unexpected());
                    }
                    *seen = true;
                }
                Ok(envelope)
            }
        }
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

/// The `params` of a plain `tools/call`: `name`, `arguments` and `_meta`, each at most once.
#[derive(Default)]
struct Params<'a> {
    name: Option<String>,
    arguments: Option<&'a RawValue>,
    meta: Option<&'a RawValue>,
}

impl<'de> Deserialize<'de> for Params<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ParamsVisitor;
        impl<'de> Visitor<'de> for ParamsVisitor {
            type Value = Params<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the params of a plain tools/call")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut params = Params::default();
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "name" => once(&mut params.name, map.next_value()?)?,
                        "arguments" => once(&mut params.arguments, map.next_value()?)?,
                        "_meta" => once(&mut params.meta, map.next_value()?)?,
                        _ => return Err(unexpected()),
                    }
                }
                Ok(params)
            }
        }
        deserializer.deserialize_map(ParamsVisitor)
    }
}

/// What the direct path reads of `_meta`: the values of the keys its rule looks at, each at
/// most once; every other value is checked to be one a `serde_json::Value` holds, as rmcp
/// reads the whole object as a map of them.
#[derive(Default)]
struct Meta {
    progress_token: Option<Value>,
    version: Option<Value>,
    capabilities: Option<Value>,
}

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MetaVisitor;
        impl<'de> Visitor<'de> for MetaVisitor {
            type Value = Meta;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a _meta object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut meta = Meta::default();
                while let Some(key) = map.next_key::<&'de str>()? {
                    let slot = match key {
                        "progressToken" => &mut meta.progress_token,
                        META_PROTOCOL_VERSION => &mut meta.version,
                        META_CLIENT_CAPABILITIES => &mut meta.capabilities,
                        _ => {
                            map.next_value::<ValueShaped>()?;
                            continue;
                        }
                    };
                    once(slot, map.next_value()?)?;
                }
                Ok(meta)
            }
        }
        deserializer.deserialize_map(MetaVisitor)
    }
}

#[cfg(test)]
mod tests;
