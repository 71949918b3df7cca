//! Every key a chapter names and every verdict it compares against is
//! checked against the views' JSON schema before the chapter renders, in
//! every branch, taken or not. A misspelled key (`ft.verdcit`) or outcome
//! (`(eq x "offchart")` where `x` is `off-chart`, `found` or `none`) would
//! otherwise render as nothing and read as a sentence that was never
//! meant to be there; here it fails the build, naming chapter and line.
//!
//! Scope follows the template: `#each` walks into an array's items (or a
//! map's values), `#with` into its argument, `../` back out, `@root` to the
//! top. A helper's name is not a key; a name that is neither a key nor a
//! registered helper is reported.

use std::collections::HashMap;

use handlebars::template::{
    DecoratorTemplate, HelperTemplate, Parameter, Template, TemplateElement,
};
use handlebars::{Handlebars, Path};
use serde_json::Value;

/// The context's schema, and how to tell a helper's name from a key.
pub struct Checker<'a> {
    schema: &'a Value,
    is_helper: &'a dyn Fn(&str) -> bool,
}

/// A chapter's inline partials by name: checked where they are used, in
/// the scope of the use.
type Partials<'t> = HashMap<String, &'t Template>;

/// A position in the schema: a node, or anything (a `serde_json::Value`
/// field, a map without a schema of its values).
#[derive(Clone, Copy)]
enum Node<'a> {
    Schema(&'a Value),
    Any,
}

