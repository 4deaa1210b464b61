//! The library host against a real Free Pascal library: loading checks, init, the library
//! thread, marshalling through the ABI.

use delphi_mcp_runtime::dispatch::{CallControl, Dispatch};
use delphi_mcp_runtime::host::{ArgValue, ReturnValue};
use delphi_mcp_runtime::{HostOptions, LibraryDispatch, LibraryHost, LoadError, ToolHost};
use delphi_mcp_test_support::abi_lib::fixture_manifest;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The ABI fixture library built with `defines` (once per test process).
fn fixture_library(defines: &[&str]) -> PathBuf {
    delphi_mcp_test_support::abi_lib::fixture_library(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        defines,
    )
}

/// The fixture keeps the thread that ran `mcp_init` in a global of the library, which every
/// host of the same library file in this process sets again: hosts are opened one at a time,
/// and not while a test checks that global.
static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn open(library: &Path, options: &HostOptions) -> Result<LibraryHost, LoadError> {
    let _init = INIT.lock().unwrap_or_else(|e| e.into_inner());
    LibraryHost::open(library, options)
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(future)
}

fn index_of(host: &LibraryHost, name: &str) -> usize {
    host.manifest()
        .tools
        .iter()
        .position(|t| t.name == name)
        .expect("tool in manifest")
}

#[test]
fn loads_checks_and_calls_on_the_init_thread() {
    let library = fixture_library(&[]);
    let _init = INIT.lock().unwrap_or_else(|e| e.into_inner());
    let host = LibraryHost::open(&library, &HostOptions::default()).expect("load");
    assert_eq!(host.manifest().name, "abilib");
    // The canonical hash: the library embeds compact JSON, the file is indented.
    let file = std::fs::read(fixture_manifest()).expect("manifest");
    let file = delphi_mcp_manifest::Manifest::from_json(&file).expect("a valid manifest");
    assert_eq!(host.manifest_sha256(), file.canonical_sha256());
    let add = index_of(&host, "add");
    let returned = block_on(host.call(
        add,
        vec![ArgValue::Int(40), ArgValue::Int(2)],
        &CallControl::new(),
    ))
    .expect("call");
    assert_eq!((returned.status, returned.value), (0, ReturnValue::Int(42)));
    let on_init = index_of(&host, "on_init_thread");
    for _ in 0..3 {
        let returned = block_on(host.call(on_init, vec![], &CallControl::new())).expect("call");
        assert_eq!(
            returned.value,
            ReturnValue::Bool(true),
            "calls run on the thread that ran mcp_init"
        );
    }
    let greet = index_of(&host, "greet");
    let returned = block_on(host.call(
        greet,
        vec![ArgValue::String("Zoë".into())],
        &CallControl::new(),
    ))
    .expect("call");
    assert_eq!(
        returned.value,
        ReturnValue::String("Hello, Zoë!".as_bytes().to_vec())
    );
}

#[test]
fn concurrent_calls_queue_on_one_thread() {
    let host = Arc::new(open(&fixture_library(&[]), &HostOptions::default()).expect("load"));
    let add = index_of(&host, "add");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("runtime");
    let results: Vec<_> = runtime.block_on(async {
        let tasks: Vec<_> = (0..200i64)
            .map(|i| {
                let host = Arc::clone(&host);
                tokio::spawn(async move {
                    (
                        i,
                        host.call(
                            add,
                            vec![ArgValue::Int(i), ArgValue::Int(i)],
                            &CallControl::new(),
                        )
                        .await,
                    )
                })
            })
            .collect();
        let mut out = Vec::new();
        for task in tasks {
            out.push(task.await.expect("task"));
        }
        out
    });
    for (i, returned) in results {
        assert_eq!(returned.expect("call").value, ReturnValue::Int(2 * i));
    }
}

#[test]
fn wrong_abi_version_is_named() {
    let library = fixture_library(&["WRONG_ABI"]);
    let error = open(&library, &HostOptions::default()).expect_err("must refuse");
    assert!(
        matches!(
            error,
            LoadError::AbiVersion {
                found: 99,
                expected: delphi_mcp_manifest::abi::ABI_VERSION,
                ..
            }
        ),
        "{error}"
    );
    let text = error.to_string();
    assert!(
        text.contains(&library.display().to_string()) && text.contains("99"),
        "{text}"
    );
}

#[test]
fn missing_manifest_needs_a_file() {
    let library = fixture_library(&["NO_MANIFEST"]);
    let error = open(&library, &HostOptions::default()).expect_err("must refuse");
    assert!(matches!(error, LoadError::NoManifest { .. }), "{error}");
    let options = HostOptions {
        manifest_file: Some(fixture_manifest()),
        ..HostOptions::default()
    };
    let host = open(&library, &options).expect("loads with --manifest");
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture_manifest()).expect("read")).expect("json");
    assert_eq!(
        host.manifest().tools.len(),
        file["tools"].as_array().map(Vec::len).unwrap_or(0)
    );
}

