//! Evaluation of `{$IF}` / `{$ELSEIF}` expressions.
//!
//! Pascal precedence: `not`, unary `-`/`+` bind tightest; then `* / div mod and shl shr`;
//! then `+ - or xor`; relational operators (`= <> < > <= >= in`) bind loosest, so
//! `Defined(A) and (CompilerVersion >= 36)` needs its parentheses, as in Delphi.
//!
//! Unknown identifiers and functions evaluate to [`Value::Unknown`], which behaves as `False`
//! and `0`: code written for another compiler must not fail to parse here. Only a malformed
//! expression is an error.

/// A value of a conditional expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
    /// An identifier nobody declared (behaves as `False` / `0`).
    Unknown,
}

impl Value {
    /// The truth of the value as a condition.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Int(v) => *v != 0,
            Value::Real(v) => *v != 0.0,
            Value::Bool(v) => *v,
            Value::Str(s) => !s.is_empty(),
            Value::Unknown => false,
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::Real(v) => Some(*v),
            Value::Bool(v) => Some(f64::from(u8::from(*v))),
            Value::Unknown => Some(0.0),
            Value::Str(_) => None,
        }
    }

    fn int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Bool(v) => Some(i64::from(*v)),
            Value::Unknown => Some(0),
            _ => None,
        }
    }
}

/// What an expression can ask about its surroundings.
pub trait Env {
    /// `Defined(name)`.
    fn defined(&mut self, name: &str) -> bool;
    /// `Declared(name)`.
    fn declared(&mut self, name: &str) -> bool;
    /// The value of a constant, or `Unknown`.
    fn constant(&mut self, name: &str) -> Value;
    /// `SizeOf(type)`.
    fn size_of(&mut self, name: &str) -> Option<i64>;
}

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Int(i64),
    Real(f64),
    Str(String),
    Sym(&'static str),
}

const MAX_DEPTH: usize = 200;

/// Evaluates `source` (the text after `IF`), or explains why it is malformed. Tokens left over
/// after a complete expression (`{$IF Defined(A))}`, which both compilers accept) do not fail
/// it: they come back as the second value, to be reported as a warning.
pub fn evaluate_lenient(
    source: &str,
    env: &mut dyn Env,
) -> Result<(Value, Option<String>), String> {
    let tokens = tokenize(source)?;
    if tokens.is_empty() {
        return Err("expected an expression".into());
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        env,
        depth: 0,
    };
    let value = parser.relational()?;
    let trailing = parser
        .tokens
        .get(parser.pos)
        .map(|tok| format!("unexpected {} after the expression", describe(tok)));
    Ok((value, trailing))
}

fn describe(tok: &Tok<'_>) -> String {
    match tok {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Int(v) => format!("`{v}`"),
        Tok::Real(v) => format!("`{v}`"),
        Tok::Str(s) => format!("'{s}'"),
        Tok::Sym(s) => format!("`{s}`"),
    }
}

