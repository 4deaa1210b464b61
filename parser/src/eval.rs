//! Evaluation of constant expressions (attribute arguments, constants, default values).
//!
//! Covers what attribute arguments and simple constants use: string literals and their `+`
//! concatenations, character codes, integer and real arithmetic, `not`/`and`/`or`/`xor`/`shl`/
//! `shr`/`div`/`mod`, comparisons, `True`/`False`, references to other constants of the unit and
//! a few intrinsics (`Chr`, `Ord`, `Length`, `Succ`, `Pred`, `Abs`). Anything else (`SizeOf`,
//! typed constants, set constructors) evaluates to `None`.

use crate::ast::{ConstDecl, ConstValue, Expr, ExprKind, Unit};
use std::collections::HashMap;

/// Named constants visible to an expression, looked up case-insensitively.
#[derive(Debug, Default, Clone)]
pub struct ConstEnv<'a> {
    consts: HashMap<String, &'a Expr>,
}

/// How deep constant references may chain (guards against cycles).
const MAX_DEPTH: u32 = 64;

impl<'a> ConstEnv<'a> {
    /// An empty environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// All constants of `unit` (unit-level and nested in types; untyped and typed).
    pub fn from_unit(unit: &'a Unit) -> Self {
        let mut env = Self::new();
        for c in unit.constants() {
            env.insert(c);
        }
        env
    }

    /// Adds a constant (a later one with the same name wins).
    pub fn insert(&mut self, decl: &'a ConstDecl) {
        self.consts
            .insert(decl.name.to_ascii_lowercase(), &decl.value);
    }

    /// Evaluates `expr`; `None` when it is not a constant this evaluator understands.
    pub fn eval(&self, expr: &Expr) -> Option<ConstValue> {
        self.eval_depth(expr, 0)
    }

    fn lookup(&self, name: &str) -> Option<&'a Expr> {
        let lower = name.to_ascii_lowercase();
        self.consts.get(&lower).copied().or_else(|| {
            // `UnitName.Const` or `TType.Const`
            lower
                .rsplit_once('.')
                .and_then(|(_, last)| self.consts.get(last).copied())
        })
    }

    fn eval_depth(&self, expr: &Expr, depth: u32) -> Option<ConstValue> {
        if depth > MAX_DEPTH {
            return None;
        }
        let d = depth + 1;
        match &expr.kind {
            ExprKind::Str { value } => Some(ConstValue::Str(value.clone())),
            ExprKind::Int { value } => Some(ConstValue::Int(*value)),
            ExprKind::Real { value } => Some(ConstValue::Real(*value)),
            ExprKind::Ident { name } => {
                if name.eq_ignore_ascii_case("true") {
                    return Some(ConstValue::Bool(true));
                }
                if name.eq_ignore_ascii_case("false") {
                    return Some(ConstValue::Bool(false));
                }
                match name.to_ascii_lowercase().as_str() {
                    "slinebreak" if self.lookup(name).is_none() => {
                        return Some(ConstValue::Str("\r\n".to_string()))
                    }
                    "maxint" if self.lookup(name).is_none() => {
                        return Some(ConstValue::Int(i32::MAX as i128))
                    }
                    _ => {}
                }
                self.eval_depth(self.lookup(name)?, d)
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval_depth(operand, d)?;
                match (op.as_str(), v) {
                    ("-", ConstValue::Int(i)) => i.checked_neg().map(ConstValue::Int),
                    ("-", ConstValue::Real(r)) => Some(ConstValue::Real(-r)),
                    ("+", v @ (ConstValue::Int(_) | ConstValue::Real(_))) => Some(v),
                    ("not", ConstValue::Bool(b)) => Some(ConstValue::Bool(!b)),
                    ("not", ConstValue::Int(i)) => Some(ConstValue::Int(!i)),
                    _ => None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.eval_depth(lhs, d)?;
                let r = self.eval_depth(rhs, d)?;
                binary(op, l, r)
            }
            ExprKind::Call { callee, args } => {
                let ExprKind::Ident { name } = &callee.kind else {
                    return None;
                };
                let [arg] = args.as_slice() else {
                    return None;
                };
                let v = self.eval_depth(arg, d)?;
                match (name.to_ascii_lowercase().as_str(), v) {
                    ("chr" | "char" | "widechar" | "ansichar", ConstValue::Int(i)) => {
                        u32::try_from(i)
                            .ok()
                            .and_then(char::from_u32)
                            .map(|c| ConstValue::Str(c.to_string()))
                    }
                    ("ord", ConstValue::Str(s)) if s.chars().count() == 1 => {
                        s.chars().next().map(|c| ConstValue::Int(c as i128))
                    }
                    ("ord", ConstValue::Bool(b)) => Some(ConstValue::Int(b as i128)),
                    ("ord" | "integer" | "cardinal" | "int64" | "longint", ConstValue::Int(i)) => {
                        Some(ConstValue::Int(i))
                    }
                    ("length", ConstValue::Str(s)) => {
                        Some(ConstValue::Int(s.chars().count() as i128))
                    }
                    ("succ", ConstValue::Int(i)) => i.checked_add(1).map(ConstValue::Int),
                    ("pred", ConstValue::Int(i)) => i.checked_sub(1).map(ConstValue::Int),
                    ("abs", ConstValue::Int(i)) => i.checked_abs().map(ConstValue::Int),
                    ("abs", ConstValue::Real(r)) => Some(ConstValue::Real(r.abs())),
                    ("string" | "unicodestring" | "ansistring", v @ ConstValue::Str(_)) => Some(v),
                    _ => None,
                }
            }
            ExprKind::Set { .. } | ExprKind::Other => None,
        }
    }
}

