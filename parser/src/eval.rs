//! Evaluation of constant expressions (attribute arguments, constants, default values).
//!
//! Covers what attribute arguments and simple constants use: string literals and their `+`
//! concatenations, character codes, integer and real arithmetic, `not`/`and`/`or`/`xor`/`shl`/
//! `shr`/`div`/`mod`, comparisons, `True`/`False`, references to other constants and a few
//! intrinsics (`Chr`, `Ord`, `Length`, `Succ`, `Pred`, `Abs`). Anything else (`SizeOf`, typed
//! constants, set constructors) evaluates to `None`.
//!
//! Where a named constant is found is up to a [`ConstLookup`]: [`ConstEnv`] holds the constants
//! of one unit; a caller that sees several units implements the trait itself and evaluates with
//! [`eval_with`].

use crate::ast::{ConstDecl, ConstValue, Expr, ExprKind, Text, Unit};
use std::collections::HashMap;

/// Where an evaluation finds the constants an expression refers to.
///
/// The [`Scope`](ConstLookup::Scope) says where a name is looked up from (for instance the unit
/// an expression is written in); a lookup returns it anew for the constant it found, so that
/// the names in that constant's value are looked up from where the constant was declared.
pub trait ConstLookup {
    /// Where a lookup starts from; `()` when there is only one place to look.
    type Scope: Copy;

    /// The value expression of the constant `name` (as written, possibly dotted such as
    /// `Unit.Const`) seen from `scope`, with the scope that value is to be evaluated in; `None`
    /// when `name` is not a known constant.
    fn lookup(&self, name: &str, scope: Self::Scope) -> Option<(&Expr, Self::Scope)>;
}

/// Named constants visible to an expression, looked up case-insensitively.
#[derive(Debug, Default, Clone)]
pub struct ConstEnv<'a> {
    consts: HashMap<String, &'a Expr>,
}

/// How deep evaluation may recurse, through operands and constant references (guards against
/// reference cycles).
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
            .insert(decl.name.as_str().to_ascii_lowercase(), &decl.value);
    }

    /// Evaluates `expr`; `None` when it is not a constant this evaluator understands.
    pub fn eval(&self, expr: &Expr) -> Option<ConstValue> {
        eval_with(self, expr, ())
    }

    fn find(&self, name: &str) -> Option<&'a Expr> {
        let lower = name.to_ascii_lowercase();
        self.consts.get(&lower).copied().or_else(|| {
            // `UnitName.Const` or `TType.Const`
            lower
                .rsplit_once('.')
                .and_then(|(_, last)| self.consts.get(last).copied())
        })
    }
}

impl ConstLookup for ConstEnv<'_> {
    type Scope = ();

    /// The constant named `name`, or by the last part of a dotted name.
    fn lookup(&self, name: &str, _scope: ()) -> Option<(&Expr, ())> {
        self.find(name).map(|value| (value, ()))
    }
}

/// Evaluates `expr` with the constants of `unit`.
pub fn eval(expr: &Expr, unit: &Unit) -> Option<ConstValue> {
    ConstEnv::from_unit(unit).eval(expr)
}

/// Evaluates `expr`, written in `scope`, finding the constants it refers to through `consts`;
/// `None` when it is not a constant this evaluator understands (or refers to itself).
pub fn eval_with<L: ConstLookup + ?Sized>(
    consts: &L,
    expr: &Expr,
    scope: L::Scope,
) -> Option<ConstValue> {
    eval_depth(consts, expr, scope, 0)
}

fn eval_depth<L: ConstLookup + ?Sized>(
    consts: &L,
    expr: &Expr,
    scope: L::Scope,
    depth: u32,
) -> Option<ConstValue> {
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
            match consts.lookup(name, scope) {
                Some((value, home)) => eval_depth(consts, value, home, d),
                // System constants, unless a unit declares its own.
                None => match name.to_ascii_lowercase().as_str() {
                    "slinebreak" => Some(ConstValue::Str(Text::const_new("\r\n"))),
                    "maxint" => Some(ConstValue::Int(i32::MAX as i128)),
                    _ => None,
                },
            }
        }
        ExprKind::Unary { op, operand } => {
            let v = eval_depth(consts, operand, scope, d)?;
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
            let l = eval_depth(consts, lhs, scope, d)?;
            let r = eval_depth(consts, rhs, scope, d)?;
            binary(op, l, r)
        }
        ExprKind::Call { callee, args } => {
            let ExprKind::Ident { name } = &callee.kind else {
                return None;
            };
            let [arg] = args.as_slice() else {
                return None;
            };
            let v = eval_depth(consts, arg, scope, d)?;
            intrinsic(name, v)
        }
        ExprKind::Set { .. } | ExprKind::Other => None,
    }
}

