//! Round trips and malformed frames of the worker framing.
use super::*;

fn payload(frame: &[u8]) -> Vec<u8> {
    read_frame(&mut &frame[..], usize::MAX)
        .expect("a whole frame")
        .expect("not the end")
}

#[test]
fn calls_round_trip_every_argument_kind() {
    let call = ToWorker::Call {
        id: u64::MAX - 1,
        tool: 7,
        args: vec![
            ArgValue::Absent,
            ArgValue::Bool(true),
            ArgValue::Bool(false),
            ArgValue::Int(i64::MIN),
            ArgValue::Int(-1),
            ArgValue::UInt(u64::MAX),
            ArgValue::Double(-0.0),
            ArgValue::Double(f64::MAX),
            ArgValue::Double(f64::NAN),
            ArgValue::String(String::new()),
            ArgValue::String("Zoë 😀".into()),
        ],
    };
    let frame = encode_to_worker(&call).expect("encode");
    let decoded = decode_to_worker(&payload(&frame)).expect("decode");
    let ToWorker::Call { id, tool, args } = &decoded;
    assert_eq!((*id, *tool), (u64::MAX - 1, 7));
    let ToWorker::Call { args: sent, .. } = &call;
    assert_eq!(args.len(), sent.len());
    for (got, sent) in args.iter().zip(sent) {
        match (got, sent) {
            // NaN != NaN: compare the bits.
            (ArgValue::Double(a), ArgValue::Double(b)) => assert_eq!(a.to_bits(), b.to_bits()),
            (a, b) => assert_eq!(a, b),
        }
    }
}

