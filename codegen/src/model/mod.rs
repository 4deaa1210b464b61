//! The tool model: every `[McpTool]` routine and method of the parsed units, with its name,
//! description, parameters (resolved through the type table), result and source location, and
//! every diagnostic about them.

use crate::resolve::{Resolved, TypeEnv};
use crate::types::Target;
use delphi_mcp_manifest::naming::ArgumentNaming;
use delphi_mcp_manifest::{CallKind, ContentShape, SourceLocation, ToolAnnotations, ValueType};
use delphi_mcp_parser::ast::{
    self, Decl, Member, Routine, SectionKind, StructuredKind, TypeDef, Visibility,
};
use delphi_mcp_parser::{Diagnostic, SourceDb, Span};
use std::collections::BTreeMap;

mod attributes;
mod json_handler;
mod roles;
mod tool;

use attributes::find_attr;
use roles::entry_attr;
pub use roles::{template_variables, Role, SUPPORT_PATH, SUPPORT_UNIT};

/// One parsed unit handed to the generator.
#[derive(Debug, Clone, Copy)]
pub struct UnitInput<'a> {
    /// The syntax tree.
    pub unit: &'a ast::Unit,
    /// The path written into the manifest (relative, `/` separators).
    pub path: &'a str,
}

/// All tools (and resources, prompts, completion providers) of a run.
#[derive(Debug, Clone)]
pub struct Model {
    /// The compiler target the units were read for.
    pub target: String,
    /// Names of the units the stubs must use, in input order.
    pub units: Vec<String>,
    /// The entries, sorted by role (tools first, [`Role::rank`]) and name.
    pub tools: Vec<Tool>,
}

/// One entry: a tool, or a resource, resource template, prompt or completion provider (all
/// called through the same kind of stub).
#[derive(Debug, Clone)]
pub struct Tool {
    /// What it serves.
    pub role: Role,
    /// The name (MCP tool or prompt name, resource name, completion provider name).
    pub name: String,
    /// Display title (`[McpTitle]`).
    pub title: Option<String>,
    /// Description (attribute text, else the `<summary>` doc).
    pub description: String,
    /// MCP annotations, when any attribute gave one.
    pub annotations: Option<ToolAnnotations>,
    /// `TCalculationModule.Scale` or `Calc.Add`, for people.
    pub routine: String,
    /// How the routine is reached.
    pub call: CallKind,
    /// The Pascal text of the callee: `Calc.Add`, `Calc.TMath.Twice`, or the method name for
    /// instance tools (called on the resolved object).
    pub callee: String,
    /// The class of the object for instance tools, unit-qualified.
    pub instance_class: Option<String>,
    /// All declared parameters in order (including those that receive nil).
    pub params: Vec<ToolParam>,
    /// The function result, `None` for a procedure.
    pub result: Option<Resolved>,
    /// The result is one of `McpAttributes.pas`'s content records (ABI 3).
    pub content: Option<ContentShape>,
    /// A JSON handler's input schema (`[McpInputSchema]` or `[McpSchemaFile]`).
    pub json_schema: Option<serde_json::Value>,
    /// Where the routine is declared.
    pub source: SourceLocation,
    /// Span of the routine name.
    pub span: Span,
}

/// Options of a model run besides the target.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelOptions {
    /// The naming policy of arguments where no `[McpNaming]` applies (`--naming`).
    pub naming: ArgumentNaming,
}

/// One parameter of a tool.
#[derive(Debug, Clone)]
pub struct ToolParam {
    /// The Pascal name.
    pub name: String,
    /// The JSON key: `[McpName]`, else the Pascal name after the naming policy.
    pub json_name: String,
    /// How the routine receives it (`var` and `out` parameters are also returned).
    pub mode: ast::ParamMode,
    /// The type as written.
    pub delphi_type: String,
    /// The resolved type; `None` for a parameter that always receives nil.
    pub resolved: Option<Resolved>,
    /// The declared default as Pascal text.
    pub default_pascal: Option<String>,
    /// The declared default as JSON, when it is a literal.
    pub default_json: Option<serde_json::Value>,
    /// From the `<param>` doc.
    pub description: Option<String>,
}