fn tokenize(s: &str) -> Result<Vec<Tok<'_>>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            // A trailing `// comment` inside the directive.
            break;
        } else if super::lexer::is_ident_start(c) || c == b'&' {
            let start = if c == b'&' { i + 1 } else { i };
            let mut j = start;
            // Dotted names (`System.RTLVersion`) are one token.
            loop {
                while j < b.len() && super::lexer::is_ident_byte(b[j]) {
                    j += 1;
                }
                if j + 1 < b.len() && b[j] == b'.' && super::lexer::is_ident_start(b[j + 1]) {
                    j += 1;
                } else {
                    break;
                }
            }
            if j == start {
                return Err("expected an identifier after `&`".into());
            }
            out.push(Tok::Ident(&s[start..j]));
            i = j;
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let mut real = false;
            if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_digit() {
                real = true;
                j += 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                let mut k = j + 1;
                if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                    k += 1;
                }
                if k < b.len() && b[k].is_ascii_digit() {
                    real = true;
                    j = k;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                }
            }
            let text = &s[i..j];
            out.push(if real {
                Tok::Real(text.parse().map_err(|_| format!("bad number `{text}`"))?)
            } else {
                Tok::Int(
                    text.parse()
                        .map_err(|_| format!("number `{text}` too large"))?,
                )
            });
            i = j;
        } else if c == b'$' || c == b'%' {
            let radix = if c == b'$' { 16 } else { 2 };
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_hexdigit() {
                j += 1;
            }
            let digits = &s[i + 1..j];
            let value = i64::from_str_radix(digits, radix)
                .or_else(|_| u64::from_str_radix(digits, radix).map(|v| v as i64))
                .map_err(|_| format!("bad number `{}`", &s[i..j]))?;
            out.push(Tok::Int(value));
            i = j;
        } else if c == b'\'' || c == b'#' {
            // Strings and character codes, concatenated as Pascal allows: 'a'#13'b'.
            let mut text = String::new();
            while i < b.len() && (b[i] == b'\'' || b[i] == b'#') {
                if b[i] == b'\'' {
                    let end = crate::scan::string_end(b, i);
                    if end <= i + 1 || b[end - 1] != b'\'' {
                        return Err("unterminated string".into());
                    }
                    text.push_str(&s[i + 1..end - 1].replace("''", "'"));
                    i = end;
                } else {
                    let mut j = i + 1;
                    let hex = b.get(j) == Some(&b'$');
                    if hex {
                        j += 1;
                    }
                    let start = j;
                    while j < b.len() && b[j].is_ascii_hexdigit() && (hex || b[j].is_ascii_digit())
                    {
                        j += 1;
                    }
                    let code = u32::from_str_radix(&s[start..j], if hex { 16 } else { 10 })
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| format!("bad character code `{}`", &s[i..j]))?;
                    text.push(code);
                    i = j;
                }
            }
            out.push(Tok::Str(text));
        } else {
            let two = s.get(i..i + 2).unwrap_or("");
            let sym: &'static str = match two {
                "<>" => "<>",
                "<=" => "<=",
                ">=" => ">=",
                ".." => "..",
                _ => match c {
                    b'(' => "(",
                    b')' => ")",
                    b'[' => "[",
                    b']' => "]",
                    b',' => ",",
                    b'=' => "=",
                    b'<' => "<",
                    b'>' => ">",
                    b'+' => "+",
                    b'-' => "-",
                    b'*' => "*",
                    b'/' => "/",
                    _ => {
                        let ch = s[i..].chars().next().unwrap_or('?');
                        return Err(format!("unexpected character `{ch}`"));
                    }
                },
            };
            i += sym.len();
            out.push(Tok::Sym(sym));
        }
    }
    Ok(out)
}

struct Parser<'a, 'e> {
    tokens: Vec<Tok<'a>>,
    pos: usize,
    env: &'e mut dyn Env,
    depth: usize,
}

