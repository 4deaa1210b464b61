//! Input-required results (2026-07-28, SEP-2322). In the stateless era a server sends no
//! requests to the client; a tool whose call context asks the client (elicitation, sampling,
//! roots) answers its `tools/call` with an `InputRequiredResult` instead, and the client calls
//! again with the answers.
//!
//! The Pascal code still sees a blocking function. A question whose answer the request does
//! not carry ends the call: the context function returns
//! [`context_status::INPUT_REQUIRED`], `TMcpContext` raises `EMcpInputRequired` (which unwinds
//! the tool like any exception), and the server answers with the question. When the client
//! calls again, the tool runs again from the start, and every question answered so far gets
//! its answer at once — so a tool that asks must be able to repeat the work before its
//! questions (the usual way: ask first). The answers of earlier rounds travel in
//! `requestState`, sealed with HMAC-SHA256 under a key of this process (or of
//! `DELPHI_MCP_STATE_KEY`, so that replicas behind a load balancer accept each other's
//! states): a changed state is refused. Questions asked between `TMcpContext.BeginQuestions`
//! and `EndQuestions` do not end the call one by one: all of them go out in one round.

use crate::context::{ClientRequest, RequestOutcome};
use base64::Engine as _;
use delphi_mcp_manifest::abi::context_status;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

/// The environment variable holding the key that seals `requestState` (any text); without it
/// each process makes a random key.
pub const STATE_KEY_VARIABLE: &str = "DELPHI_MCP_STATE_KEY";

/// The client's `inputResponses` (and the answers of earlier rounds).
pub type Responses = BTreeMap<String, Value>;

/// The answers known to one call and the questions it could not get answered.
#[derive(Debug, Default)]
pub struct Round {
    answers: Responses,
    /// The questions without an answer, in the order asked (a key once).
    asked: Mutex<Vec<Question>>,
}

/// A question the client must answer before the call can finish.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Its key in `inputRequests`.
    pub key: String,
    /// What is asked.
    pub request: ClientRequest,
    /// Its params.
    pub params: Value,
}

/// Why a `requestState` is refused (JSON-RPC invalid params).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("requestState is not valid: it was not made by this server or was changed")]
pub struct InvalidState;

impl Round {
    /// A round knowing the answers sealed in `state` (earlier rounds) and `responses` (this
    /// request's `inputResponses`; only objects count as answers).
    pub fn new(state: Option<&str>, responses: Option<&Responses>) -> Result<Round, InvalidState> {
        let mut answers = match state {
            Some(state) => open(state)?,
            None => Responses::new(),
        };
        for (key, value) in responses.into_iter().flatten() {
            if value.is_object() {
                answers.insert(key.clone(), value.clone());
            }
        }
        Ok(Round {
            answers,
            asked: Mutex::new(Vec::new()),
        })
    }

    /// The answer to `key`, or [`context_status::INPUT_REQUIRED`] after recording the
    /// question.
    pub fn ask(&self, key: String, request: ClientRequest, params: Value) -> RequestOutcome {
        if let Some(answer) = self.answers.get(&key) {
            return RequestOutcome::from_result(request, answer);
        }
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        if !asked.iter().any(|q| q.key == key) {
            asked.push(Question {
                key: key.clone(),
                request,
                params,
            });
        }
        RequestOutcome::refused(
            context_status::INPUT_REQUIRED,
            format!("input required: `{key}` ({})", request.method()),
        )
    }

    /// The questions the call ended on, with the state to send beside them; `None` when it
    /// asked nothing it had no answer to.
    pub fn questions(&self) -> Option<(Vec<Question>, String)> {
        let asked = self.asked.lock().unwrap_or_else(|p| p.into_inner()).clone();
        (!asked.is_empty()).then(|| (asked, seal(&self.answers)))
    }
}

