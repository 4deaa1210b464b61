//! The stub code of composite values (ABI 2) as a flat list of steps that `tool.pas.j2` renders
//! in order: lines of Pascal, and the scalar conversions of `argument.pas.j2` (`get`) and
//! `result.pas.j2` (`put`) applied to a slot of a block. Reading walks the argument block with
//! the cursor `__McpC`; writing appends slots to the writer `__McpW` (`McpRuntime.pas`).

use crate::resolve::{Conv, Resolved};
use serde::Serialize;

use super::{pascal_string, temp_for};

/// A scalar read from a slot (the context of `argument.pas.j2`'s `get`).
#[derive(Debug, Clone, Serialize)]
pub struct GetCtx {
    /// The slot array: `__McpArgs` or the block `__McpBlk`.
    pub src: String,
    /// The slot index: a number or `__McpC`.
    pub at: String,
    /// Where the value goes.
    pub var: String,
    /// The name in messages, as a Pascal literal.
    pub name_lit: String,
    /// The Pascal type of the value.
    pub pascal_type: String,
    /// The conversion.
    pub conv: Conv,
}

/// A scalar written to a slot (the context of `result.pas.j2`'s `put`).
#[derive(Debug, Clone, Serialize)]
pub struct PutCtx {
    /// The slot written: `__McpOut` or `@__McpT`.
    pub dest: String,
    /// The value.
    pub src: String,
    /// The conversion.
    pub conv: Conv,
}

/// One step of a stub.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// A line of Pascal.
    Line {
        /// The text.
        text: String,
    },
    /// A scalar read.
    Get {
        /// What and where.
        p: GetCtx,
    },
    /// A scalar write.
    Put {
        /// What and where.
        r: PutCtx,
    },
}

/// The steps of one stub and the local variables they use.
#[derive(Debug, Default)]
pub struct Steps {
    /// The steps in order.
    pub steps: Vec<Step>,
    /// Declarations (`__McpK1: Integer`) the steps need.
    pub temps: Vec<String>,
}

const EXIT_ON_ERROR: &str = "if Result <> __McpOk then Exit;";

impl Steps {
    /// ABI 3: the call context of argument slot `index` into `var` (a `TMcpContext` the
    /// stub frees after the call).
    pub fn read_context(&mut self, index: usize, var: &str, pascal_type: &str) {
        self.line(format!(
            "Result := __McpGetContext(__McpArgs, {index}, __McpP, __McpOut);"
        ));
        self.line(EXIT_ON_ERROR);
        self.line(format!("{var} := {pascal_type}.Create(__McpP);"));
    }

    fn line(&mut self, text: impl Into<String>) {
        self.steps.push(Step::Line { text: text.into() });
    }

    fn temp(&mut self, declaration: impl Into<String>) {
        let declaration = declaration.into();
        if !self.temps.contains(&declaration) {
            self.temps.push(declaration);
        }
    }

    fn loop_var(&mut self, depth: usize) -> String {
        self.temp(format!("__McpK{depth}: Integer"));
        format!("__McpK{depth}")
    }

    /// Reads argument slot `index` (a block, or bytes) into `var`.
    pub fn read_argument(&mut self, resolved: &Resolved, index: usize, var: &str, name: &str) {
        if resolved.conv == Conv::Bytes {
            self.line(format!(
                "Result := __McpGetBytes(__McpArgs, {index}, {}, {var}, __McpOut);",
                pascal_string(name)
            ));
            self.line(EXIT_ON_ERROR);
            return;
        }
        self.temp("__McpBlk: __PMcpAbiValue");
        self.temp("__McpC: Integer");
        self.line(format!(
            "Result := __McpBlock(__McpArgs, {index}, __McpBlk, __McpOut);"
        ));
        self.line(EXIT_ON_ERROR);
        self.line("__McpC := 0;");
        self.read(resolved, var, name, 1);
    }

    /// Reads the arguments object of a JSON handler (argument slot `index`, its JSON text) into
    /// the `TJSONObject` `var`.
    pub fn read_json_arguments(&mut self, index: usize, var: &str) {
        self.line(format!(
            "Result := __McpGetUtf8(__McpArgs, {index}, 'arguments', __McpR, __McpOut);"
        ));
        self.line(EXIT_ON_ERROR);
        self.line("{$IFDEF FPC}");
        self.line(format!("{var} := GetJSON(__McpR) as TJSONObject;"));
        self.line("{$ELSE}");
        self.line(format!(
            "{var} := TJSONObject.ParseJSONValue(UTF8ToString(__McpR)) as TJSONObject;"
        ));
        self.line("{$ENDIF}");
    }

