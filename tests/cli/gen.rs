//! The `manifest`, `gen` and `build` commands as users run them: exit codes, stdout/stderr,
//! `--check`, writing only what changed, rebuilding only when a unit changed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn delphi_mcp(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_delphi-mcp"))
        .args(args)
        .output()
        .expect("run delphi-mcp")
}

fn temp_project(units: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("gen-cli")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("temp dir");
    for (name, text) in units {
        std::fs::write(dir.path().join(name), text).expect("write unit");
    }
    dir
}

const GOOD: &str = "unit Good;\n\ninterface\n\n{$IFNDEF FPC}[McpTool('add', 'Adds.')]{$ENDIF}\nfunction Add(A, B: Integer): Integer;\n\nimplementation\n\nfunction Add(A, B: Integer): Integer;\nbegin\n  Result := A + B;\nend;\n\nend.\n";
const BAD: &str = "unit Bad;\n\ninterface\n\n/// <summary>Bad.</summary>\n[McpTool]\nprocedure P(const X);\n/// <summary>Worse.</summary>\n[McpTool('not valid')]\nprocedure Q;\n\nimplementation\n\nprocedure P(const X);\nbegin\nend;\n\nprocedure Q;\nbegin\nend;\n\nend.\n";

fn s(text: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(text)
}