#[test]
fn worker_frames_round_trip_every_value_kind() {
    let values = [
        ReturnValue::Absent,
        ReturnValue::Bool(true),
        ReturnValue::Int(i64::MIN),
        ReturnValue::UInt(u64::MAX),
        ReturnValue::Double(1.5e-300),
        ReturnValue::String(vec![0xff, 0, b'x']),
        ReturnValue::Unknown(42),
        ReturnValue::Unknown(-7),
    ];
    for (status, value) in values.into_iter().enumerate() {
        let message = FromWorker::Returned {
            id: status as u64,
            returned: CallReturn {
                status: status as i32 - 1,
                value,
            },
        };
        let frame = encode_from_worker(&message).expect("encode");
        assert_eq!(
            decode_from_worker(&payload(&frame)).expect("decode"),
            message
        );
    }
    for message in [
        FromWorker::Hello {
            pid: 4242,
            outcome: Ok(br#"{"name":"x"}"#.to_vec()),
        },
        FromWorker::Hello {
            pid: 1,
            outcome: Err("library x.so does not export `mcp_init`".into()),
        },
        FromWorker::TooLarge {
            id: 3,
            bytes: 104_857_600,
        },
    ] {
        let frame = encode_from_worker(&message).expect("encode");
        assert_eq!(
            decode_from_worker(&payload(&frame)).expect("decode"),
            message
        );
    }
}

#[test]
fn blocks_round_trip_both_ways() {
    let mut block = Block::default();
    let root = block.open(AbiKind::Array, 2);
    let record = block.open(AbiKind::Record, 2);
    block.push(AbiKind::Int, 7);
    block.push_bytes(AbiKind::String, "Zoë".as_bytes());
    block.close(record);
    block.push_bytes(AbiKind::Bytes, &[0, 255]);
    block.close(root);
    let call = ToWorker::Call {
        id: 1,
        tool: 0,
        args: vec![ArgValue::Block(block.clone()), ArgValue::Int(3)],
    };
    let frame = encode_to_worker(&call).expect("encode");
    assert_eq!(decode_to_worker(&payload(&frame)).expect("decode"), call);
    for value in [
        ReturnValue::Block(block.clone()),
        ReturnValue::Malformed("slot 0 says 5 slots follow".into()),
    ] {
        let message = FromWorker::Returned {
            id: 2,
            returned: CallReturn { status: 0, value },
        };
        let frame = encode_from_worker(&message).expect("encode");
        assert_eq!(
            decode_from_worker(&payload(&frame)).expect("decode"),
            message
        );
    }
    // A block whose counts do not add up is refused.
    let mut bad = block;
    bad.slots[0].bits = 3;
    let frame = encode_to_worker(&ToWorker::Call {
        id: 1,
        tool: 0,
        args: vec![ArgValue::Block(bad)],
    })
    .expect("encode");
    assert!(decode_to_worker(&payload(&frame)).is_err());
}

#[test]
fn frames_follow_one_another_and_end_cleanly() {
    let mut stream = Vec::new();
    for id in 0..3 {
        let message = FromWorker::TooLarge { id, bytes: 1 };
        stream.extend(encode_from_worker(&message).expect("encode"));
    }
    let mut reader = &stream[..];
    for id in 0..3 {
        let payload = read_frame(&mut reader, 64).expect("frame").expect("more");
        assert_eq!(
            decode_from_worker(&payload).expect("decode"),
            FromWorker::TooLarge { id, bytes: 1 }
        );
    }
    assert!(read_frame(&mut reader, 64).expect("clean end").is_none());
}

#[test]
fn truncated_frames_are_errors_at_every_cut() {
    let call = ToWorker::Call {
        id: 1,
        tool: 2,
        args: vec![ArgValue::String("hello".into()), ArgValue::Int(5)],
    };
    let frame = encode_to_worker(&call).expect("encode");
    for cut in 1..frame.len() {
        let error = read_frame(&mut &frame[..cut], usize::MAX).expect_err("truncated");
        assert!(
            matches!(error, FrameError::Truncated { .. }),
            "cut {cut}: {error}"
        );
    }
    // A payload cut short inside its fields (with a consistent length prefix).
    let body = payload(&frame);
    for cut in 0..body.len() {
        let error = decode_to_worker(&body[..cut]).expect_err("short payload");
        assert!(
            matches!(error, FrameError::Truncated { .. }),
            "cut {cut}: {error}"
        );
    }
    let returned = encode_from_worker(&FromWorker::Returned {
        id: 9,
        returned: CallReturn {
            status: 0,
            value: ReturnValue::String(b"abc".to_vec()),
        },
    })
    .expect("encode");
    let body = payload(&returned);
    for cut in 0..body.len() {
        assert!(decode_from_worker(&body[..cut]).is_err(), "cut {cut}");
    }
}

#[test]
fn oversized_and_malformed_frames_are_errors() {
    // A length over the limit is refused before anything is read or allocated.
    let mut huge = u32::MAX.to_le_bytes().to_vec();
    huge.push(CALL);
    let error = read_frame(&mut &huge[..], MAX_CALL_FRAME).expect_err("oversized");
    assert!(
        matches!(error, FrameError::TooLarge { len, .. } if len == u64::from(u32::MAX)),
        "{error}"
    );
    // A count of values the payload cannot hold.
    let mut body = vec![CALL];
    body.extend(1u64.to_le_bytes());
    body.extend(0u32.to_le_bytes());
    body.extend(u32::MAX.to_le_bytes());
    assert!(matches!(
        decode_to_worker(&body),
        Err(FrameError::Truncated { .. })
    ));
    // A string length past the end.
    let mut body = vec![RETURNED];
    body.extend(1u64.to_le_bytes());
    body.extend(0i32.to_le_bytes());
    body.extend((AbiKind::String as i32).to_le_bytes());
    body.extend(u32::MAX.to_le_bytes());
    assert!(matches!(
        decode_from_worker(&body),
        Err(FrameError::Truncated { .. })
    ));
    // Unknown types, wrong directions, unknown argument kinds, bad flags, bad UTF-8,
    // trailing bytes, an empty payload.
    assert!(matches!(
        decode_to_worker(&[99]),
        Err(FrameError::UnexpectedType(99))
    ));
    assert!(matches!(
        decode_to_worker(&[HELLO]),
        Err(FrameError::UnexpectedType(HELLO))
    ));
    assert!(matches!(
        decode_from_worker(&[CALL]),
        Err(FrameError::UnexpectedType(CALL))
    ));
    let mut body = vec![CALL];
    body.extend(1u64.to_le_bytes());
    body.extend(0u32.to_le_bytes());
    body.extend(1u32.to_le_bytes());
    body.extend(10i32.to_le_bytes());
    assert!(matches!(
        decode_to_worker(&body),
        Err(FrameError::UnknownKind { index: 0, kind: 10 })
    ));
    let mut body = vec![CALL];
    body.extend(1u64.to_le_bytes());
    body.extend(0u32.to_le_bytes());
    body.extend(1u32.to_le_bytes());
    body.extend((AbiKind::Bool as i32).to_le_bytes());
    body.push(2);
    assert!(matches!(
        decode_to_worker(&body),
        Err(FrameError::InvalidFlag(2))
    ));
    let mut body = vec![CALL];
    body.extend(1u64.to_le_bytes());
    body.extend(0u32.to_le_bytes());
    body.extend(1u32.to_le_bytes());
    body.extend((AbiKind::String as i32).to_le_bytes());
    body.extend(2u32.to_le_bytes());
    body.extend([0xc3, 0x28]);
    assert!(matches!(
        decode_to_worker(&body),
        Err(FrameError::NotUtf8(_))
    ));
    let mut frame = encode_from_worker(&FromWorker::TooLarge { id: 1, bytes: 2 }).expect("encode")
        [4..]
        .to_vec();
    frame.push(0);
    assert!(matches!(
        decode_from_worker(&frame),
        Err(FrameError::Trailing(1))
    ));
    assert!(matches!(
        decode_from_worker(&[]),
        Err(FrameError::Truncated { .. })
    ));
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A small deterministic generator: every prefix of many pseudo-random payloads.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        let len = (state % 48) as usize;
        let mut bytes = Vec::with_capacity(len);
        for _ in 0..len {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bytes.push((state & 0xff) as u8);
        }
        if let Some(first) = bytes.first_mut() {
            *first = 1 + *first % 4;
        }
        let _ = decode_to_worker(&bytes);
        let _ = decode_from_worker(&bytes);
        let _ = read_frame(&mut &bytes[..], 32);
    }
}
