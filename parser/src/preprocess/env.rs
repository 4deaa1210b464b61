//! The environment of `{$IF}` expressions: defined symbols, the target's constants, the names
//! the unit and its used units declare.

use super::include::folder_key;
use super::*;

/// Names (lower case) a used unit's interface declares, with simple constants' values.
pub(super) type UnitNames = Rc<HashMap<String, Option<Value>>>;

impl Pp<'_> {
    /// The names the interface of used unit `unit` declares, when its file is found: the
    /// unit's folder, the include folders and nearby folders are searched as for `{$I}`.
    fn used_unit_names(&mut self, unit: &str) -> Option<UnitNames> {
        let key = unit.to_ascii_lowercase();
        if let Some(found) = self.used_unit_names.get(&key) {
            return found.clone();
        }
        let main = self.db.get(self.main).path.clone();
        let search = include::Search {
            including: &main,
            main: &main,
            include_dirs: &self.options.include_dirs,
            db: self.db,
        };
        let file_name = format!("{unit}.pas");
        let memo_key = format!("unit|{}|{}", folder_key(&main), key);
        let names = self
            .db
            .memo_path(&memo_key, || include::resolve(&search, &file_name))
            .and_then(|path| {
                let codepage = self.options.codepage;
                self.db
                    .load_once(&path, || crate::source::read(&path, codepage))
                    .ok()
            })
            .map(|id| Rc::new(DeclScan::interface_names(self.db.get(id).text.as_bytes())));
        self.used_unit_names.insert(key, names.clone());
        names
    }
}

/// The environment of `{$IF}` expressions, over the preprocessor's state.
pub(super) struct EvalEnv<'p, 'a> {
    pub(super) pp: &'p mut Pp<'a>,
}

impl EvalEnv<'_, '_> {
    /// The target's constant `name`; FireMonkey's only once an `FMX.*` unit is used.
    fn target_constant(&mut self, name: &str) -> Option<ConstValue> {
        let value = self.pp.setup.target.constant(name)?;
        if name.eq_ignore_ascii_case("FireMonkeyVersion") {
            let decls = self.pp.decls.get_or_insert_with(DeclScan::new);
            if !decls.uses_fmx(&self.pp.out) {
                return None;
            }
        }
        Some(value)
    }

    /// Looks `name` up among the declarations of the active text so far, then in the
    /// interfaces of the units it uses (the last used unit first, as in Delphi's scope).
    fn scanned(&mut self, name: &str) -> Option<Option<Value>> {
        let lower = name.to_ascii_lowercase();
        let decls = self.pp.decls.get_or_insert_with(DeclScan::new);
        if let Some(found) = decls.lookup(&self.pp.out, &lower) {
            return Some(found.clone());
        }
        let units = decls.used_units(&self.pp.out).to_vec();
        units.iter().rev().find_map(|unit| {
            self.pp
                .used_unit_names(unit)
                .and_then(|names| names.get(&lower).cloned())
        })
    }
}

fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

impl expr::Env for EvalEnv<'_, '_> {
    fn defined(&mut self, name: &str) -> bool {
        self.pp.is_defined(name)
    }

    fn declared(&mut self, name: &str) -> bool {
        let name = last_part(name);
        self.target_constant(name).is_some()
            || target::WELL_KNOWN_DECLARED
                .iter()
                .any(|known| known.eq_ignore_ascii_case(name))
            || self.scanned(name).is_some()
    }

    fn constant(&mut self, name: &str) -> Value {
        let name = last_part(name);
        if let Some(value) = self.target_constant(name) {
            return match value {
                ConstValue::Int(v) => Value::Int(v),
                ConstValue::Real(v) => Value::Real(v),
                ConstValue::Bool(v) => Value::Bool(v),
            };
        }
        self.scanned(name).flatten().unwrap_or(Value::Unknown)
    }

    fn size_of(&mut self, name: &str) -> Option<i64> {
        self.pp.setup.target.size_of(last_part(name)).map(i64::from)
    }
}