impl ToolParam {
    /// True when the parameter is an argument of the schema (and so in the ABI).
    pub fn in_schema(&self) -> bool {
        self.in_abi() && !self.is_context()
    }

    /// True when the parameter takes a slot of the ABI argument array (the arguments and the
    /// call context).
    pub fn in_abi(&self) -> bool {
        self.resolved.is_some() && self.mode != ast::ParamMode::Out
    }

    /// True for the `TMcpContext` parameter.
    pub fn is_context(&self) -> bool {
        self.resolved
            .as_ref()
            .is_some_and(|r| r.value == ValueType::Context)
    }

    /// True for `var` and `out` parameters: the tool returns them beside its result.
    pub fn is_output(&self) -> bool {
        self.resolved.is_some() && matches!(self.mode, ast::ParamMode::Var | ast::ParamMode::Out)
    }
}

/// The result of [`build_model`].
#[derive(Debug)]
pub struct ModelOutcome {
    /// The model (complete only when `diagnostics` has no error).
    pub model: Model,
    /// Errors and warnings, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

struct Builder<'a> {
    db: &'a SourceDb,
    options: ModelOptions,
    inputs: &'a [UnitInput<'a>],
    env: TypeEnv<'a>,
    diagnostics: Vec<Diagnostic>,
    tools: Vec<Tool>,
}

/// A class of a parsed unit, for `[McpInstance]` and inheritance.
struct ClassInfo<'a> {
    unit: usize,
    decl: &'a ast::TypeDecl,
    ancestor: Option<String>,
    instance: Option<(String, String, Span)>,
}

