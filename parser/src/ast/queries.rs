//! Queries over the tree: the routines, constants and type declarations of a unit, the members
//! of a structured type, attribute and directive look-ups.

use super::*;

impl Unit {
    /// Unit-level routines (interface and implementation, in source order; methods excluded).
    pub fn routines(&self) -> impl Iterator<Item = &Routine> {
        self.sections
            .iter()
            .flat_map(|s| s.decls.iter())
            .filter_map(|d| match d {
                Decl::Routine(r) => Some(r),
                _ => None,
            })
    }

    /// Every routine heading outside types: unit-level routines, method implementations and
    /// the routines nested in their bodies (depth first, in source order).
    pub fn all_routines(&self) -> Vec<&Routine> {
        fn walk<'u>(r: &'u Routine, out: &mut Vec<&'u Routine>) {
            out.push(r);
            for inner in &r.nested {
                walk(inner, out);
            }
        }
        let mut out = Vec::new();
        for r in self.routines() {
            walk(r, &mut out);
        }
        out
    }

    /// Every type declaration, nested ones included (depth first, in source order).
    pub fn type_decls(&self) -> Vec<&TypeDecl> {
        let mut out = Vec::new();
        for decl in self.sections.iter().flat_map(|s| s.decls.iter()) {
            if let Decl::Type(section) = decl {
                for t in &section.items {
                    collect_types(t, &mut out);
                }
            }
        }
        out
    }

    /// Every constant: unit-level sections and constants nested in types.
    pub fn constants(&self) -> Vec<&ConstDecl> {
        let mut out = Vec::new();
        for decl in self.sections.iter().flat_map(|s| s.decls.iter()) {
            if let Decl::Const(section) = decl {
                out.extend(section.items.iter());
            }
        }
        for t in self.type_decls() {
            if let TypeDef::Structured(st) = &t.def {
                for m in st.members() {
                    if let Member::Const(section) = m {
                        out.extend(section.items.iter());
                    }
                }
            }
        }
        out
    }

    /// The section of the given kind, if present.
    pub fn section(&self, kind: SectionKind) -> Option<&Section> {
        self.sections.iter().find(|s| s.kind == kind)
    }
}

fn collect_types<'a>(t: &'a TypeDecl, out: &mut Vec<&'a TypeDecl>) {
    out.push(t);
    if let TypeDef::Structured(st) = &t.def {
        for m in st.members() {
            if let Member::Type(section) = m {
                for inner in &section.items {
                    collect_types(inner, out);
                }
            }
        }
    }
}

impl StructuredType {
    /// All members of all visibility sections, in source order.
    pub fn members(&self) -> impl Iterator<Item = &Member> {
        self.sections.iter().flat_map(|s| s.members.iter())
    }

    /// Methods with the visibility of their section.
    pub fn methods(&self) -> impl Iterator<Item = (Visibility, &Routine)> {
        self.sections.iter().flat_map(|s| {
            s.members.iter().filter_map(move |m| match m {
                Member::Method(r) => Some((s.visibility, r)),
                _ => None,
            })
        })
    }

    /// Properties with the visibility of their section.
    pub fn properties(&self) -> impl Iterator<Item = (Visibility, &Property)> {
        self.sections.iter().flat_map(|s| {
            s.members.iter().filter_map(move |m| match m {
                Member::Property(p) => Some((s.visibility, p)),
                _ => None,
            })
        })
    }

    /// Fields (with `is_class`) with the visibility of their section.
    pub fn fields(&self) -> impl Iterator<Item = (Visibility, &VarDecl, bool)> {
        self.sections.iter().flat_map(|s| {
            s.members.iter().filter_map(move |m| match m {
                Member::Field { field, is_class } => Some((s.visibility, field, *is_class)),
                _ => None,
            })
        })
    }
}

impl Routine {
    /// True when a directive with this (lower-case) name is present.
    pub fn has_directive(&self, name: &str) -> bool {
        self.directives.iter().any(|d| d.name == name)
    }
}

impl Attribute {
    /// True when the attribute is `name` or `nameAttribute` (case-insensitive, ignoring a unit
    /// qualifier): `McpTool`, `McpToolAttribute` and `Mcp.McpTool` all match `"McpTool"`.
    pub fn is(&self, name: &str) -> bool {
        let last = self.name.rsplit('.').next().unwrap_or(&self.name);
        last.eq_ignore_ascii_case(name)
            || (last.len() == name.len() + "Attribute".len()
                && last
                    .get(..name.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(name))
                && last
                    .get(name.len()..)
                    .is_some_and(|s| s.eq_ignore_ascii_case("Attribute")))
    }
}
