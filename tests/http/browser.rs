//! The status page in a real browser: headless Chromium (Debian's `chromium`) loads `GET /` of
//! `delphi-mcp serve --http` (calc example) after some calls; the test reads the rendered DOM
//! (`--dump-dom`) for tool names and call counts and saves a screenshot (`--screenshot`) into
//! the test's temp folder under the target directory.

use crate::support;
use crate::support::http::{tools_call_2026, HttpServer};
use crate::support::tools::chromium;
use std::path::Path;
use std::process::Command;

fn chromium_run(profile: &Path, extra: &[&str], url: &str) -> std::process::Output {
    Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium")
}

/// The text of the `<td>` with class `class` in the row of tool `name`.
fn cell(dom: &str, name: &str, class: &str) -> Option<String> {
    let row_start = dom.find(&format!("<tr data-tool=\"{name}\">"))?;
    let row = &dom[row_start..];
    let row = &row[..row.find("</tr>")?];
    let marker = format!("class=\"num {class}\">");
    let at = row.find(&marker)? + marker.len();
    Some(row[at..].split('<').next()?.trim().to_string())
}

#[test]
fn status_page_renders_tools_and_counts_in_chromium() {
    let library = support::fpc::build_example("calc");
    let server = HttpServer::start(&library, &[]);
    for (id, (a, b)) in [(2, 3), (40, 2), (-7, 7)].into_iter().enumerate() {
        let body = tools_call_2026(
            id as i64,
            "calc_add_integers",
            &format!(r#"{{"A":{a},"B":{b}}}"#),
        );
        let answer = server
            .post_2026("tools/call", Some("calc_add_integers"), &body)
            .json();
        assert_eq!(
            answer["result"]["structuredContent"]["result"],
            a + b,
            "{answer}"
        );
    }
    // A rejected call counts as an error.
    let bad = tools_call_2026(9, "calc_negate", r#"{"Value":"x"}"#);
    let answer = server
        .post_2026("tools/call", Some("calc_negate"), &bad)
        .json();
    assert_eq!(answer["result"]["isError"], true, "{answer}");

    let work =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("http_browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("work folder");
    let url = format!("http://{}/", server.authority);

    let dumped = chromium_run(&work.join("profile-dom"), &["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&dumped.stdout);
    assert!(
        dumped.status.success(),
        "chromium --dump-dom failed: {}",
        String::from_utf8_lossy(&dumped.stderr)
    );
    assert!(dom.contains("<h1>Calc"), "{dom}");
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(support::repo().join("examples/calc/generated/tools.json"))
            .expect("calc manifest"),
    )
    .expect("manifest JSON");
    for tool in manifest["tools"].as_array().expect("tools") {
        let name = tool["name"].as_str().expect("name");
        assert!(
            cell(&dom, name, "calls").is_some(),
            "tool {name} is not on the page"
        );
    }
    assert_eq!(
        cell(&dom, "calc_add_integers", "calls").as_deref(),
        Some("3")
    );
    assert_eq!(
        cell(&dom, "calc_add_integers", "errors").as_deref(),
        Some("0")
    );
    assert_eq!(cell(&dom, "calc_negate", "calls").as_deref(), Some("1"));
    assert_eq!(cell(&dom, "calc_negate", "errors").as_deref(), Some("1"));
    assert_eq!(cell(&dom, "calc_divide", "calls").as_deref(), Some("0"));
    assert_eq!(cell(&dom, "mcp_get_version", "calls").as_deref(), Some("0"));
    assert!(dom.contains("Last 4 calls"), "recent calls missing");

    let screenshot = work.join("status.png");
    let shot = chromium_run(
        &work.join("profile-shot"),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1280,1600",
        ],
        &url,
    );
    assert!(
        shot.status.success(),
        "chromium --screenshot failed: {}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let png = std::fs::read(&screenshot).expect("screenshot written");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "not a real screenshot ({} bytes)",
        png.len()
    );
    eprintln!("screenshot: {}", screenshot.display());
}