/// Builds the tool model of `inputs` for `target` with the default options, collecting every
/// diagnostic.
pub fn build_model(db: &SourceDb, inputs: &[UnitInput<'_>], target: &Target) -> ModelOutcome {
    build_model_with(db, inputs, target, ModelOptions::default())
}

/// Builds the tool model of `inputs` for `target` with `options`, collecting every diagnostic.
pub fn build_model_with(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    options: ModelOptions,
) -> ModelOutcome {
    // The types of McpAttributes.pas (the call context, the content records) resolve like the
    // user's own, after them.
    let support = delphi_mcp_parser::parse_text(
        db,
        std::path::Path::new(SUPPORT_PATH),
        crate::pascal::support_unit("McpAttributes.pas"),
        &delphi_mcp_parser::ParseOptions::default(),
    );
    let mut units: Vec<&ast::Unit> = inputs.iter().map(|i| i.unit).collect();
    if let Some(unit) = &support.unit {
        units.push(unit);
    }
    let mut builder = Builder {
        db,
        options,
        inputs,
        env: TypeEnv::new(&units, target.clone()).with_naming(options.naming),
        diagnostics: Vec::new(),
        tools: Vec::new(),
    };
    builder.run();
    let mut tools = builder.tools;
    let mut diagnostics = builder.diagnostics;
    check_duplicates(&mut tools, &mut diagnostics);
    tools.sort_by(|a, b| (a.role.rank(), &a.name).cmp(&(b.role.rank(), &b.name)));
    ModelOutcome {
        model: Model {
            target: target.name.clone(),
            units: inputs.iter().map(|i| i.unit.name.to_string()).collect(),
            tools,
        },
        diagnostics,
    }
}

fn check_duplicates(tools: &mut [Tool], diagnostics: &mut Vec<Diagnostic>) {
    let mut first: BTreeMap<(&str, &str), &Tool> = BTreeMap::new();
    for tool in tools.iter() {
        let key = (tool.role.export_prefix(), tool.name.as_str());
        if let Some(previous) = first.get(&key) {
            let noun = tool.role.noun();
            diagnostics.push(
                Diagnostic::error(
                    format!(
                        "two {noun}s are named `{}` ({} and {})",
                        tool.name, previous.routine, tool.routine
                    ),
                    Some(tool.span),
                )
                .with_label(previous.span, format!("first {noun} with this name"))
                .with_help(match tool.role {
                    Role::Tool => "give one of them its own name: [McpTool('other_name')]",
                    _ => "give one of them its own name (the attribute's name argument)",
                }),
            );
        } else {
            first.insert(key, tool);
        }
    }
}

impl<'a> Builder<'a> {
    fn run(&mut self) {
        let inputs = self.inputs;
        let mut classes: Vec<ClassInfo<'a>> = Vec::new();
        for (index, input) in inputs.iter().enumerate() {
            for section in &input.unit.sections {
                for decl in &section.decls {
                    match decl {
                        Decl::Routine(routine) => {
                            if entry_attr(&routine.attributes).is_some() {
                                if section.kind == SectionKind::Interface {
                                    self.routine_tool(index, routine);
                                } else if routine.qualifier.is_none() {
                                    self.diagnostics.push(
                                        Diagnostic::error(
                                            format!(
                                                "tool routine `{}` is not declared in the unit's interface",
                                                routine.name
                                            ),
                                            Some(routine.name_span),
                                        )
                                        .with_help("the generated stubs live in another unit and can only call what the interface declares"),
                                    );
                                }
                            }
                            self.check_unknown_attrs(&routine.attributes);
                        }
                        Decl::Type(ts) => {
                            for td in &ts.items {
                                if let TypeDef::Structured(st) = &td.def {
                                    if section.kind != SectionKind::Interface {
                                        if find_attr(&td.attributes, "mcpinstance").is_some()
                                            || has_tool_member(st)
                                        {
                                            self.diagnostics.push(Diagnostic::error(
                                                format!("class `{}` with tools is not declared in the unit's interface", td.name),
                                                Some(td.name_span),
                                            ));
                                        }
                                        continue;
                                    }
                                    let info = self.class_info(index, td, st);
                                    classes.push(info);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        for ci in 0..classes.len() {
            self.class_tools(&classes, ci);
        }
    }

    fn class_info(
        &mut self,
        unit: usize,
        td: &'a ast::TypeDecl,
        st: &'a ast::StructuredType,
    ) -> ClassInfo<'a> {
        self.check_unknown_attrs(&td.attributes);
        let ancestor = st.ancestors.first().map(|a| match &a.kind {
            ast::TypeRefKind::Named { name, .. } => name.to_string(),
            _ => a.text.to_string(),
        });
        let mut instance = None;
        if let Some(attr) = find_attr(&td.attributes, "mcpinstance") {
            if st.kind != StructuredKind::Class {
                self.diagnostics.push(Diagnostic::error(
                    format!("[McpInstance] needs a class; `{}` is not one", td.name),
                    Some(attr.span),
                ));
            } else if let Some(args) = self.string_args(attr, unit, 1, 2) {
                let resolver = args[0].clone();
                let prefix = args.get(1).cloned().unwrap_or_default();
                if resolver.trim().is_empty() {
                    self.diagnostics.push(
                        Diagnostic::error("[McpInstance] needs a resolver expression", Some(attr.span))
                            .with_help("name a global function or variable that yields the live object: [McpInstance('CurrentModule')]"),
                    );
                } else {
                    instance = Some((resolver, prefix, attr.span));
                }
            }
        }
        ClassInfo {
            unit,
            decl: td,
            ancestor,
            instance,
        }
    }

    fn routine_tool(&mut self, unit: usize, routine: &'a Routine) {
        let unit_name = self.env.unit_name(unit).to_string();
        let routine_label = format!("{unit_name}.{}", routine.name);
        let callee = format!("{unit_name}.{}", routine.name);
        self.make_tool(
            unit,
            routine,
            ToolPlace {
                routine_label,
                callee,
                call: CallKind::Routine,
                instance_class: None,
                prefix: String::new(),
                naming: None,
            },
        );
    }

    fn class_tools(&mut self, classes: &[ClassInfo<'a>], ci: usize) {
        let class = &classes[ci];
        let TypeDef::Structured(st) = &class.decl.def else {
            return;
        };
        let unit_name = self.env.unit_name(class.unit).to_string();
        let class_name = &class.decl.name;
        let class_naming = self.naming_attr(&class.decl.attributes, class.unit);
        for section in &st.sections {
            for member in &section.members {
                let Member::Method(routine) = member else {
                    continue;
                };
                self.check_unknown_attrs(&routine.attributes);
                if entry_attr(&routine.attributes).is_none() {
                    continue;
                }
                if !matches!(
                    section.visibility,
                    Visibility::Default | Visibility::Public | Visibility::Published
                ) {
                    self.diagnostics.push(
                        Diagnostic::error(
                            format!(
                                "tool method `{class_name}.{}` is not public",
                                routine.name
                            ),
                            Some(routine.name_span),
                        )
                        .with_help("the generated stubs live in another unit: move it to the public section"),
                    );
                    continue;
                }
                let is_static = routine.is_class
                    || routine
                        .directives
                        .iter()
                        .any(|d| d.name.eq_ignore_ascii_case("static"));
                if is_static {
                    self.make_tool(
                        class.unit,
                        routine,
                        ToolPlace {
                            routine_label: format!("{class_name}.{}", routine.name),
                            callee: format!("{unit_name}.{class_name}.{}", routine.name),
                            call: CallKind::ClassMethod,
                            instance_class: None,
                            prefix: class
                                .instance
                                .as_ref()
                                .map(|i| i.1.clone())
                                .unwrap_or_default(),
                            naming: class_naming,
                        },
                    );
                    continue;
                }
                if st.kind != StructuredKind::Class {
                    self.diagnostics.push(
                        Diagnostic::error(
                            format!(
                                "tool method `{class_name}.{}` needs an object, but `{class_name}` is not a class",
                                routine.name
                            ),
                            Some(routine.name_span),
                        )
                        .with_help("make it a `class function ... static`"),
                    );
                    continue;
                }
                // Every class with [McpInstance] that is, or descends from, this class exposes it.
                let exposers: Vec<usize> = (0..classes.len())
                    .filter(|&other| {
                        classes[other].instance.is_some() && descends(classes, other, ci)
                    })
                    .collect();
                if exposers.is_empty() {
                    self.diagnostics.push(
                        Diagnostic::error(
                            format!(
                                "no object for tool method `{class_name}.{}`: neither `{class_name}` nor a parsed class descending from it has [McpInstance]",
                                routine.name
                            ),
                            Some(routine.name_span),
                        )
                        .with_help(format!("add [McpInstance('CurrentObject')] to `{class_name}` (a global function or variable that yields the live object), or make the method `class ... static`")),
                    );
                    continue;
                }
                for exposer in exposers {
                    let info = &classes[exposer];
                    let Some((resolver, prefix, _)) = &info.instance else {
                        continue;
                    };
                    let exposer_unit = self.env.unit_name(info.unit).to_string();
                    self.make_tool(
                        class.unit,
                        routine,
                        ToolPlace {
                            routine_label: format!("{}.{}", info.decl.name, routine.name),
                            callee: routine.name.to_string(),
                            call: CallKind::Instance {
                                resolver: resolver.clone(),
                                class: info.decl.name.to_string(),
                            },
                            instance_class: Some(format!("{exposer_unit}.{}", info.decl.name)),
                            prefix: prefix.clone(),
                            naming: class_naming,
                        },
                    );
                }
            }
        }
    }
}

struct ToolPlace {
    routine_label: String,
    callee: String,
    call: CallKind,
    instance_class: Option<String>,
    prefix: String,
    /// `[McpNaming]` of the class declaring the method.
    naming: Option<ArgumentNaming>,
}

fn has_tool_member(st: &ast::StructuredType) -> bool {
    st.sections.iter().any(|s| {
        s.members.iter().any(|m| match m {
            Member::Method(r) => entry_attr(&r.attributes).is_some(),
            _ => false,
        })
    })
}

/// Whether class `child` is, or descends from, class `base` (through parsed classes).
fn descends(classes: &[ClassInfo<'_>], child: usize, base: usize) -> bool {
    let mut current = child;
    for _ in 0..64 {
        if current == base {
            return true;
        }
        let Some(ancestor) = &classes[current].ancestor else {
            return false;
        };
        let last = ancestor.rsplit('.').next().unwrap_or(ancestor);
        match classes
            .iter()
            .position(|c| c.decl.name.eq_ignore_ascii_case(last))
        {
            Some(next) => current = next,
            None => return false,
        }
    }
    false
}