    /// Writes the JSON text of a JSON handler's result `__McpRes` (`nil` is JSON `null`).
    pub fn write_json_result(&mut self) {
        self.line("if __McpRes = nil then");
        self.line("  __McpR := 'null'");
        self.line("else");
        self.line(
            "  __McpR := {$IFDEF FPC}__McpRes.AsJSON{$ELSE}UTF8Encode(__McpRes.ToJSON){$ENDIF};",
        );
        self.line("Result := __McpSetRaw(__McpOut, __McpR, 65001);");
    }

    fn head(&mut self, kind: &str, expected: &str, name: &str) {
        self.temp("__McpN: Integer");
        self.line(format!(
            "Result := __McpGetHead(__McpBlk, __McpC, {}, {kind}, {expected}, __McpN, __McpOut);",
            pascal_string(name)
        ));
        self.line(EXIT_ON_ERROR);
        self.line("Inc(__McpC);");
    }

    fn get(&mut self, conv: Conv, pascal_type: &str, var: &str, name: &str) {
        self.temp(temp_for(&conv));
        self.steps.push(Step::Get {
            p: GetCtx {
                src: "__McpBlk".into(),
                at: "__McpC".into(),
                var: var.into(),
                name_lit: pascal_string(name),
                pascal_type: pascal_type.into(),
                conv,
            },
        });
        self.line("Inc(__McpC);");
    }

    /// Reads the value at the cursor into `var`.
    fn read(&mut self, resolved: &Resolved, var: &str, name: &str, depth: usize) {
        match &resolved.conv {
            Conv::Record { fields } => {
                self.head("__McpKindRecord", &fields.len().to_string(), name);
                for field in fields {
                    let target = format!("{var}.{}", field.pascal);
                    self.read(
                        &field.resolved,
                        &target,
                        &format!("{name}.{}", field.json),
                        depth,
                    );
                }
            }
            Conv::Array { item, fixed } => {
                let expected = fixed.map_or("-1".to_string(), |n| n.to_string());
                self.head("__McpKindArray", &expected, name);
                let k = self.loop_var(depth);
                let element = match fixed {
                    Some(_) => format!("{var}[Low({var}) + {k}]"),
                    None => {
                        self.line(format!("SetLength({var}, __McpN);"));
                        format!("{var}[{k}]")
                    }
                };
                self.line(format!("for {k} := 0 to __McpN - 1 do"));
                self.line("begin");
                self.read(item, &element, &format!("{name}[]"), depth + 1);
                self.line("end;");
            }
            Conv::Set { element } => {
                self.head("__McpKindArray", "-1", name);
                let k = self.loop_var(depth);
                self.line(format!("{var} := [];"));
                self.line(format!("for {k} := 1 to __McpN do"));
                self.line("begin");
                self.get(Conv::Int, element, "__McpI", &format!("{name}[]"));
                self.line(format!("Include({var}, {element}(__McpI));"));
                self.line("end;");
            }
            Conv::Strings { class } => {
                self.head("__McpKindArray", "-1", name);
                let k = self.loop_var(depth);
                self.line(format!("{var} := {class}.Create;"));
                self.line(format!("for {k} := 1 to __McpN do"));
                self.line("begin");
                self.get(Conv::Utf16, "UnicodeString", "__McpS", &format!("{name}[]"));
                self.line(format!("{var}.Add(__McpS);"));
                self.line("end;");
            }
            Conv::Bytes => {
                self.line(format!(
                    "Result := __McpGetBytes(__McpBlk, __McpC, {}, {var}, __McpOut);",
                    pascal_string(name)
                ));
                self.line(EXIT_ON_ERROR);
                self.line("Inc(__McpC);");
            }
            scalar => self.get(scalar.clone(), &resolved.pascal_type, var, name),
        }
    }

