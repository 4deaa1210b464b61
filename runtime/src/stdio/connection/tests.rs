//! The connection's rules: answer order, cancellation, batches, the direct path.

use super::*;

const INIT: &str = r#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn call(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"A":1}}}}}}"#
    )
}

fn ping(id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
}

fn accept(connection: &mut Connection, line: &str, now: Instant) {
    connection.accept(prepare(line.as_bytes()), now);
}

/// The internal ids rmcp got, in order.
fn handed(connection: &mut Connection) -> Vec<i64> {
    std::iter::from_fn(|| connection.next_for_rmcp())
        .filter_map(|m| match m {
            ClientJsonRpcMessage::Request(r) => match r.id {
                RequestId::Number(n) => Some(n),
                RequestId::String(_) => None,
            },
            _ => None,
        })
        .collect()
}

fn answer(internal: i64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{internal},"result":{{}}}}"#)
}

#[test]
fn answers_keep_request_order_with_a_bounded_hold() {
    let start = Instant::now();
    let mut connection = Connection::new(true);
    accept(&mut connection, INIT, start);
    assert_eq!(handed(&mut connection), [1]);
    connection.answered(1, &answer(1), start);
    // A notification takes no place in the order.
    accept(
        &mut connection,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        start,
    );
    accept(&mut connection, &call("10"), start);
    accept(&mut connection, &call("11"), start);
    accept(&mut connection, &ping("\"p\""), start);
    // The second call waits for the first; the ping goes at once.
    assert_eq!(handed(&mut connection), [2, 4]);
    // The ping and a later list are answered while the call runs, the list first.
    accept(
        &mut connection,
        r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#,
        start,
    );
    assert_eq!(handed(&mut connection), [5]);
    connection.answered(5, &answer(5), start);
    let soon = start + HOLD / 2;
    connection.answered(4, &answer(4), soon);
    let (lines, wake) = connection.writable(start);
    assert_eq!(lines, [r#"{"jsonrpc":"2.0","id":"i","result":{}}"#]);
    assert_eq!(wake, Some(start + HOLD));
    // After the hold, both are written before the slow call ends, in request order.
    let later = start + HOLD;
    let (lines, _) = connection.writable(later);
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":"p","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"l","result":{}}"#
        ]
    );
    connection.answered(2, &answer(2), later);
    assert_eq!(handed(&mut connection), [3]);
    connection.answered(3, &answer(3), later);
    let (lines, _) = connection.writable(later);
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":10,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":11,"result":{}}"#
        ]
    );
    connection.eof = true;
    assert!(connection.finished());
}

#[test]
fn cancelled_requests_get_no_answer() {
    let now = Instant::now();
    let mut connection = Connection::new(true);
    accept(&mut connection, INIT, now);
    connection.answered(1, &answer(1), now);
    accept(&mut connection, &call("\"a\""), now);
    accept(&mut connection, &call("\"b\""), now);
    assert_eq!(handed(&mut connection), [1, 2]);
    let cancel = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        )
    };
    // "\u0061" is "a": the running call is cancelled in rmcp, the next one starts.
    accept(&mut connection, &cancel("\"\\u0061\""), now);
    let mut messages = std::iter::from_fn(|| connection.next_for_rmcp());
    match messages.next() {
        Some(ClientJsonRpcMessage::Notification(n)) => match n.notification {
            ClientNotification::CancelledNotification(c) => {
                assert_eq!(c.params.request_id, Some(RequestId::Number(2)))
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(messages.next(), Some(ClientJsonRpcMessage::Request(r)) if r.id == RequestId::Number(3))
    );
    // A late answer to the cancelled call is dropped.
    connection.answered(2, &answer(2), now);
    connection.answered(3, &answer(3), now);
    let (lines, _) = connection.writable(now);
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":"i","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"b","result":{}}"#
        ]
    );
}

#[test]
fn plain_calls_skip_rmcp_once_its_service_runs() {
    let now = Instant::now();
    let mut connection = Connection::new(true);
    accept(&mut connection, INIT, now);
    // Before rmcp answered `initialize` and `initialized` arrived: through rmcp.
    accept(&mut connection, &call("1"), now);
    assert_eq!(handed(&mut connection), [1, 2]);
    connection.answered_by_rmcp(1, &answer(1), now);
    connection.answered_by_rmcp(2, &answer(2), now);
    accept(
        &mut connection,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        now,
    );
    assert!(connection.next_for_rmcp().is_some());
    accept(&mut connection, &call("2"), now);
    accept(&mut connection, &call("3"), now);
    let direct: Vec<i64> = connection
        .take_direct_calls()
        .iter()
        .map(|c| c.internal)
        .collect();
    assert_eq!(direct, [3, 4]);
    assert!(!connection.has_for_rmcp());
    // A progress token needs rmcp's peer; a plain call behind it waits its turn in rmcp.
    accept(
        &mut connection,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{},"_meta":{"progressToken":"p"}}}"#,
        now,
    );
    accept(&mut connection, &call("6"), now);
    assert_eq!(handed(&mut connection), [5]);
    assert!(connection.take_direct_calls().is_empty());
    // A cancelled direct call is never answered.
    accept(
        &mut connection,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        now,
    );
    connection.answered(3, &answer(3), now);
    connection.answered(4, &answer(4), now);
    let (lines, _) = connection.writable(now);
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":"i","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#
        ]
    );
}

#[test]
fn batches_follow_the_era() {
    let now = Instant::now();
    let mut connection = Connection::new(true);
    let batch = format!(
        "[{},{},{}]",
        ping("1"),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "7"
    );
    accept(&mut connection, &batch, now);
    let (lines, _) = connection.writable(now);
    assert!(lines[0].starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600"#));
    accept(&mut connection, INIT, now);
    connection.answered(1, &answer(1), now);
    accept(&mut connection, &batch, now);
    assert_eq!(handed(&mut connection), [1, 2]);
    connection.answered(2, &answer(2), now);
    let (lines, _) = connection.writable(now);
    assert_eq!(lines.len(), 2);
    assert!(lines[1].starts_with(r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600"#), "{}", lines[1]);
    // Notifications only: no answer at all.
    accept(
        &mut connection,
        r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
        now,
    );
    assert!(connection.writable(now).0.is_empty());
}