#[test]
fn manifest_goes_to_stdout_or_a_file() {
    let project = temp_project(&[("Good.pas", GOOD)]);
    let unit = project.path().join("Good.pas");
    let out = delphi_mcp(&[s("manifest"), unit.as_os_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(manifest["tools"][0]["name"], "add");
    assert_eq!(manifest["name"], "Good");
    let file = project.path().join("tools.json");
    let out = delphi_mcp(&[s("manifest"), unit.as_os_str(), s("-o"), file.as_os_str()]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let written = std::fs::read(&file).expect("tools.json written");
    let from_stdout = delphi_mcp(&[s("manifest"), unit.as_os_str()]).stdout;
    assert_eq!(written, from_stdout);
}

#[test]
fn errors_are_all_reported_on_stderr_with_exit_1() {
    let project = temp_project(&[("Bad.pas", BAD)]);
    let out = delphi_mcp(&[s("manifest"), project.path().as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on stdout on error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Bad.pas:7:13"), "{stderr}");
    assert!(stderr.contains("has no type"), "{stderr}");
    assert!(
        stderr.contains("`not valid` is not a valid tool name"),
        "{stderr}"
    );
    assert!(stderr.contains("2 errors found"), "{stderr}");
}

#[test]
fn gen_writes_then_check_passes_then_detects_a_change() {
    let project = temp_project(&[("Good.pas", GOOD)]);
    let out_dir = project.path().join("generated");
    let gen = |extra: &[&str]| {
        let mut args = vec![
            s("gen"),
            project.path().as_os_str(),
            s("--out"),
            out_dir.as_os_str(),
        ];
        args.extend(extra.iter().map(|a| s(a)));
        delphi_mcp(&args)
    };
    let out = gen(&["--check"]);
    assert_eq!(out.status.code(), Some(1), "missing files are a change");
    assert!(!out_dir.exists(), "--check writes nothing");
    let out = gen(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [
        "tools.json",
        "McpExports.pas",
        "McpExports.inc",
        "McpRuntime.pas",
        "McpAttributes.pas",
    ] {
        assert!(out_dir.join(file).is_file(), "{file}");
    }
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .expect("mtime")
    };
    let before = stamp(&out_dir.join("McpExports.pas"));
    assert!(gen(&["--check"]).status.success());
    assert!(gen(&[]).status.success());
    assert_eq!(
        stamp(&out_dir.join("McpExports.pas")),
        before,
        "unchanged files are not rewritten"
    );

    std::fs::write(
        project.path().join("Good.pas"),
        GOOD.replace("Adds.", "Adds two numbers."),
    )
    .expect("edit");
    let out = gen(&["--check"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("would change:") && stderr.contains("tools.json"),
        "{stderr}"
    );
    assert!(stderr.contains("McpExports.pas"), "{stderr}");
    assert!(!stderr.contains("McpRuntime.pas"), "{stderr}");
}

fn last_line(out: &Output) -> PathBuf {
    let stdout = String::from_utf8_lossy(&out.stdout);
    PathBuf::from(stdout.lines().last().unwrap_or_default())
}

#[test]
fn build_generates_a_project_compiles_and_rebuilds_only_on_change() {
    let project = temp_project(&[("Good.pas", GOOD)]);
    let out = delphi_mcp(&[s("build"), project.path().as_os_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let library = last_line(&out);
    assert!(library.is_file(), "{}", library.display());
    assert!(
        project.path().join("GoodLib.dpr").is_file(),
        "a project file is generated"
    );

    let again = delphi_mcp(&[s("build"), project.path().as_os_str()]);
    assert!(again.status.success());
    assert_eq!(last_line(&again), library);
    assert!(String::from_utf8_lossy(&again.stderr).contains("up to date"));

    // A changed unit compiles again (the mtime must move past the library's).
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    let unit = std::fs::File::options()
        .write(true)
        .open(project.path().join("Good.pas"))
        .expect("open unit");
    unit.set_modified(later).expect("touch");
    let rebuilt = delphi_mcp(&[s("build"), project.path().as_os_str()]);
    assert!(rebuilt.status.success());
    let stderr = String::from_utf8_lossy(&rebuilt.stderr);
    assert!(stderr.contains("compiling"), "{stderr}");
}

#[test]
fn build_warns_when_an_existing_project_lacks_the_exports() {
    let project = temp_project(&[
        ("Good.pas", GOOD),
        (
            "Mine.dpr",
            "library Mine;\n{$IFDEF FPC}{$MODE DELPHIUNICODE}{$ENDIF}\nuses\n  {$IFDEF UNIX}cthreads,{$ENDIF} Good;\nbegin\nend.\n",
        ),
    ]);
    // The second build too, which takes the recorded one as it is.
    for build in 1..=2 {
        let out = delphi_mcp(&[s("build"), project.path().as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("does not include the exports"), "{stderr}");
        assert!(stderr.contains("Mine.dpr"), "{stderr}");
        assert_eq!(build == 2, stderr.contains("up to date"), "{stderr}");
        assert!(inputs_record(&project).is_file());
    }
}

#[test]
fn naming_option_renames_arguments_where_no_attribute_does() {
    const UNIT: &str = "unit Names;\n\ninterface\n\n/// Adds.\n[McpTool]\nfunction AddAll(FirstValue: Integer; [McpName('other')] SecondValue: Integer): Integer;\n\nimplementation\n\nfunction AddAll(FirstValue: Integer; SecondValue: Integer): Integer;\nbegin\n  Result := FirstValue + SecondValue;\nend;\n\nend.\n";
    let project = temp_project(&[("Names.pas", UNIT)]);
    let unit = project.path().join("Names.pas");
    let keys = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![s("manifest"), unit.as_os_str()];
        args.extend(extra.iter().map(|a| s(a)));
        let out = delphi_mcp(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let manifest: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        manifest["tools"][0]["inputSchema"]["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(keys(&[]), ["FirstValue", "other"]);
    assert_eq!(keys(&["--naming", "snake-case"]), ["first_value", "other"]);
    assert_eq!(keys(&["--naming", "camel-case"]), ["firstValue", "other"]);
    let out = delphi_mcp(&[s("manifest"), unit.as_os_str(), s("--naming"), s("kebab")]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
}

#[test]
fn naming_option_applies_to_build_and_serve_of_a_project_folder() {
    const UNIT: &str = "unit Names;\n\ninterface\n\n{$IFNDEF FPC}[McpTool]{$ENDIF}\nfunction AddAll(FirstValue: Integer; {$IFNDEF FPC}[McpName('other')]{$ENDIF} SecondValue: Integer): Integer;\n\nimplementation\n\nfunction AddAll(FirstValue: Integer; SecondValue: Integer): Integer;\nbegin\n  Result := FirstValue + SecondValue;\nend;\n\nend.\n";
    let project = temp_project(&[("Names.pas", UNIT)]);
    let dir = project.path().as_os_str();
    let out = delphi_mcp(&[s("build"), dir, s("--naming"), s("snake-case")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read(project.path().join("generated/tools.json")).expect("manifest");
    let manifest: serde_json::Value = serde_json::from_slice(&written).expect("JSON");
    let keys: Vec<&String> = manifest["tools"][0]["inputSchema"]["properties"]
        .as_object()
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["first_value", "other"]);

    // `serve DIR` regenerates with its own policy, rebuilds, and the library answers to it.
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_all","arguments":{"firstValue":40,"other":2}}}"#,
    ];
    let input = project.path().join("requests.txt");
    std::fs::write(&input, requests.join("\n") + "\n").expect("write requests");
    let served = Command::new(env!("CARGO_BIN_EXE_delphi-mcp"))
        .args([s("serve"), dir, s("--naming"), s("camel-case")])
        .stdin(std::fs::File::open(&input).expect("open requests"))
        .output()
        .expect("run serve");
    let stdout = String::from_utf8_lossy(&served.stdout);
    assert!(
        served.status.success(),
        "{}",
        String::from_utf8_lossy(&served.stderr)
    );
    let answer: serde_json::Value = stdout
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .find(|a: &serde_json::Value| a["id"] == 2)
        .unwrap_or_default();
    assert_eq!(
        answer["result"]["structuredContent"],
        serde_json::json!({"result": 42}),
        "{stdout}"
    );
}

/// The record of a build's inputs (`codegen/src/inputs.rs`).
fn inputs_record(project: &tempfile::TempDir) -> PathBuf {
    project.path().join("build").join("inputs.txt")
}

#[test]
fn an_unchanged_project_is_not_read_again_and_a_change_is() {
    const MORE: &str = "unit More;\n\ninterface\n\n{$IFNDEF FPC}[McpTool('twice', 'Doubles.')]{$ENDIF}\nfunction Twice(A: Integer): Integer;\n\nimplementation\n\nfunction Twice(A: Integer): Integer;\nbegin\n  Result := 2 * A;\nend;\n\nend.\n";
    let project = temp_project(&[("Good.pas", GOOD)]);
    let dir = project.path().as_os_str();
    let build = || delphi_mcp(&[s("build"), dir]);
    let first = build();
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert!(inputs_record(&project).is_file(), "the build is recorded");

    // The unit's text changes, its size and time do not: the record holds, and the unit is
    // not read (its new text would not parse).
    let unit = project.path().join("Good.pas");
    let modified = std::fs::metadata(&unit)
        .and_then(|m| m.modified())
        .expect("unit time");
    let garbled: String = GOOD
        .chars()
        .map(|c| if c.is_ascii_alphabetic() { 'x' } else { c })
        .collect();
    assert_eq!(garbled.len(), GOOD.len());
    std::fs::write(&unit, &garbled).expect("garble");
    let touch = |time| {
        std::fs::File::options()
            .write(true)
            .open(&unit)
            .and_then(|f| f.set_modified(time))
            .expect("touch");
    };
    touch(modified);
    let unread = build();
    let stderr = String::from_utf8_lossy(&unread.stderr);
    assert!(unread.status.success(), "{stderr}");
    assert!(stderr.contains("up to date"), "{stderr}");
    assert_eq!(last_line(&unread), last_line(&first));

    // Another time is a change: the unit is read, and its errors stop the build, which leaves
    // no record.
    touch(modified + std::time::Duration::from_secs(1));
    let read = build();
    assert!(!read.status.success(), "the garbled unit was read");
    assert!(!inputs_record(&project).exists());

    // A unit added to the folder is read too.
    std::fs::write(&unit, GOOD).expect("restore");
    let first_again = build();
    assert!(first_again.status.success());
    std::fs::write(project.path().join("More.pas"), MORE).expect("add a unit");
    let added = build();
    let stderr = String::from_utf8_lossy(&added.stderr);
    assert!(added.status.success(), "{stderr}");
    assert!(stderr.contains("compiling"), "{stderr}");
    let tools =
        std::fs::read_to_string(project.path().join("generated/tools.json")).expect("tools");
    assert!(tools.contains("\"twice\""), "{tools}");
}

#[test]
fn a_recorded_build_reports_its_warnings_again() {
    // No description: a warning, printed by each build.
    const WARNED: &str = "unit Warned;\n\ninterface\n\n{$IFNDEF FPC}[McpTool]{$ENDIF}\nfunction Add(A, B: Integer): Integer;\n\nimplementation\n\nfunction Add(A, B: Integer): Integer;\nbegin\n  Result := A + B;\nend;\n\nend.\n";
    let project = temp_project(&[("Warned.pas", WARNED)]);
    let mut printed = Vec::new();
    for build in 1..=2 {
        let out = delphi_mcp(&[s("build"), project.path().as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("warning"), "build {build}: {stderr}");
        assert!(inputs_record(&project).is_file(), "build {build}");
        printed.push(stderr);
    }
    assert!(printed[1].contains("up to date"), "{}", printed[1]);
    let warnings = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            // The build's own notes differ: the first wrote the project and compiled.
            .filter(|line| {
                !["compiling", "up to date", "wrote library project"]
                    .iter()
                    .any(|note| line.contains(note))
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(warnings(&printed[1]), warnings(&printed[0]));
}

#[test]
fn a_missing_include_file_leaves_no_record_until_it_is_found() {
    // An include only Delphi reads: Free Pascal skips it, the parser (reading for Delphi)
    // looks for it.
    let unit = GOOD.replace(
        "  Result := A + B;\n",
        "  {$IFNDEF FPC}{$I delphi.inc}{$ENDIF}\n  Result := A + B;\n",
    );
    let project = temp_project(&[("Good.pas", &unit)]);
    let build = || delphi_mcp(&[s("build"), project.path().as_os_str()]);
    for _ in 0..2 {
        let out = build();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("`delphi.inc` not found"), "{stderr}");
        assert!(!inputs_record(&project).exists());
    }
    std::fs::write(project.path().join("delphi.inc"), "{ Delphi only }\n").expect("include");
    let out = build();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("not found"), "{stderr}");
    assert!(inputs_record(&project).is_file());
}

#[test]
fn a_project_reading_an_include_file_from_another_folder_is_read_by_every_build() {
    // `Good` with its function's body in an include file: beside the unit the build is
    // recorded; from an `-I` folder it is not (a file added to a folder searched first
    // would be read instead).
    let unit = GOOD.replace("  Result := A + B;\n", "  {$I body.inc}\n");
    let beside = temp_project(&[("Good.pas", &unit), ("body.inc", "Result := A + B;\n")]);
    let out = delphi_mcp(&[s("build"), beside.path().as_os_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(inputs_record(&beside).is_file());

    let elsewhere = temp_project(&[("Good.pas", &unit)]);
    let includes = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    std::fs::write(includes.path().join("body.inc"), "Result := A + B;\n").expect("include");
    let build = || {
        delphi_mcp(&[
            s("build"),
            elsewhere.path().as_os_str(),
            s("-I"),
            includes.path().as_os_str(),
        ])
    };
    for _ in 0..2 {
        let out = build();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!inputs_record(&elsewhere).exists());
    }
}