impl<'a> Checker<'a> {
    pub fn new(schema: &'a Value, is_helper: &'a dyn Fn(&str) -> bool) -> Checker<'a> {
        Checker { schema, is_helper }
    }

    /// Every problem in `source`, as `line N: ...`.
    pub fn check(&self, source: &str) -> Vec<String> {
        let template = match Template::compile(source) {
            Ok(t) => t,
            // The renderer reports a template that does not parse.
            Err(_) => return Vec::new(),
        };
        let mut partials = Partials::new();
        inline_partials(&template, &mut partials);
        let mut out = Vec::new();
        let root = Node::Schema(self.schema);
        let mut walk = Walk {
            partials: &partials,
            scopes: vec![root],
            out: &mut out,
            depth: 0,
        };
        self.template(&template, &mut walk, 0);
        out
    }

    fn template(&self, t: &Template, w: &mut Walk<'_, 'a>, line: usize) {
        for (i, e) in t.elements.iter().enumerate() {
            let line = t.mapping.get(i).map_or(line, |m| m.0);
            match e {
                TemplateElement::Expression(h) | TemplateElement::HtmlExpression(h) => {
                    self.expression(h, &w.scopes, line, w.out)
                }
                TemplateElement::HelperBlock(h) => self.block(h, w, line),
                // An inline partial's body is checked where it is used.
                TemplateElement::DecoratorBlock(d) if name_of(d) == "inline" => {}
                TemplateElement::PartialExpression(d) => self.partial(d, w, line),
                TemplateElement::DecoratorBlock(d) | TemplateElement::PartialBlock(d) => {
                    if let Some(t) = &d.template {
                        self.template(t, w, line);
                    }
                }
                _ => {}
            }
        }
    }

    /// `{{> name}}` of an inline partial, in the scope of the call (its
    /// context argument where it has one).
    fn partial(&self, d: &DecoratorTemplate, w: &mut Walk<'_, 'a>, line: usize) {
        let Some(body) = w.partials.get(name_of(d)).copied() else {
            return;
        };
        if w.depth > 8 {
            return;
        }
        let scope = match d.params.first() {
            Some(Parameter::Path(p)) => Some(self.resolve(raw(p), &w.scopes).unwrap_or(Node::Any)),
            _ if !d.hash.is_empty() => Some(Node::Any),
            _ => None,
        };
        w.depth += 1;
        match scope {
            Some(n) => {
                w.scopes.push(n);
                self.template(body, w, line);
                w.scopes.pop();
            }
            None => self.template(body, w, line),
        }
        w.depth -= 1;
    }

    /// `{{x.y}}` or `{{helper a b}}`.
    fn expression(
        &self,
        h: &HelperTemplate,
        scopes: &[Node<'a>],
        line: usize,
        out: &mut Vec<String>,
    ) {
        match &h.name {
            Parameter::Name(n) if h.params.is_empty() && h.hash.is_empty() => {
                if !(self.is_helper)(n) {
                    self.path(n, scopes, line, out);
                }
            }
            Parameter::Path(p) if h.params.is_empty() && h.hash.is_empty() => {
                let path = raw(p);
                let bare = !path.contains(['.', '/', '@']);
                if !(bare && (self.is_helper)(path)) {
                    self.path(path, scopes, line, out);
                }
            }
            _ => self.call(h, scopes, line, out),
        }
    }

    /// A helper's arguments, and an `eq`/`ne` against a literal checked
    /// against the outcomes its key can take.
    fn call(&self, h: &HelperTemplate, scopes: &[Node<'a>], line: usize, out: &mut Vec<String>) {
        for p in h.params.iter().chain(h.hash.values()) {
            self.param(p, scopes, line, out);
        }
        let name = match &h.name {
            Parameter::Name(n) => n.as_str(),
            _ => "",
        };
        if !matches!(name, "eq" | "ne") {
            return;
        }
        let (path, literal) = match (h.params.first(), h.params.get(1)) {
            (Some(Parameter::Path(p)), Some(Parameter::Literal(Value::String(s))))
            | (Some(Parameter::Literal(Value::String(s))), Some(Parameter::Path(p))) => (raw(p), s),
            _ => return,
        };
        let Some(Node::Schema(node)) = self.resolve(path, scopes) else {
            return;
        };
        let allowed = self.outcomes(node);
        if !allowed.is_empty() && !allowed.iter().any(|a| a == literal) {
            out.push(format!(
                "line {line}: `{path}` is never \"{literal}\"; it is one of {}",
                allowed
                    .iter()
                    .map(|a| format!("\"{a}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }

    fn param(&self, p: &Parameter, scopes: &[Node<'a>], line: usize, out: &mut Vec<String>) {
        match p {
            Parameter::Path(p) => self.path(raw(p), scopes, line, out),
            Parameter::Subexpression(s) => {
                if let TemplateElement::Expression(h) = s.element.as_ref() {
                    self.call(h, scopes, line, out);
                }
            }
            _ => {}
        }
    }

    fn block(&self, h: &HelperTemplate, w: &mut Walk<'_, 'a>, line: usize) {
        self.call(h, &w.scopes, line, w.out);
        let name = match &h.name {
            Parameter::Name(n) => n.as_str(),
            _ => "",
        };
        let inner = match (name, h.params.first()) {
            ("each", Some(Parameter::Path(p))) => match self.resolve(raw(p), &w.scopes) {
                Some(Node::Schema(n)) => Some(self.items(n)),
                _ => Some(Node::Any),
            },
            ("with", Some(Parameter::Path(p))) => {
                Some(self.resolve(raw(p), &w.scopes).unwrap_or(Node::Any))
            }
            _ => None,
        };
        if let Some(t) = &h.template {
            match inner {
                Some(n) => {
                    w.scopes.push(n);
                    self.template(t, w, line);
                    w.scopes.pop();
                }
                None => self.template(t, w, line),
            }
        }
        if let Some(t) = &h.inverse {
            self.template(t, w, line);
        }
    }

    fn path(&self, path: &str, scopes: &[Node<'a>], line: usize, out: &mut Vec<String>) {
        if self.resolve(path, scopes).is_none() {
            out.push(format!(
                "line {line}: `{path}` is not in the context (see preprocessor/TEMPLATES.md)"
            ));
        }
    }

    /// The schema node `path` names from the innermost scope; `None` when
    /// a key is not there.
    fn resolve(&self, path: &str, scopes: &[Node<'a>]) -> Option<Node<'a>> {
        if path.starts_with('@') && !path.starts_with("@root") {
            return Some(Node::Any);
        }
        let mut rest = path;
        let mut depth = scopes.len() - 1;
        if let Some(r) = rest.strip_prefix("@root") {
            depth = 0;
            rest = r.trim_start_matches(['.', '/']);
        }
        while let Some(r) = rest.strip_prefix("../") {
            depth = depth.saturating_sub(1);
            rest = r;
        }
        for prefix in ["this.", "this/", "./", "this"] {
            if let Some(r) = rest.strip_prefix(prefix) {
                rest = r;
                break;
            }
        }
        let mut node = scopes[depth];
        for key in rest.split(['.', '/']).filter(|k| !k.is_empty()) {
            let key = key.trim_start_matches('[').trim_end_matches(']');
            node = self.child(node, key)?;
        }
        Some(node)
    }

    fn deref(&self, node: &'a Value) -> &'a Value {
        let mut node = node;
        for _ in 0..16 {
            match node.get("$ref").and_then(Value::as_str) {
                Some(r) => {
                    let name = r.rsplit('/').next().unwrap_or("");
                    match self.schema.get("$defs").and_then(|d| d.get(name)) {
                        Some(n) => node = n,
                        None => break,
                    }
                }
                None => break,
            }
        }
        node
    }

    /// The branches of a node: its `anyOf`/`oneOf` alternatives, or itself.
    fn branches(&self, node: &'a Value) -> Vec<&'a Value> {
        let node = self.deref(node);
        for k in ["anyOf", "oneOf"] {
            if let Some(list) = node.get(k).and_then(Value::as_array) {
                return list.iter().flat_map(|b| self.branches(b)).collect();
            }
        }
        vec![node]
    }

    fn child(&self, node: Node<'a>, key: &str) -> Option<Node<'a>> {
        let Node::Schema(node) = node else {
            return Some(Node::Any);
        };
        for b in self.branches(node) {
            if b == &Value::Bool(true) || b.as_object().is_some_and(|o| o.is_empty()) {
                return Some(Node::Any);
            }
            if let Some(p) = b.get("properties").and_then(|p| p.get(key)) {
                return Some(Node::Schema(p));
            }
            match b.get("additionalProperties") {
                Some(Value::Bool(true)) => return Some(Node::Any),
                Some(v @ Value::Object(_)) => return Some(Node::Schema(v)),
                _ => {}
            }
            if is_type(b, "array") && (key == "length" || key.parse::<usize>().is_ok()) {
                return Some(
                    b.get("items")
                        .filter(|_| key != "length")
                        .map_or(Node::Any, Node::Schema),
                );
            }
        }
        None
    }

    /// What `#each` walks: an array's items, or a map's values.
    fn items(&self, node: &'a Value) -> Node<'a> {
        for b in self.branches(node) {
            if let Some(i) = b.get("items") {
                return Node::Schema(i);
            }
            if let Some(v @ Value::Object(_)) = b.get("additionalProperties") {
                return Node::Schema(v);
            }
        }
        Node::Any
    }

    /// The strings a node can hold, when the schema lists them.
    fn outcomes(&self, node: &'a Value) -> Vec<String> {
        let mut out = Vec::new();
        for b in self.branches(node) {
            if let Some(list) = b.get("enum").and_then(Value::as_array) {
                out.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
            } else if let Some(c) = b.get("const").and_then(Value::as_str) {
                out.push(c.to_string());
            } else if !is_type(b, "null") {
                // A free string somewhere among the branches: anything goes.
                return Vec::new();
            }
        }
        out
    }
}

/// Where the walk is: the scopes from the root in, and the problems found.
struct Walk<'w, 'a> {
    partials: &'w Partials<'w>,
    scopes: Vec<Node<'a>>,
    out: &'w mut Vec<String>,
    /// Partials within partials, bounded against a partial that uses itself.
    depth: usize,
}

fn name_of(d: &DecoratorTemplate) -> &str {
    match &d.name {
        Parameter::Name(n) => n,
        Parameter::Path(p) => raw(p),
        _ => "",
    }
}

/// Every `{{#*inline "name"}}` in `t`, at any depth.
fn inline_partials<'t>(t: &'t Template, into: &mut Partials<'t>) {
    for e in &t.elements {
        match e {
            TemplateElement::DecoratorBlock(d) if name_of(d) == "inline" => {
                if let (Some(Parameter::Literal(Value::String(n))), Some(body)) =
                    (d.params.first(), &d.template)
                {
                    into.insert(n.clone(), body);
                }
            }
            TemplateElement::HelperBlock(h) => {
                for t in h.template.iter().chain(&h.inverse) {
                    inline_partials(t, into);
                }
            }
            TemplateElement::DecoratorBlock(d) | TemplateElement::PartialBlock(d) => {
                if let Some(t) = &d.template {
                    inline_partials(t, into);
                }
            }
            _ => {}
        }
    }
}

fn is_type(node: &Value, t: &str) -> bool {
    match node.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|x| x == t),
        _ => false,
    }
}

fn raw(p: &Path) -> &str {
    match p {
        Path::Relative((_, raw)) => raw,
        Path::Local((_, _, raw)) => raw,
    }
}

/// Whether `name` is a registered helper: rendered bare in strict mode
/// against an empty context, an unknown name is a missing variable, while
/// a helper answers (or complains about its missing arguments).
pub fn helper_probe(hb: &Handlebars<'static>, name: &str) -> bool {
    if matches!(
        name,
        "if" | "unless"
            | "each"
            | "with"
            | "lookup"
            | "eq"
            | "ne"
            | "gt"
            | "gte"
            | "lt"
            | "lte"
            | "and"
            | "or"
            | "not"
            | "len"
            | "log"
            | "raw"
            | "inline"
    ) {
        return true;
    }
    let mut strict = hb.clone();
    strict.set_strict_mode(true);
    match strict.render_template(&format!("{{{{{name}}}}}"), &serde_json::json!({})) {
        Ok(_) => true,
        Err(e) => !matches!(
            e.reason(),
            handlebars::RenderErrorReason::MissingVariable(_)
        ),
    }
}

#[cfg(test)]
mod tests;
