//! The approximation behind `{$IF Declared(X)}` and constant look-ups in `{$IF}`.
//!
//! The preprocessor has no symbol table. Instead it scans the active text produced so far
//! (the file and its includes, directives and inactive branches already blanked) and notes:
//! - names declared in `const`, `resourcestring`, `type`, `var` and `threadvar` sections (an
//!   identifier at the start of a declaration followed by `=`, `:`, `,` or `<`), including
//!   fields and nested declarations, since sections are not tracked through `end`;
//! - routine names after `procedure`, `function`, `constructor`, `destructor`, `operator`
//!   (for a method body `TFoo.Bar` only `TFoo`, as methods are not in scope at unit level);
//! - for `const Name = literal;` (and typed `const Name: T = literal;`) the literal's value, so
//!   `{$IF MyVersion >= 3}` can compare it; `-` before a number is understood.
//!
//! FireMonkey's `FireMonkeyVersion` counts as declared only after a `uses` clause that names
//! an `FMX.*` unit, as in Delphi, where `FMX.Types` declares it.
//!
//! Names from used units: the scan also notes the units named in `uses` clauses. A name not
//! declared in the unit itself is looked up in the interface part of those units that are
//! found as files (next to the unit, in the include folders or nearby, like include files),
//! last used unit first; their conditionals are not evaluated, so both branches count.
//! Beyond those only the short list of [`crate::target::WELL_KNOWN_DECLARED`] is known. The
//! scan runs lazily: only files whose conditionals call `Declared()` or name an unknown
//! constant pay for it, and each byte of output is scanned at most once.

use super::expr::Value;
use super::lexer::{brace_end, is_ident_byte, is_ident_start, line_end, paren_star_end};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Const,
    Other,
}

/// Incremental declaration scanner over the preprocessor's output.
#[derive(Debug)]
pub(crate) struct DeclScan {
    /// Output bytes scanned so far.
    scanned: usize,
    section: Section,
    at_decl_start: bool,
    routine_name_next: bool,
    paren_depth: u32,
    /// Identifier waiting for the symbol that makes it a declaration.
    pending: Option<String>,
    /// Constant whose value is being read, and the value tokens seen so far.
    const_name: Option<String>,
    const_value: Vec<Value>,
    negate: bool,
    /// Declared names (lower case) and, for simple constants, their values.
    names: HashMap<String, Option<Value>>,
    /// Inside a `uses` clause.
    in_uses: bool,
    /// A `uses` clause named an `FMX.*` unit (so FireMonkey's constants are declared).
    uses_fmx: bool,
    /// Units named in `uses` clauses so far (dotted names as written).
    used_units: Vec<String>,
    /// The unit name being read in a `uses` clause, and whether a `.` continues it.
    used_name: Option<String>,
    used_name_dot: bool,
    /// Stop at `implementation` (for a used unit, whose interface is all that is visible).
    interface_only: bool,
    in_implementation: bool,
}

impl DeclScan {
    pub(crate) fn new() -> Self {
        Self {
            scanned: 0,
            section: Section::None,
            at_decl_start: false,
            routine_name_next: false,
            paren_depth: 0,
            pending: None,
            const_name: None,
            const_value: Vec::new(),
            negate: false,
            names: HashMap::new(),
            in_uses: false,
            uses_fmx: false,
            used_units: Vec::new(),
            used_name: None,
            used_name_dot: false,
            interface_only: false,
            in_implementation: false,
        }
    }

    /// The names (lower case) the interface part of a used unit's text declares, with the
    /// values of its simple constants.
    pub(crate) fn interface_names(text: &[u8]) -> HashMap<String, Option<Value>> {
        let mut scan = Self::new();
        scan.interface_only = true;
        scan.scan_to(text);
        scan.names
    }

    /// The units named in `uses` clauses before `out.len()`, in order.
    pub(crate) fn used_units(&mut self, out: &[u8]) -> &[String] {
        self.scan_to(out);
        &self.used_units
    }

    fn end_used_name(&mut self) {
        if let Some(name) = self.used_name.take() {
            self.used_units.push(name);
        }
        self.used_name_dot = false;
    }

