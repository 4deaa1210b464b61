//! A connection's protocol era, fixed by its first lifecycle message, and the rules that follow
//! from it (see `docs/runtime.md`, "Protocol eras and batches").
//!
//! - `initialize` fixes a handshake era (2024-11-05 to 2025-11-25) at the negotiated version;
//!   a request naming another version in its `_meta`, or a second `initialize`, is then an
//!   invalid request (-32600).
//! - A request carrying the complete 2026-07-28 `_meta` fixes the stateless era; `initialize`
//!   is then "method not found" (-32601), as it is in that era everywhere.
//! - `ping` and `server/discover` fix nothing (the spec allows them before either lifecycle).
//! - Batches are accepted only in 2025-03-26, the one revision whose spec requires them
//!   (`initialize` itself must not be batched, so a batch before any era is refused too).
//!
//! stdio has one connection; over HTTP a session is a connection, and a stateless request is a
//! connection of its own.

use crate::jsonrpc::{code, EnvelopeError, RawId, Request};
use crate::mcp::supported_versions;

/// The protocol revision whose spec requires JSON-RPC batches.
pub const BATCH_VERSION: &str = "2025-03-26";

/// The first revision without `initialize` (stateless).
pub const STATELESS_VERSION: &str = "2026-07-28";

/// A connection's era.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Era {
    /// No lifecycle message yet.
    #[default]
    Unknown,
    /// Initialized; the negotiated protocol version.
    Handshake(String),
    /// Stateless requests (2026-07-28).
    Stateless,
}

/// The version `initialize` negotiates for a client asking for `requested`: that version when
/// it is a supported handshake version, else the newest handshake version (rmcp's rule).
pub fn negotiated_version(requested: Option<&str>) -> String {
    let handshake: Vec<String> = supported_versions()
        .iter()
        .filter(|v| v.has_initialize())
        .map(|v| v.as_str().to_string())
        .collect();
    match requested {
        Some(requested) if handshake.iter().any(|v| v == requested) => requested.to_string(),
        _ => handshake
            .iter()
            .max()
            .cloned()
            .unwrap_or_else(|| BATCH_VERSION.to_string()),
    }
}

/// The `params.protocolVersion` of an `initialize` request.
pub fn initialize_version(request: &Request<'_>) -> Option<String> {
    let params = request.params?;
    let value = crate::jsonrpc::object_members(params.get())
        .ok()?
        .into_iter()
        .find(|(key, _)| key.as_bytes() == b"protocolVersion")?
        .1;
    serde_json::from_str(value.get()).ok()
}

impl Era {
    /// Checks a request (its method and the protocol version its `_meta` names) against the
    /// era; `Err` is the answer to send instead of handling it.
    pub fn check(
        &self,
        method: &str,
        meta_version: Option<&str>,
        id: &RawId,
    ) -> Result<(), EnvelopeError> {
        let initialize = method == "initialize";
        match self {
            Era::Unknown => Ok(()),
            Era::Handshake(version) if initialize => Err(EnvelopeError::invalid(
                id.clone(),
                format!("this connection is already initialized (protocol version {version}); initialize is only valid as its first request"),
            )),
            Era::Handshake(version) => match meta_version {
                Some(named) if named != version => Err(EnvelopeError::invalid(
                    id.clone(),
                    format!("this connection was initialized with protocol version {version}; a request for {named} needs a connection of its own"),
                )),
                _ => Ok(()),
            },
            Era::Stateless if initialize => Err(EnvelopeError {
                id: id.clone(),
                code: code::METHOD_NOT_FOUND,
                message: format!("Method not found: initialize does not exist in protocol version {STATELESS_VERSION}, which this connection uses (fixed by its first request); open a new connection to use an earlier version"),
            }),
            Era::Stateless => Ok(()),
        }
    }

    /// Whether a batch may be served; `Err` is the answer (id `null`) otherwise.
    pub fn check_batch(&self) -> Result<(), EnvelopeError> {
        match self {
            Era::Handshake(version) if version == BATCH_VERSION => Ok(()),
            Era::Handshake(version) => Err(EnvelopeError::invalid(
                RawId::null(),
                format!("batches are only accepted in protocol version {BATCH_VERSION}; this connection uses {version}"),
            )),
            Era::Stateless => Err(EnvelopeError::invalid(
                RawId::null(),
                format!("batches are only accepted in protocol version {BATCH_VERSION}; this connection uses {STATELESS_VERSION}"),
            )),
            Era::Unknown => Err(EnvelopeError::invalid(
                RawId::null(),
                format!("batches are only accepted in protocol version {BATCH_VERSION}, after initialize (which must not be batched)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{parse, Incoming};

    fn request(text: &str) -> Request<'_> {
        match parse(text) {
            Incoming::Single(Ok(request)) => request,
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn versions_are_negotiated_as_rmcp_does() {
        assert_eq!(negotiated_version(Some("2025-03-26")), "2025-03-26");
        assert_eq!(negotiated_version(Some("1999-01-01")), "2025-11-25");
        assert_eq!(negotiated_version(Some("2026-07-28")), "2025-11-25");
        assert_eq!(negotiated_version(None), "2025-11-25");
    }

    #[test]
    fn the_first_lifecycle_message_fixes_the_era() {
        let id = RawId::integer(1);
        let init = request(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#,
        );
        assert_eq!(initialize_version(&init).as_deref(), Some("2025-03-26"));
        let modern = request(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        let handshake = Era::Handshake("2025-03-26".into());
        let check = |era: &Era, request: &Request<'_>| {
            era.check(
                request.method(),
                request.meta_protocol_version().as_deref(),
                &id,
            )
            .map_err(|e| e.code)
        };
        assert!(check(&Era::Unknown, &init).is_ok());
        assert_eq!(check(&handshake, &init), Err(code::INVALID_REQUEST));
        assert_eq!(check(&handshake, &modern), Err(code::INVALID_REQUEST));
        assert_eq!(check(&Era::Stateless, &init), Err(code::METHOD_NOT_FOUND));
        assert!(check(&Era::Stateless, &modern).is_ok());
        assert!(handshake.check_batch().is_ok());
        for era in [
            Era::Unknown,
            Era::Stateless,
            Era::Handshake("2025-06-18".into()),
        ] {
            assert_eq!(
                era.check_batch().map_err(|e| (e.code, e.id)),
                Err((code::INVALID_REQUEST, RawId::null()))
            );
        }
    }
}