fn is_word(tok: Option<&Tok<'_>>, word: &str) -> bool {
    matches!(tok, Some(Tok::Ident(s)) if s.eq_ignore_ascii_case(word))
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Tok<'_>> {
        self.tokens.get(self.pos)
    }

    fn eat_sym(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_sym(&mut self, sym: &str) -> Result<(), String> {
        if self.eat_sym(sym) {
            Ok(())
        } else {
            Err(match self.peek() {
                Some(tok) => format!("expected `{sym}`, found {}", describe(tok)),
                None => format!("expected `{sym}` at the end of the expression"),
            })
        }
    }

    fn relational(&mut self) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("expression nested too deeply".into());
        }
        let left = self.additive()?;
        let op = match self.peek() {
            Some(Tok::Sym(s)) if matches!(*s, "=" | "<>" | "<" | ">" | "<=" | ">=") => *s,
            Some(Tok::Ident(s)) if s.eq_ignore_ascii_case("in") => "in",
            _ => {
                self.depth -= 1;
                return Ok(left);
            }
        };
        self.pos += 1;
        let result = if op == "in" {
            self.set_membership(&left)?
        } else {
            let right = self.additive()?;
            Value::Bool(compare(&left, op, &right))
        };
        self.depth -= 1;
        Ok(result)
    }

    fn set_membership(&mut self, left: &Value) -> Result<Value, String> {
        self.expect_sym("[")?;
        let mut found = false;
        if !self.eat_sym("]") {
            loop {
                let low = self.additive()?;
                if self.eat_sym("..") {
                    let high = self.additive()?;
                    found |= compare(left, ">=", &low) && compare(left, "<=", &high);
                } else {
                    found |= compare(left, "=", &low);
                }
                if self.eat_sym("]") {
                    break;
                }
                self.expect_sym(",")?;
            }
        }
        Ok(Value::Bool(found))
    }

    fn additive(&mut self) -> Result<Value, String> {
        let mut left = self.multiplicative()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Sym("+")) => "+",
                Some(Tok::Sym("-")) => "-",
                t if is_word(t, "or") => "or",
                t if is_word(t, "xor") => "xor",
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.multiplicative()?;
            left = binary(&left, op, &right)?;
        }
    }

    fn multiplicative(&mut self) -> Result<Value, String> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Sym("*")) => "*",
                Some(Tok::Sym("/")) => "/",
                t if is_word(t, "and") => "and",
                t if is_word(t, "div") => "div",
                t if is_word(t, "mod") => "mod",
                t if is_word(t, "shl") => "shl",
                t if is_word(t, "shr") => "shr",
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.unary()?;
            left = binary(&left, op, &right)?;
        }
    }

    fn unary(&mut self) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("expression nested too deeply".into());
        }
        let result = if is_word(self.peek(), "not") {
            self.pos += 1;
            match self.unary()? {
                Value::Int(v) => Value::Int(!v),
                other => Value::Bool(!other.truthy()),
            }
        } else if self.eat_sym("-") {
            match self.unary()? {
                Value::Int(v) => Value::Int(v.wrapping_neg()),
                Value::Real(v) => Value::Real(-v),
                Value::Unknown => Value::Unknown,
                _ => return Err("`-` needs a number".into()),
            }
        } else if self.eat_sym("+") {
            self.unary()?
        } else {
            self.primary()?
        };
        self.depth -= 1;
        Ok(result)
    }

    fn primary(&mut self) -> Result<Value, String> {
        let Some(tok) = self.tokens.get(self.pos).cloned() else {
            return Err("expected an operand at the end of the expression".into());
        };
        self.pos += 1;
        match tok {
            Tok::Int(v) => Ok(Value::Int(v)),
            Tok::Real(v) => Ok(Value::Real(v)),
            Tok::Str(s) => Ok(Value::Str(s)),
            Tok::Sym("(") => {
                let value = self.relational()?;
                self.expect_sym(")")?;
                Ok(value)
            }
            Tok::Sym(s) => Err(format!("expected an operand, found `{s}`")),
            Tok::Ident(name) => self.identifier(name),
        }
    }

    fn identifier(&mut self, name: &str) -> Result<Value, String> {
        let lower = name.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "and" | "or" | "xor" | "div" | "mod" | "shl" | "shr" | "in" | "not"
        ) {
            return Err(format!("expected an operand, found `{name}`"));
        }
        if lower == "true" {
            return Ok(Value::Bool(true));
        }
        if lower == "false" {
            return Ok(Value::Bool(false));
        }
        if !self.eat_sym("(") {
            return Ok(self.env.constant(name));
        }
        match lower.as_str() {
            "defined" | "declared" => {
                let arg = match self.tokens.get(self.pos) {
                    Some(Tok::Ident(arg)) => *arg,
                    Some(tok) => return Err(format!("expected a name, found {}", describe(tok))),
                    None => return Err(format!("expected a name after `{name}(`")),
                };
                self.pos += 1;
                self.expect_sym(")")?;
                Ok(Value::Bool(if lower == "defined" {
                    self.env.defined(arg)
                } else {
                    self.env.declared(arg)
                }))
            }
            "sizeof" => {
                let value = match self.tokens.get(self.pos) {
                    Some(Tok::Ident(arg))
                        if matches!(self.tokens.get(self.pos + 1), Some(Tok::Sym(")"))) =>
                    {
                        let arg = *arg;
                        self.pos += 1;
                        self.env.size_of(arg).map_or(Value::Unknown, Value::Int)
                    }
                    _ => {
                        self.relational()?;
                        Value::Unknown
                    }
                };
                self.expect_sym(")")?;
                Ok(value)
            }
            "high" | "low" => {
                let value = match self.tokens.get(self.pos) {
                    Some(Tok::Ident(arg))
                        if matches!(self.tokens.get(self.pos + 1), Some(Tok::Sym(")"))) =>
                    {
                        let arg = *arg;
                        self.pos += 1;
                        integer_bound(self.env, arg, lower == "high")
                    }
                    _ => {
                        self.relational()?;
                        Value::Unknown
                    }
                };
                self.expect_sym(")")?;
                Ok(value)
            }
            _ => {
                // Ord, High, Low, Trunc, option(...) and friends: arguments are checked for
                // syntax, the value is unknown except for the few below.
                let mut args = Vec::new();
                if !self.eat_sym(")") {
                    loop {
                        args.push(self.relational()?);
                        if self.eat_sym(")") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                Ok(match (lower.as_str(), args.as_slice()) {
                    ("ord", [Value::Bool(b)]) => Value::Int(i64::from(*b)),
                    ("ord", [Value::Int(v)]) => Value::Int(*v),
                    ("ord", [Value::Str(s)]) if s.chars().count() == 1 => {
                        Value::Int(s.chars().next().map_or(0, |c| i64::from(u32::from(c))))
                    }
                    ("trunc" | "round", [Value::Real(v)]) if v.is_finite() => Value::Int(*v as i64),
                    ("trunc" | "round", [Value::Int(v)]) => Value::Int(*v),
                    _ => Value::Unknown,
                })
            }
        }
    }
}