    /// Did a `uses` clause before `out.len()` name a FireMonkey unit (`FMX.Types`, ...)?
    pub(crate) fn uses_fmx(&mut self, out: &[u8]) -> bool {
        self.scan_to(out);
        self.uses_fmx
    }

    /// Is `name` (lower case) declared in the text before `out.len()`?
    pub(crate) fn lookup(&mut self, out: &[u8], lower_name: &str) -> Option<&Option<Value>> {
        self.scan_to(out);
        self.names.get(lower_name)
    }

    fn declare(&mut self, name: String) {
        self.names.entry(name).or_insert(None);
    }

    fn scan_to(&mut self, out: &[u8]) {
        let n = out.len();
        let mut i = self.scanned.min(n);
        while i < n && !(self.interface_only && self.in_implementation) {
            let c = out[i];
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'{' => i = brace_end(out, i + 1).unwrap_or(n),
                b'(' if out.get(i + 1) == Some(&b'*') => {
                    i = paren_star_end(out, i + 2).unwrap_or(n)
                }
                b'/' if out.get(i + 1) == Some(&b'/') => i = line_end(out, i),
                b'\'' | b'#' => {
                    // The text matters only as the value of a constant being declared.
                    let keep = self.const_name.is_some();
                    let mut text = String::new();
                    while i < n && (out[i] == b'\'' || out[i] == b'#') {
                        if out[i] == b'\'' {
                            let end = crate::scan::string_end(out, i);
                            if keep && end > i + 1 && out[end - 1] == b'\'' {
                                text.push_str(
                                    &String::from_utf8_lossy(&out[i + 1..end - 1])
                                        .replace("''", "'"),
                                );
                            }
                            i = end;
                        } else {
                            // Character codes make the value unknown but keep it one token.
                            i += 1;
                            while i < n && (out[i] == b'$' || out[i].is_ascii_hexdigit()) {
                                i += 1;
                            }
                            text.push('\u{fffd}');
                        }
                    }
                    self.value_token(Value::Str(text));
                }
                c if c.is_ascii_digit() || c == b'$' => {
                    let start = i;
                    i += 1;
                    while i < n && (out[i].is_ascii_alphanumeric() || out[i] == b'.') {
                        if out[i] == b'.' && out.get(i + 1) == Some(&b'.') {
                            break;
                        }
                        i += 1;
                    }
                    let text = String::from_utf8_lossy(&out[start..i]);
                    let value = if let Some(hex) = text.strip_prefix('$') {
                        i64::from_str_radix(hex, 16).ok().map(Value::Int)
                    } else if let Ok(v) = text.parse::<i64>() {
                        Some(Value::Int(v))
                    } else {
                        text.parse::<f64>().ok().map(Value::Real)
                    };
                    self.value_token(value.unwrap_or(Value::Unknown));
                }
                c if is_ident_start(c) || c == b'&' => {
                    let start = if c == b'&' { i + 1 } else { i };
                    i = start;
                    while i < n && is_ident_byte(out[i]) {
                        i += 1;
                    }
                    self.identifier(&out[start..i], c != b'&');
                }
                _ => {
                    i += 1;
                    self.symbol(c);
                }
            }
        }
        self.scanned = n;
    }

    fn value_token(&mut self, mut value: Value) {
        self.pending = None;
        if self.const_name.is_some() {
            if self.negate {
                value = match value {
                    Value::Int(v) => Value::Int(v.wrapping_neg()),
                    Value::Real(v) => Value::Real(-v),
                    _ => Value::Unknown,
                };
                self.negate = false;
            }
            self.const_value.push(value);
        }
    }

    fn identifier(&mut self, bytes: &[u8], may_be_keyword: bool) {
        // Keywords are matched in a stack buffer: no allocation for the common words.
        let mut buffer = [0u8; 16];
        let short = bytes.len() <= buffer.len();
        let lower: &str = if short {
            buffer[..bytes.len()].copy_from_slice(bytes);
            buffer[..bytes.len()].make_ascii_lowercase();
            std::str::from_utf8(&buffer[..bytes.len()]).unwrap_or("")
        } else {
            ""
        };
        if self.in_uses && lower == "fmx" {
            self.uses_fmx = true;
        }
        if self.in_uses && !(may_be_keyword && lower == "in") {
            let part = String::from_utf8_lossy(bytes);
            match self.used_name.as_mut() {
                Some(name) if self.used_name_dot => {
                    name.push('.');
                    name.push_str(&part);
                    self.used_name_dot = false;
                }
                _ => {
                    self.end_used_name();
                    self.used_name = Some(part.into_owned());
                }
            }
            return;
        }
        if may_be_keyword && lower == "uses" {
            self.start_section(Section::None);
            self.in_uses = true;
            return;
        }
        if may_be_keyword {
            match lower {
                "const" | "resourcestring" => return self.start_section(Section::Const),
                "type" | "var" | "threadvar" => return self.start_section(Section::Other),
                "procedure" | "function" | "constructor" | "destructor" | "operator" => {
                    self.pending = None;
                    self.routine_name_next = true;
                    return;
                }
                "begin" | "implementation" | "interface" | "initialization" | "finalization"
                | "asm" | "label" | "exports" => {
                    self.in_implementation |= lower == "implementation";
                    self.start_section(Section::None);
                    return;
                }
                "private" | "protected" | "public" | "published" | "strict" | "class" => {
                    self.pending = None;
                    self.at_decl_start = self.section != Section::None;
                    return;
                }
                "true" | "false" => {
                    return self.value_token(Value::Bool(lower == "true"));
                }
                _ => {}
            }
        }
        let word = || String::from_utf8_lossy(bytes).to_ascii_lowercase();
        if self.routine_name_next {
            self.declare(word());
            self.routine_name_next = false;
            return;
        }
        if self.const_name.is_some() {
            // A constant defined by another constant or an expression: not a simple literal.
            self.const_value.push(Value::Unknown);
        }
        if self.at_decl_start && self.paren_depth == 0 {
            self.pending = Some(word());
            self.at_decl_start = false;
        } else {
            self.pending = None;
        }
    }

    fn start_section(&mut self, section: Section) {
        self.section = section;
        self.at_decl_start = section != Section::None;
        self.pending = None;
        self.routine_name_next = false;
        self.const_name = None;
        self.const_value.clear();
    }

    fn symbol(&mut self, c: u8) {
        if self.in_uses {
            match c {
                b'.' => self.used_name_dot = true,
                b',' | b';' => self.end_used_name(),
                _ => {}
            }
        }
        match c {
            b'(' | b'[' => self.paren_depth += 1,
            b')' | b']' => self.paren_depth = self.paren_depth.saturating_sub(1),
            _ => {}
        }
        if self.paren_depth > 0 && c != b'(' && c != b'[' {
            return;
        }
        match c {
            b'=' | b':' | b',' | b'<' => {
                if let Some(name) = self.pending.take() {
                    if self.section == Section::Const && c != b',' {
                        self.const_name = Some(name.clone());
                        self.const_value.clear();
                    }
                    self.declare(name);
                }
                if c == b',' {
                    self.at_decl_start = self.section != Section::None;
                }
                if c == b'=' && self.const_name.is_some() {
                    // Typed constant `X: T = 5`: the value starts after `=`.
                    self.const_value.clear();
                    self.negate = false;
                }
            }
            b'-' if self.const_name.is_some() && self.const_value.is_empty() => {
                self.negate = !self.negate;
            }
            b';' => {
                self.in_uses = false;
                if let Some(name) = self.const_name.take() {
                    if let [value] = self.const_value.as_slice() {
                        if *value != Value::Unknown {
                            self.names.insert(name, Some(value.clone()));
                        }
                    }
                }
                self.const_value.clear();
                self.negate = false;
                self.pending = None;
                self.routine_name_next = false;
                self.at_decl_start = self.section != Section::None;
            }
            _ => {
                self.pending = None;
                if self.const_name.is_some() {
                    self.const_value.push(Value::Unknown);
                }
            }
        }
    }
}