fn key() -> &'static [u8] {
    static KEY: OnceLock<Vec<u8>> = OnceLock::new();
    KEY.get_or_init(|| match std::env::var(STATE_KEY_VARIABLE) {
        Ok(text) if !text.is_empty() => Sha256::digest(text.as_bytes()).to_vec(),
        _ => {
            let mut key = vec![0u8; 32];
            if getrandom::fill(&mut key).is_err() {
                // No system randomness: fall back to the hasher's random keys.
                use std::hash::{BuildHasher, Hasher};
                for chunk in key.chunks_mut(8) {
                    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                    h.write_u8(0);
                    chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
                }
            }
            key
        }
    })
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key`.
fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

const ENGINE: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// `requestState` holding `answers`: base64 of their JSON, a dot, base64 of its HMAC.
fn seal(answers: &Responses) -> String {
    let text = json!({ "answers": answers }).to_string();
    let tag = hmac(key(), text.as_bytes());
    format!("{}.{}", ENGINE.encode(text), ENGINE.encode(tag))
}

/// The answers of a `requestState` made by [`seal`] with this key.
fn open(state: &str) -> Result<Responses, InvalidState> {
    let (body, tag) = state.split_once('.').ok_or(InvalidState)?;
    let text = ENGINE.decode(body).map_err(|_| InvalidState)?;
    let tag = ENGINE.decode(tag).map_err(|_| InvalidState)?;
    let expected = hmac(key(), &text);
    // Constant time: compare every byte.
    if tag.len() != expected.len()
        || tag
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            != 0
    {
        return Err(InvalidState);
    }
    let value: Value = serde_json::from_slice(&text).map_err(|_| InvalidState)?;
    serde_json::from_value(value.get("answers").cloned().unwrap_or_default())
        .map_err(|_| InvalidState)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // RFC 4231 test case 2.
        let tag = hmac(b"Jefe", b"what do ya want for nothing?");
        let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn answers_travel_in_a_sealed_state() {
        let first = Round::new(None, None).expect("no state");
        let outcome = first.ask(
            "name".into(),
            ClientRequest::Elicit,
            json!({"message": "?"}),
        );
        assert_eq!(outcome.status, context_status::INPUT_REQUIRED);
        first.ask(
            "name".into(),
            ClientRequest::Elicit,
            json!({"message": "?"}),
        );
        first.ask("roots".into(), ClientRequest::Roots, json!({}));
        let (questions, state) = first.questions().expect("asked");
        let keys: Vec<&str> = questions.iter().map(|q| q.key.as_str()).collect();
        assert_eq!(keys, ["name", "roots"], "each key once, in order");

        let responses = Responses::from([(
            "name".to_string(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        )]);
        let second = Round::new(Some(&state), Some(&responses)).expect("own state");
        let answer = second.ask("name".into(), ClientRequest::Elicit, json!({}));
        assert_eq!(answer.status, context_status::OK);
        assert_eq!(answer.text, r#"{"name":"Ada"}"#);
        second.ask("color".into(), ClientRequest::Elicit, json!({}));
        let (_, state) = second.questions().expect("asked again");
        let third = Round::new(Some(&state), None).expect("sealed answers");
        assert_eq!(
            third
                .ask("name".into(), ClientRequest::Elicit, json!({}))
                .status,
            context_status::OK
        );

        let mut changed = state.clone();
        changed.replace_range(0..1, if state.starts_with('e') { "f" } else { "e" });
        assert_eq!(Round::new(Some(&changed), None).err(), Some(InvalidState));
        assert_eq!(Round::new(Some("junk"), None).err(), Some(InvalidState));
        let not_an_answer = Responses::from([("name".to_string(), json!(12345))]);
        let round = Round::new(None, Some(&not_an_answer)).expect("no state");
        assert_eq!(
            round
                .ask("name".into(), ClientRequest::Elicit, json!({}))
                .status,
            context_status::INPUT_REQUIRED
        );
    }
}