#[test]
fn manifest_file_must_agree_with_the_embedded_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture_manifest()).expect("read")).expect("json");
    manifest["tools"][0]["description"] = "Something else.".into();
    let file = dir.path().join("tools.json");
    std::fs::write(&file, serde_json::to_vec(&manifest).expect("json")).expect("write");
    let options = HostOptions {
        manifest_file: Some(file.clone()),
        ..HostOptions::default()
    };
    let error = open(&fixture_library(&[]), &options).expect_err("must refuse");
    let text = error.to_string();
    assert!(
        matches!(error, LoadError::ManifestMismatch { .. }),
        "{text}"
    );
    assert!(
        text.contains("description") && text.contains("Something else."),
        "{text}"
    );

    // The same manifest as a file is accepted.
    let options = HostOptions {
        manifest_file: Some(fixture_manifest()),
        ..HostOptions::default()
    };
    open(&fixture_library(&[]), &options).expect("agreeing manifest");
}

#[test]
fn a_tool_without_its_export_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture_manifest()).expect("read")).expect("json");
    manifest["tools"][1]["x-delphi"]["export"] = "mcp_tool_missing".into();
    let tool = manifest["tools"][1]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let file = dir.path().join("tools.json");
    std::fs::write(&file, serde_json::to_vec(&manifest).expect("json")).expect("write");
    let options = HostOptions {
        manifest_file: Some(file),
        ..HostOptions::default()
    };
    let error = open(&fixture_library(&["NO_MANIFEST"]), &options).expect_err("must refuse");
    let text = error.to_string();
    assert!(
        text.contains("mcp_tool_missing") && text.contains(&format!("`{tool}`")),
        "{text}"
    );
}

#[test]
fn failing_init_is_reported() {
    let error =
        open(&fixture_library(&["FAIL_INIT"]), &HostOptions::default()).expect_err("must refuse");
    let text = error.to_string();
    assert!(matches!(error, LoadError::Init { status: 1, .. }), "{text}");
    assert!(text.contains("EFixtureError: database not found"), "{text}");
}

#[test]
fn several_threads_only_for_thread_safe_libraries() {
    let options = HostOptions {
        manifest_file: None,
        threads: 3,
        ..HostOptions::default()
    };
    let error = open(&fixture_library(&[]), &options).expect_err("must refuse");
    assert!(
        matches!(error, LoadError::NotThreadSafe { threads: 3, .. }),
        "{error}"
    );
    let host = open(&fixture_library(&["THREAD_SAFE"]), &options).expect("thread-safe");
    assert_eq!(host.threads(), 3);
    let add = index_of(&host, "add");
    let returned = block_on(host.call(
        add,
        vec![ArgValue::Int(1), ArgValue::Int(2)],
        &CallControl::new(),
    ))
    .expect("call");
    assert_eq!(returned.value, ReturnValue::Int(3));
}

#[test]
fn unloadable_file_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("libnot.so");
    std::fs::write(&file, b"not a library").expect("write");
    let error = open(&file, &HostOptions::default()).expect_err("must refuse");
    assert!(matches!(error, LoadError::Open { .. }), "{error}");
    assert!(error.to_string().contains("libnot.so"), "{error}");
    // The loader's own reason follows libloading's "dlopen failed".
    #[cfg(unix)]
    assert!(error.to_string().contains("dlopen failed: "), "{error}");
}

#[test]
fn dispatch_rejects_duplicates_from_raw_text_and_unknown_tools() {
    let host = Arc::new(open(&fixture_library(&[]), &HostOptions::default()).expect("load"));
    let dispatch = LibraryDispatch::new(host, None);
    let outcome = block_on(dispatch.call_tool(
        "add",
        Some(r#"{"A": 1, "B": 2, "A": 3}"#),
        CallControl::new(),
    ))
    .expect("tool");
    assert!(
        outcome.is_error
            && outcome
                .text
                .contains("argument \"A\": given more than once"),
        "{}",
        outcome.text
    );
    let outcome =
        block_on(dispatch.call_tool("add", Some("[1, 2]"), CallControl::new())).expect("tool");
    assert!(
        outcome.is_error && outcome.text.contains("must be a JSON object, got an array"),
        "{}",
        outcome.text
    );
    let outcome = block_on(dispatch.call_tool(
        "echo_u64",
        Some(r#"{"Value": 1.8446744073709551615e19}"#),
        CallControl::new(),
    ))
    .expect("tool");
    assert_eq!(
        outcome.structured,
        Some(serde_json::json!({"result": 18446744073709551615u64}))
    );
    assert!(block_on(dispatch.call_tool("nope", None, CallControl::new())).is_err());
}