/// `High(T)`/`Low(T)` of an integer or character type, from its size on the target.
fn integer_bound(env: &mut dyn Env, type_name: &str, high: bool) -> Value {
    let lower = type_name
        .rsplit('.')
        .next()
        .unwrap_or(type_name)
        .to_ascii_lowercase();
    let signed = matches!(
        lower.as_str(),
        "shortint"
            | "smallint"
            | "integer"
            | "longint"
            | "int64"
            | "nativeint"
            | "int8"
            | "int16"
            | "int32"
            | "fixedint"
    );
    let unsigned = matches!(
        lower.as_str(),
        "byte"
            | "word"
            | "cardinal"
            | "longword"
            | "uint64"
            | "nativeuint"
            | "uint8"
            | "uint16"
            | "uint32"
            | "fixeduint"
            | "char"
            | "ansichar"
            | "widechar"
    );
    let Some(size) = env.size_of(&lower).filter(|s| (1..=8).contains(s)) else {
        return Value::Unknown;
    };
    let bits = (size * 8) as u32;
    match (signed, unsigned, high) {
        (true, _, true) => Value::Int(i64::MAX >> (64 - bits)),
        (true, _, false) => Value::Int(i64::MIN >> (64 - bits)),
        (_, true, true) => Value::Int((u64::MAX >> (64 - bits)) as i64),
        (_, true, false) => Value::Int(0),
        _ => Value::Unknown,
    }
}

fn compare(left: &Value, op: &str, right: &Value) -> bool {
    use std::cmp::Ordering;
    let ordering = match (left, right) {
        (Value::Str(a), Value::Str(b)) => Some(a.cmp(b)),
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
        (a, b) => match (a.number(), b.number()) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    };
    match ordering {
        None => op == "<>",
        Some(o) => match op {
            "=" => o == Ordering::Equal,
            "<>" => o != Ordering::Equal,
            "<" => o == Ordering::Less,
            ">" => o == Ordering::Greater,
            "<=" => o != Ordering::Greater,
            _ => o != Ordering::Less,
        },
    }
}

fn binary(left: &Value, op: &str, right: &Value) -> Result<Value, String> {
    let ints = match (left, right) {
        (Value::Int(_) | Value::Unknown, Value::Int(_) | Value::Unknown)
            if !(matches!(left, Value::Unknown) && matches!(right, Value::Unknown)) =>
        {
            left.int().zip(right.int())
        }
        _ => None,
    };
    match op {
        "and" | "or" | "xor" => {
            if let Some((a, b)) = ints {
                return Ok(Value::Int(match op {
                    "and" => a & b,
                    "or" => a | b,
                    _ => a ^ b,
                }));
            }
            let (a, b) = (left.truthy(), right.truthy());
            Ok(Value::Bool(match op {
                "and" => a && b,
                "or" => a || b,
                _ => a ^ b,
            }))
        }
        "+" => match (left, right) {
            (Value::Str(a), Value::Str(b)) => Ok(Value::Str(format!("{a}{b}"))),
            _ => arithmetic(left, op, right, ints),
        },
        _ => arithmetic(left, op, right, ints),
    }
}

fn arithmetic(
    left: &Value,
    op: &str,
    right: &Value,
    ints: Option<(i64, i64)>,
) -> Result<Value, String> {
    if let Some((a, b)) = ints {
        return Ok(Value::Int(match op {
            "+" => a.wrapping_add(b),
            "-" => a.wrapping_sub(b),
            "*" => a.wrapping_mul(b),
            "div" => a.checked_div(b).ok_or("division by zero")?,
            "mod" => a.checked_rem(b).ok_or("division by zero")?,
            "shl" => a.wrapping_shl((b & 63) as u32),
            "shr" => ((a as u64).wrapping_shr((b & 63) as u32)) as i64,
            _ => return Ok(Value::Real(a as f64 / b as f64)),
        }));
    }
    if matches!((left, right), (Value::Unknown, Value::Unknown)) {
        return Ok(Value::Unknown);
    }
    let (Some(a), Some(b)) = (left.number(), right.number()) else {
        return Err(format!("`{op}` needs numbers"));
    };
    Ok(Value::Real(match op {
        "+" => a + b,
        "-" => a - b,
        "*" => a * b,
        "/" => a / b,
        _ => return Err(format!("`{op}` needs integers")),
    }))
}