/// A one-argument intrinsic or cast applied to a constant.
fn intrinsic(name: &str, v: ConstValue) -> Option<ConstValue> {
    match (name.to_ascii_lowercase().as_str(), v) {
        ("chr" | "char" | "widechar" | "ansichar", ConstValue::Int(i)) => u32::try_from(i)
            .ok()
            .and_then(char::from_u32)
            .map(|c| ConstValue::Str(Text::from(c.encode_utf8(&mut [0; 4]) as &str))),
        ("ord", ConstValue::Str(s)) if s.chars().count() == 1 => {
            s.chars().next().map(|c| ConstValue::Int(c as i128))
        }
        ("ord", ConstValue::Bool(b)) => Some(ConstValue::Int(b as i128)),
        ("ord" | "integer" | "cardinal" | "int64" | "longint", ConstValue::Int(i)) => {
            Some(ConstValue::Int(i))
        }
        ("length", ConstValue::Str(s)) => Some(ConstValue::Int(s.chars().count() as i128)),
        ("succ", ConstValue::Int(i)) => i.checked_add(1).map(ConstValue::Int),
        ("pred", ConstValue::Int(i)) => i.checked_sub(1).map(ConstValue::Int),
        ("abs", ConstValue::Int(i)) => i.checked_abs().map(ConstValue::Int),
        ("abs", ConstValue::Real(r)) => Some(ConstValue::Real(r.abs())),
        ("string" | "unicodestring" | "ansistring", v @ ConstValue::Str(_)) => Some(v),
        _ => None,
    }
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
        ("+", Str(a), Str(b)) => Some(Str(compact_str::format_compact!("{a}{b}"))),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_text, ParseOptions, SourceDb};
    use std::path::Path;

    /// Two units' constants, the scope being the index of a unit; a name missing in one unit is
    /// looked up in the other.
    struct Units<'a>([ConstEnv<'a>; 2]);

    impl ConstLookup for Units<'_> {
        type Scope = usize;

        fn lookup(&self, name: &str, scope: usize) -> Option<(&Expr, usize)> {
            [scope, 1 - scope]
                .into_iter()
                .find_map(|s| self.0[s].find(name).map(|value| (value, s)))
        }
    }

    fn parse(db: &SourceDb, name: &str, consts: &str) -> Unit {
        let text = format!("unit {name};\ninterface\nconst\n{consts}\nimplementation\nend.\n");
        let result = parse_text(db, Path::new(name), &text, &ParseOptions::default());
        assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);
        result.unit.expect("the unit parses")
    }

    fn value<'a>(unit: &'a Unit, name: &str) -> &'a Expr {
        let decl = unit.constants().into_iter().find(|c| c.name == name);
        &decl.unwrap_or_else(|| panic!("{name} is declared")).value
    }

    #[test]
    fn a_lookup_evaluates_a_constant_where_it_was_found() {
        let db = SourceDb::new();
        let u0 = parse(&db, "U0", "  A = 10;\n  C = B * 2;\n  X = Y;\n  Y = X;");
        let u1 = parse(&db, "U1", "  A = 1;\n  B = A + 1;\n  S = 'x' + sLineBreak;");
        let units = Units([ConstEnv::from_unit(&u0), ConstEnv::from_unit(&u1)]);
        assert_eq!(
            eval_with(&units, value(&u0, "C"), 0),
            Some(ConstValue::Int(4))
        );
        assert_eq!(
            eval_with(&units, value(&u1, "S"), 0),
            Some(ConstValue::Str("x\r\n".into()))
        );
        assert_eq!(eval_with(&units, value(&u0, "X"), 0), None);
        // The single-unit environment evaluates the same way.
        assert_eq!(units.0[1].eval(value(&u1, "B")), Some(ConstValue::Int(2)));
        assert_eq!(units.0[0].eval(value(&u0, "X")), None);
    }
}
