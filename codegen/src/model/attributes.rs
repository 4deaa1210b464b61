//! The `Mcp*` attributes of routines and classes: which are known, their string arguments, the
//! MCP annotations and `[McpNil]` names they give.

use super::Builder;
use delphi_mcp_manifest::ToolAnnotations;
use delphi_mcp_parser::ast::{Attribute, ConstValue, Routine};
use delphi_mcp_parser::{Diagnostic, Span};
/// The attribute's name without unit prefix and `Attribute` suffix, lower case.
pub(super) fn attr_key(attr: &Attribute) -> String {
    let last = attr.name.rsplit('.').next().unwrap_or(&attr.name);
    let lower = last.to_ascii_lowercase();
    match lower.strip_suffix("attribute") {
        Some(stem) if !stem.is_empty() => stem.to_string(),
        _ => lower,
    }
}

const KNOWN_ATTRS: &[&str] = &[
    "mcptool",
    "mcpinstance",
    "mcpnil",
    "mcptitle",
    "mcpreadonly",
    "mcpdestructive",
    "mcpidempotent",
    "mcpopenworld",
    "mcpname",
    "mcpnaming",
    "mcpinputschema",
    "mcpschemafile",
    "mcpresource",
    "mcpresourcetemplate",
    "mcpprompt",
    "mcpcompletion",
];

impl<'a> Builder<'a> {
    pub(super) fn check_unknown_attrs(&mut self, attrs: &[Attribute]) {
        for attr in attrs {
            let key = attr_key(attr);
            if key.starts_with("mcp") && !KNOWN_ATTRS.contains(&key.as_str()) {
                self.diagnostics.push(
                    Diagnostic::error(format!("unknown attribute `{}`", attr.name), Some(attr.span))
                        .with_help("known: McpTool, McpInstance, McpNil, McpTitle, McpReadOnly, McpDestructive, McpIdempotent, McpOpenWorld, McpName, McpNaming, McpInputSchema, McpSchemaFile, McpResource, McpResourceTemplate, McpPrompt, McpCompletion"),
                );
            }
        }
    }

    /// Positional string arguments of an attribute (`min..=max` of them).
    pub(super) fn string_args(
        &mut self,
        attr: &Attribute,
        unit: usize,
        min: usize,
        max: usize,
    ) -> Option<Vec<String>> {
        if attr.args.len() < min || attr.args.len() > max {
            self.diagnostics.push(Diagnostic::error(
                format!(
                    "[{}] takes {} string argument{}, not {}",
                    attr.name,
                    if min == max {
                        min.to_string()
                    } else {
                        format!("{min} to {max}")
                    },
                    if max == 1 { "" } else { "s" },
                    attr.args.len()
                ),
                Some(attr.span),
            ));
            return None;
        }
        let mut out = Vec::new();
        for arg in &attr.args {
            if arg.name.is_some() {
                self.diagnostics.push(
                    Diagnostic::error(
                        format!("[{}] takes positional arguments only", attr.name),
                        Some(arg.value.span),
                    )
                    .with_help("Delphi attributes are constructed from positional arguments"),
                );
                return None;
            }
            match self.env.eval(&arg.value, unit) {
                Some(ConstValue::Str(s)) => out.push(s.into()),
                _ => {
                    self.diagnostics.push(Diagnostic::error(
                        format!(
                            "`{}` is not a string constant (an argument of [{}])",
                            arg.value.text, attr.name
                        ),
                        Some(arg.value.span),
                    ));
                    return None;
                }
            }
        }
        Some(out)
    }

    pub(super) fn annotations(
        &mut self,
        unit: usize,
        routine: &Routine,
    ) -> (Option<String>, Option<ToolAnnotations>) {
        let mut ann = ToolAnnotations::default();
        let mut any = false;
        let mut title = None;
        for attr in &routine.attributes {
            let key = attr_key(attr);
            let slot = match key.as_str() {
                "mcptitle" => {
                    if let Some(args) = self.string_args(attr, unit, 1, 1) {
                        title = args.into_iter().next();
                        ann.title = title.clone();
                        any = true;
                    }
                    continue;
                }
                "mcpreadonly" => &mut ann.read_only_hint,
                "mcpdestructive" => &mut ann.destructive_hint,
                "mcpidempotent" => &mut ann.idempotent_hint,
                "mcpopenworld" => &mut ann.open_world_hint,
                _ => continue,
            };
            let value = match attr.args.as_slice() {
                [] => Some(true),
                [arg] if arg.name.is_none() => match self.env.eval(&arg.value, unit) {
                    Some(ConstValue::Bool(b)) => Some(b),
                    _ => None,
                },
                _ => None,
            };
            match value {
                Some(v) => {
                    *slot = Some(v);
                    any = true;
                }
                None => self.diagnostics.push(Diagnostic::error(
                    format!("[{}] takes no argument or one Boolean constant", attr.name),
                    Some(attr.span),
                )),
            }
        }
        (title, any.then_some(ann))
    }

    /// The naming policy of `[McpNaming('camelCase')]` among `attrs`, if there is one.
    pub(super) fn naming_attr(
        &mut self,
        attrs: &[Attribute],
        unit: usize,
    ) -> Option<delphi_mcp_manifest::naming::ArgumentNaming> {
        use delphi_mcp_manifest::naming::ArgumentNaming;
        let attr = find_attr(attrs, "mcpnaming")?;
        let name = self.string_args(attr, unit, 1, 1)?.into_iter().next()?;
        let policy = ArgumentNaming::parse(&name);
        if policy.is_none() {
            let known: Vec<&str> = ArgumentNaming::NAMES.iter().map(|(n, _)| *n).collect();
            self.diagnostics.push(
                Diagnostic::error(format!("unknown naming policy `{name}`"), Some(attr.span))
                    .with_help(format!("known: {}", known.join(", "))),
            );
        }
        policy
    }

    /// The name `[McpName('name')]` among `attrs` gives, if there is one.
    pub(super) fn name_attr(&mut self, attrs: &[Attribute], unit: usize) -> Option<String> {
        let attr = find_attr(attrs, "mcpname")?;
        let name = self.string_args(attr, unit, 1, 1)?.into_iter().next()?;
        if name.is_empty() {
            self.diagnostics.push(Diagnostic::error(
                "[McpName] needs a non-empty name",
                Some(attr.span),
            ));
            return None;
        }
        Some(name)
    }

    /// Parameter names given to `[McpNil('A', 'B')]` on the routine.
    pub(super) fn nil_names(&mut self, unit: usize, routine: &Routine) -> Vec<(String, Span)> {
        let mut names = Vec::new();
        for attr in &routine.attributes {
            if attr_key(attr) == "mcpnil" {
                if let Some(args) = self.string_args(attr, unit, 1, 64) {
                    names.extend(args.into_iter().map(|a| (a, attr.span)));
                }
            }
        }
        names
    }
}

pub(super) fn find_attr<'x>(attrs: &'x [Attribute], key: &str) -> Option<&'x Attribute> {
    attrs.iter().find(|a| attr_key(a) == key)
}