/// Evaluates `expr` with the constants of `unit`.
pub fn eval(expr: &Expr, unit: &Unit) -> Option<ConstValue> {
    ConstEnv::from_unit(unit).eval(expr)
}

fn as_real(v: &ConstValue) -> Option<f64> {
    match v {
        ConstValue::Int(i) => Some(*i as f64),
        ConstValue::Real(r) => Some(*r),
        _ => None,
    }
}

fn binary(op: &str, l: ConstValue, r: ConstValue) -> Option<ConstValue> {
    use ConstValue::*;
    match (op, &l, &r) {
        ("+", Str(a), Str(b)) => Some(Str(format!("{a}{b}"))),
        ("+", Int(a), Int(b)) => a.checked_add(*b).map(Int),
        ("-", Int(a), Int(b)) => a.checked_sub(*b).map(Int),
        ("*", Int(a), Int(b)) => a.checked_mul(*b).map(Int),
        ("div", Int(a), Int(b)) => a.checked_div(*b).map(Int),
        ("mod", Int(a), Int(b)) => a.checked_rem(*b).map(Int),
        ("and", Int(a), Int(b)) => Some(Int(a & b)),
        ("or", Int(a), Int(b)) => Some(Int(a | b)),
        ("xor", Int(a), Int(b)) => Some(Int(a ^ b)),
        ("shl", Int(a), Int(b)) => u32::try_from(*b)
            .ok()
            .filter(|&s| s < 64)
            .map(|s| Int(a << s)),
        ("shr", Int(a), Int(b)) => u32::try_from(*b)
            .ok()
            .filter(|&s| s < 128)
            .map(|s| Int(a >> s)),
        ("and", Bool(a), Bool(b)) => Some(Bool(*a && *b)),
        ("or", Bool(a), Bool(b)) => Some(Bool(*a || *b)),
        ("xor", Bool(a), Bool(b)) => Some(Bool(a != b)),
        ("=", a, b) => Some(Bool(a == b)),
        ("<>", a, b) => Some(Bool(a != b)),
        ("<" | ">" | "<=" | ">=", Str(a), Str(b)) => Some(Bool(compare(op, a.cmp(b)))),
        ("<" | ">" | "<=" | ">=", a, b) => {
            let (a, b) = (as_real(a)?, as_real(b)?);
            Some(Bool(compare(op, a.partial_cmp(&b)?)))
        }
        ("+" | "-" | "*" | "/", a, b) => {
            let (a, b) = (as_real(a)?, as_real(b)?);
            let v = match op {
                "+" => a + b,
                "-" => a - b,
                "*" => a * b,
                _ => a / b,
            };
            v.is_finite().then_some(Real(v))
        }
        _ => None,
    }
}

fn compare(op: &str, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        "<" => ord == Less,
        ">" => ord == Greater,
        "<=" => ord != Greater,
        _ => ord != Less,
    }
}
