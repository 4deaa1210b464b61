use super::*;
use crate::jsonrpc::{Incoming, Kind};

/// What the general reading makes of `text`: its id and plain call, when it is one.
fn general(text: &str) -> Option<(RawId, PlainCall)> {
    let Incoming::Single(Ok(message)) = crate::jsonrpc::parse(text) else {
        return None;
    };
    let Kind::Request(id) = &message.kind else {
        return None;
    };
    PlainCall::read(&message).map(|call| (id.clone(), call))
}

/// The one-pass reading of `text` is the general one, or gives up; returns whether it read it.
fn agrees(text: &str) -> bool {
    let one_pass = PlainCall::read_text(text);
    if let Some(read) = &one_pass {
        assert_eq!(Some(read), general(text).as_ref(), "{text}");
    }
    one_pass.is_some()
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-compare","version":"1"}}"#;

fn call(id: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

/// Texts the one-pass reading reads (each as the general reading does).
fn plain_texts() -> Vec<String> {
    vec![
        call(
            "7",
            &format!(
                r#"{{"name":"calc_scale","arguments":{{"Value":1.5,"Factor":3.0}},"_meta":{META}}}"#
            ),
        ),
        call("\"a\"", r#"{"name":"t","arguments":{}}"#),
        call("-3", r#"{"name":"t\u0041"}"#),
        call("1", r#"{"_meta":{"progressToken":"p","k":[1,{"x":null}]},"name":"t"}"#),
        call("1", r#"{"name":"t","_meta":{"k":"\ud83d\ude00","progressToken":{}}}"#),
        call("1", r#"{"name":"t","arguments":{"A":1e400,"B":"\ud800"}}"#),
        format!(
            "\u{feff} {{ \"params\" : {{ \"name\" : \"t\" , \"_meta\" : {META} }} , \"method\" : \"tools/call\" , \"id\" : 0 , \"jsonrpc\" : \"2.0\" }} \n"
        ),
        call(
            "2",
            &format!(
                r#"{{"name":"t","_meta":{}}}"#,
                META.replace("2026-07-28", "2025-06-18")
            ),
        ),
        call(
            "3",
            r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":5,"io.modelcontextprotocol/clientCapabilities":[]}}"#,
        ),
    ]
}

/// Texts it hands to the general reading.
fn other_texts() -> Vec<String> {
    vec![
        call("1", r#"{"name":"t","name":"u"}"#),
        call("1", r#"{"name":"t","extra":null}"#),
        call("1", r#"{"name":"t","arguments":[]}"#),
        call("1", r#"{"name":"t","arguments":null}"#),
        call("1", r#"{"name":7}"#),
        call("1", r#"{"name":"\ud800"}"#),
        call("1", r#"{"arguments":{}}"#),
        call("1", r#"{"name":"t","_meta":{"x":1e400}}"#),
        call("1", r#"{"name":"t","_meta":{"\ud800":1}}"#),
        call(
            "1",
            r#"{"name":"t","_meta":{"progressToken":1,"progressToken":2}}"#,
        ),
        call("1", r#"{"name":"t","_meta":null}"#),
        call("1", r#"{"n\u0061me":"t"}"#),
        call("1.5", r#"{"name":"t"}"#),
        call("null", r#"{"name":"t"}"#),
        call("1", "[]"),
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"t"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"t"}}"#.into(),
        r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#.into(),
        r#"{"id":1,"method":"tools/call","params":{"name":"t"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"x":1}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"result":{},"method":"tools/call","params":{"name":"t"}}"#
            .into(),
        format!(r#"[{}]"#, call("1", r#"{"name":"t"}"#)),
        format!("{} {{}}", call("1", r#"{"name":"t"}"#)),
    ]
}

#[test]
fn reads_plain_calls_as_the_general_reading_does() {
    for text in plain_texts() {
        assert!(agrees(&text), "read in one pass: {text}");
    }
    for text in other_texts() {
        assert!(!agrees(&text), "left to the general reading: {text}");
    }
}

/// A small deterministic generator (xorshift64), so that a failure can be replayed.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `text` with one to three random edits of bytes that matter to JSON.
fn mutate(text: &str, random: &mut Random) -> String {
    const PIECES: [&str; 24] = [
        "{",
        "}",
        "[",
        "]",
        "\"",
        ",",
        ":",
        "\\",
        " ",
        "0",
        "1",
        "-",
        ".",
        "e",
        "E",
        "u",
        "\\u0041",
        "\\ud800",
        "\u{1}",
        "null",
        "true",
        "1e400",
        "\u{e9}",
        "\"_meta\":{}",
    ];
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..=random.below(3) {
        let at = random.below(bytes.len() + 1);
        match random.below(3) {
            0 if at < bytes.len() => {
                bytes.remove(at);
            }
            1 if at < bytes.len() => {
                let piece = PIECES[random.below(PIECES.len())].as_bytes();
                bytes.splice(at..at + 1, piece.iter().copied());
            }
            _ => {
                let piece = PIECES[random.below(PIECES.len())].as_bytes();
                bytes.splice(at..at, piece.iter().copied());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn mutated_texts_are_read_as_the_general_reading_does_or_left_to_it() {
    let seeds: Vec<String> = plain_texts().into_iter().chain(other_texts()).collect();
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut read = 0;
    for round in 0..50_000 {
        let text = mutate(&seeds[round % seeds.len()], &mut random);
        read += usize::from(agrees(&text));
    }
    // Many edits (spaces, digits of the arguments, other keys of `_meta`) keep a plain call.
    assert!(read > 1_000, "{read} mutated texts read in one pass");
}