    /// Writes `value` (a function result or a `var`/`out` variable) as the out value: a block
    /// when composite (`docs/abi.md`), the bytes of `TBytes` directly.
    pub fn write_result(&mut self, resolved: &Resolved, value: &str) {
        if resolved.conv == Conv::Bytes {
            self.line(format!("Result := __McpSetByteArray(__McpOut, {value});"));
            return;
        }
        self.write(resolved, value, 1);
        self.line("Result := __McpWFinish(__McpW, __McpOut);");
    }

    /// Writes the out record of a tool with `var`/`out` parameters: `values` in order.
    pub fn write_out_record(&mut self, values: &[(&Resolved, String)]) {
        self.temp("__McpH0: NativeInt");
        self.line(format!(
            "__McpH0 := __McpWOpen(__McpW, __McpKindRecord, {});",
            values.len()
        ));
        for (resolved, value) in values {
            self.write(resolved, value, 1);
        }
        self.line("__McpWClose(__McpW, __McpH0);");
        self.line("Result := __McpWFinish(__McpW, __McpOut);");
    }

    fn add_slot(&mut self) {
        self.line("if Result <> __McpOk then");
        self.line("begin");
        self.line("  __McpOut^ := __McpT;");
        self.line("  Exit;");
        self.line("end;");
        self.line("__McpWAdd(__McpW, __McpT);");
    }

    fn open(&mut self, kind: &str, count: &str, depth: usize) -> String {
        self.temp(format!("__McpH{depth}: NativeInt"));
        let h = format!("__McpH{depth}");
        self.line(format!("{h} := __McpWOpen(__McpW, {kind}, {count});"));
        h
    }

    fn write(&mut self, resolved: &Resolved, value: &str, depth: usize) {
        self.temp("__McpT: __TMcpAbiValue");
        match &resolved.conv {
            Conv::Record { fields } => {
                let h = self.open("__McpKindRecord", &fields.len().to_string(), depth);
                for field in fields {
                    self.write(
                        &field.resolved,
                        &format!("{value}.{}", field.pascal),
                        depth + 1,
                    );
                }
                self.line(format!("__McpWClose(__McpW, {h});"));
            }
            Conv::Array { item, fixed } => {
                let h = self.open("__McpKindArray", &format!("Length({value})"), depth);
                let k = self.loop_var(depth);
                let element = match fixed {
                    Some(_) => format!("{value}[Low({value}) + {k}]"),
                    None => format!("{value}[{k}]"),
                };
                self.line(format!("for {k} := 0 to Length({value}) - 1 do"));
                self.line("begin");
                self.write(item, &element, depth + 1);
                self.line("end;");
                self.line(format!("__McpWClose(__McpW, {h});"));
            }
            Conv::Set { element } => {
                self.temp("__McpN: Integer");
                let k = self.loop_var(depth);
                self.line("__McpN := 0;");
                self.line(format!(
                    "for {k} := Ord(Low({element})) to Ord(High({element})) do"
                ));
                self.line(format!("  if {element}({k}) in {value} then"));
                self.line("    Inc(__McpN);");
                let h = self.open("__McpKindArray", "__McpN", depth);
                self.line(format!(
                    "for {k} := Ord(Low({element})) to Ord(High({element})) do"
                ));
                self.line(format!("  if {element}({k}) in {value} then"));
                self.line("  begin");
                self.line(format!("    __McpSetInt(@__McpT, {k});"));
                self.line("    __McpWAdd(__McpW, __McpT);");
                self.line("  end;");
                self.line(format!("__McpWClose(__McpW, {h});"));
            }
            Conv::Strings { .. } => {
                let h = self.open("__McpKindArray", &format!("{value}.Count"), depth);
                let k = self.loop_var(depth);
                self.line(format!("for {k} := 0 to {value}.Count - 1 do"));
                self.line("begin");
                self.line(format!("  __McpSetStr(@__McpT, {value}[{k}]);"));
                self.line("  __McpWAdd(__McpW, __McpT);");
                self.line("end;");
                self.line(format!("__McpWClose(__McpW, {h});"));
            }
            Conv::Bytes => {
                self.line(format!("__McpSetByteArray(@__McpT, {value});"));
                self.line("__McpWAdd(__McpW, __McpT);");
            }
            scalar => {
                self.steps.push(Step::Put {
                    r: PutCtx {
                        dest: "@__McpT".into(),
                        src: value.into(),
                        conv: scalar.clone(),
                    },
                });
                self.add_slot();
            }
        }
    }
}
