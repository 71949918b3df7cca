//! A run file with markup in every free-text field the model has, for the
//! hostile-file test. The fields come from the types
//! ([`pagewalk_model::json::shape`], written by the same derive as the
//! reader), not from a list: a string field added to the model is poisoned
//! the day it is added. A field absent from the base file is added, with
//! whatever its parents need to read; the model then decides. A field the
//! model refuses to hold the payload (a run id, a timestamp) is reported
//! as refused, with the model's reason: its value can never reach a page.

use pagewalk_model::json::shape::{Field, Shape};
use pagewalk_model::json::FromJson;
use pagewalk_model::RunFile;
use serde_json::{Map, Value};

/// The host every payload names: any request to it, and any link or image
/// that points at it, is a failure.
pub const EVIL_HOST: &str = "evil.example";

/// Markup a page would act on if a value reached it unescaped: a Markdown
/// link and image, an autolink, raw HTML with a handler, a reference-style
/// link. `n` tells which field it came from.
pub fn payload(n: usize) -> String {
    format!(
        "pw{n} [x](javascript:alert({n})) ![i](http://{EVIL_HOST}/{n}.png) \
         <http://{EVIL_HOST}/a{n}> <img src=x onerror=\"document.body.dataset.pwned={n}\"> \
         [r][r{n}] https://{EVIL_HOST}/b{n} *e* `c` &amp; {{{{x}}}}"
    )
}

/// A payload for a field with a length limit (a process name, at most
/// 64 bytes; a map key, 128): a Markdown link and a protocol-relative image.
pub fn key_payload(n: usize) -> String {
    format!("pw{n} [x](javascript:alert({n})) ![i](//{EVIL_HOST}/{n})")
}

/// The same for a file name: no `/`.
pub fn file_name_payload() -> String {
    "[x](javascript:alert(77)) ![i](evil.example.png) <img src=x onerror=alert(78)>".to_string()
}

/// What poisoning a file came to.
pub struct Poisoned {
    pub file: Value,
    /// Places given a payload, as JSON pointers, with the payload's number.
    pub places: Vec<(String, usize)>,
    /// Free-text fields the model would not take a payload in, with why.
    pub refused: Vec<(String, String)>,
    /// Every free-text field of the type, as a path pattern
    /// (`experiments[].results.first-touch.size_note`).
    pub fields: Vec<String>,
}

/// `base` (a file the model reads) with a payload in every free-text field
/// that `RunFile`'s shape has, present in `base` or not; text map keys are
/// poisoned too.
pub fn poison_run(base: &Value) -> Poisoned {
    let mut out = Poisoned {
        file: base.clone(),
        places: Vec::new(),
        refused: Vec::new(),
        fields: Vec::new(),
    };
    let mut next = 0;
    let mut places = Vec::new();
    walk(
        &RunFile::shape(),
        &mut out.file,
        "",
        "",
        &mut next,
        &mut places,
        &mut out.fields,
    );
    // Take back what the model refuses, one place at a time, naming why.
    loop {
        let text = serde_json::to_string(&out.file).unwrap();
        let Err(e) = pagewalk_model::parse_run("poisoned.json", &text) else {
            break;
        };
        let field = e.field.clone().unwrap_or_default();
        let Some(i) = blame(&places, &field) else {
            panic!("the model refused a place no payload went to: {e}");
        };
        // A field with a length limit (a process name) gets the short one.
        if !places[i].added && !places[i].short && !places[i].pointer.ends_with("/~key") {
            let p = &mut places[i];
            p.short = true;
            *out.file.pointer_mut(&p.pointer).unwrap() = Value::String(key_payload(p.n));
            continue;
        }
        let place = places.remove(i);
        restore(&mut out.file, base, &place.pointer);
        let within = format!("{}/", place.pointer);
        let (gone, kept): (Vec<Place>, Vec<Place>) = places
            .into_iter()
            .partition(|p| p.pointer.starts_with(&within));
        places = kept;
        for p in gone.into_iter().chain([place]).filter(|p| !p.added) {
            out.refused.push((p.pattern, e.message.clone()));
        }
    }
    out.places = places
        .into_iter()
        .filter(|p| !p.added)
        .map(|p| (p.pointer, p.n))
        .collect();
    out
}

struct Place {
    pointer: String,
    /// The field's path pattern, for reports.
    pattern: String,
    /// The model's name for the place (`a.b[2].c`), to match its errors.
    field: String,
    n: usize,
    /// Not a payload: a value made up so that fields inside it exist.
    added: bool,
    /// Given [`key_payload`] after the model refused the long one.
    short: bool,
}

/// The place an error names: the same field, the deepest place inside it
/// (the error names the object), or the nearest one it sits inside.
fn blame(places: &[Place], field: &str) -> Option<usize> {
    let inside = |outer: &str, inner: &str| {
        inner == outer
            || inner.starts_with(&format!("{outer}."))
            || inner.starts_with(&format!("{outer}["))
            || outer.is_empty()
    };
    places
        .iter()
        .position(|p| p.field == field)
        .or_else(|| places.iter().position(|p| inside(field, &p.field)))
        .or_else(|| {
            places
                .iter()
                .enumerate()
                .filter(|(_, p)| inside(&p.field, field))
                .max_by_key(|(_, p)| p.field.len())
                .map(|(i, _)| i)
        })
}

/// Puts back at `pointer` what `base` had there (or removes what was
/// added); a renamed map key is renamed back.
fn restore(file: &mut Value, base: &Value, pointer: &str) {
    if let Some(map_pointer) = pointer.strip_suffix("/~key") {
        let original = base.pointer(map_pointer).cloned().unwrap_or(Value::Null);
        if let Some(slot) = file.pointer_mut(map_pointer) {
            *slot = original;
        }
        return;
    }
    match base.pointer(pointer) {
        Some(v) => *file.pointer_mut(pointer).unwrap() = v.clone(),
        None => {
            // Added: remove it, and any parent that was added for it.
            let mut p = pointer.to_string();
            while let Some((parent, key)) = p.rsplit_once('/') {
                if base.pointer(parent).is_some() {
                    match file.pointer_mut(parent) {
                        Some(Value::Object(m)) => {
                            m.remove(&key.replace("~1", "/").replace("~0", "~"));
                        }
                        Some(Value::Array(items)) => {
                            if let Ok(i) = key.parse::<usize>() {
                                items.truncate(i);
                            }
                        }
                        _ => {}
                    }
                    return;
                }
                p = parent.to_string();
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn walk(
    shape: &Shape,
    v: &mut Value,
    pointer: &str,
    pattern: &str,
    next: &mut usize,
    places: &mut Vec<Place>,
    fields: &mut Vec<String>,
) {
    let field = pointer_to_field(pointer);
    let mut place = |v: &mut Value, pointer: String, next: &mut usize| {
        *next += 1;
        *v = Value::String(payload(*next));
        places.push(Place {
            field: pointer_to_field(&pointer),
            pointer,
            pattern: pattern.to_string(),
            n: *next,
            added: false,
            short: false,
        });
    };
    let added = |places: &mut Vec<Place>, pointer: String| {
        places.push(Place {
            field: pointer_to_field(&pointer),
            pointer,
            pattern: pattern.to_string(),
            n: 0,
            added: true,
            short: false,
        })
    };
    match shape {
        Shape::Text => {
            fields.push(pattern.to_string());
            place(v, pointer.to_string(), next);
        }
        Shape::Optional(inner) => {
            let inner = inner();
            if v.is_null() {
                if !has_text(&inner, 0) {
                    return;
                }
                *v = minimal(&inner);
                added(places, pointer.to_string());
            }
            walk(&inner, v, pointer, pattern, next, places, fields);
        }
        Shape::List(inner) => {
            let inner = inner();
            let items = v.as_array_mut().unwrap();
            if items.is_empty() && has_text(&inner, 0) {
                items.push(minimal(&inner));
                added(places, format!("{pointer}/0"));
            }
            for (i, item) in items.iter_mut().enumerate() {
                let p = format!("{pointer}/{i}");
                walk(
                    &inner,
                    item,
                    &p,
                    &format!("{pattern}[]"),
                    next,
                    places,
                    fields,
                );
            }
        }
        Shape::Map(key, value) => {
            let (key, value) = (key(), value());
            let map = v.as_object_mut().unwrap();
            if matches!(key, Shape::Text) {
                fields.push(format!("{pattern}{{key}}"));
                // Rename the first key (or add one) to a payload.
                *next += 1;
                let first = map.keys().next().cloned();
                let content = first
                    .as_ref()
                    .and_then(|k| map.remove(k))
                    .unwrap_or_else(|| minimal(&value));
                map.insert(key_payload(*next), content);
                places.push(Place {
                    pointer: format!("{pointer}/~key"),
                    pattern: format!("{pattern}{{key}}"),
                    field: field.clone(),
                    n: *next,
                    added: false,
                    short: false,
                });
            } else if map.is_empty() && has_text(&value, 0) {
                map.insert("0".into(), minimal(&value));
                added(places, format!("{pointer}/0"));
            }
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                let p = format!("{pointer}/{}", escape_pointer(&k));
                let item = map.get_mut(&k).unwrap();
                walk(
                    &value,
                    item,
                    &p,
                    &format!("{pattern}{{}}"),
                    next,
                    places,
                    fields,
                );
            }
        }
        Shape::Object(fs) => object(fs, v, pointer, pattern, next, places, fields),
        Shape::Tagged { tag, variants } => {
            let name = v.get(*tag).and_then(Value::as_str).map(str::to_string);
            if let Some((_, fs)) = variants.iter().find(|(n, _)| Some(*n) == name.as_deref()) {
                object(fs, v, pointer, pattern, next, places, fields);
            }
        }
        Shape::External(variants) => {
            let Some((name, content)) = v.as_object_mut().and_then(|m| m.iter_mut().next()) else {
                return;
            };
            if let Some(Some(shape)) = variants.iter().find(|(n, _)| n == name).map(|(_, s)| s) {
                let p = format!("{pointer}/{}", escape_pointer(name));
                let pat = format!("{pattern}.{name}");
                walk(&shape(), content, &p, &pat, next, places, fields);
            }
        }
        Shape::Word(_) | Shape::Number | Shape::Bool | Shape::Opaque => {}
    }
}

/// Whether a value of `shape` can hold free text anywhere.
fn has_text(shape: &Shape, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    let fields = |fs: &[Field]| fs.iter().any(|f| has_text(&(f.shape)(), depth + 1));
    match shape {
        Shape::Text => true,
        Shape::Optional(inner) | Shape::List(inner) => has_text(&inner(), depth + 1),
        Shape::Map(key, value) => matches!(key(), Shape::Text) || has_text(&value(), depth + 1),
        Shape::Object(fs) => fields(fs),
        Shape::Tagged { variants, .. } => variants.iter().any(|(_, fs)| fields(fs)),
        Shape::External(variants) => variants
            .iter()
            .any(|(_, s)| s.is_some_and(|s| has_text(&s(), depth + 1))),
        Shape::Word(_) | Shape::Number | Shape::Bool | Shape::Opaque => false,
    }
}

fn object(
    fs: &[Field],
    v: &mut Value,
    pointer: &str,
    pattern: &str,
    next: &mut usize,
    places: &mut Vec<Place>,
    fields: &mut Vec<String>,
) {
    let Some(map) = v.as_object_mut() else {
        return;
    };
    for f in fs {
        let shape = (f.shape)();
        let p = format!("{pointer}/{}", escape_pointer(f.name));
        if !map.contains_key(f.name) {
            if !has_text(&shape, 0) {
                continue;
            }
            let value = minimal_or_null(&shape);
            if !value.is_null() {
                places.push(Place {
                    field: pointer_to_field(&p),
                    pointer: p.clone(),
                    pattern: String::new(),
                    n: 0,
                    added: true,
                    short: false,
                });
            }
            map.insert(f.name.to_string(), value);
        }
        let item = map.get_mut(f.name).unwrap();
        let pat = if pattern.is_empty() {
            f.name.to_string()
        } else {
            format!("{pattern}.{}", f.name)
        };
        walk(&shape, item, &p, &pat, next, places, fields);
    }
}

/// An optional field that is absent starts as `null`; [`walk`] fills it.
fn minimal_or_null(shape: &Shape) -> Value {
    match shape {
        Shape::Optional(_) => Value::Null,
        other => minimal(other),
    }
}

/// The least value of `shape` that reads: its text filled in by [`walk`]
/// afterwards.
fn minimal(shape: &Shape) -> Value {
    match shape {
        Shape::Text => Value::String(String::new()),
        Shape::Word(names) => Value::String(names.first().copied().unwrap_or("").into()),
        Shape::Number => Value::from(1),
        Shape::Bool => Value::Bool(false),
        Shape::Optional(inner) => minimal(&inner()),
        Shape::List(_) => Value::Array(Vec::new()),
        Shape::Map(..) => Value::Object(Map::new()),
        Shape::Object(fs) => Value::Object(
            fs.iter()
                .map(|f| (f.name.to_string(), minimal_or_null(&(f.shape)())))
                .collect(),
        ),
        Shape::Tagged { tag, variants } => {
            let Some((name, fs)) = variants.first() else {
                return Value::Null;
            };
            let mut m: Map<String, Value> = fs
                .iter()
                .map(|f| (f.name.to_string(), minimal_or_null(&(f.shape)())))
                .collect();
            m.insert(tag.to_string(), Value::String(name.to_string()));
            Value::Object(m)
        }
        Shape::External(variants) => match variants.first() {
            Some((name, None)) => Value::String(name.to_string()),
            Some((name, Some(shape))) => Value::Object(
                [(name.to_string(), minimal(&shape()))]
                    .into_iter()
                    .collect(),
            ),
            None => Value::Null,
        },
        Shape::Opaque => Value::Null,
    }
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `/experiments/0/results/first-touch/pages` as the model names it:
/// `experiments[0].results.first-touch.pages`.
fn pointer_to_field(pointer: &str) -> String {
    let mut out = String::new();
    for part in pointer.split('/').skip(1) {
        let part = part.replace("~1", "/").replace("~0", "~");
        if part.parse::<usize>().is_ok() && !out.is_empty() && !out.ends_with('.') {
            out.push_str(&format!("[{part}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&part);
        }
    }
    out
}

/// Fails when the page in `browser` shows a payload acting as markup: a
/// file's script ran (`data-pwned`), a `javascript:` link is live, or a
/// link or image names [`EVIL_HOST`]. `page` names the page in the error.
pub async fn ensure_inert(browser: &crate::Browser, page: &str) -> anyhow::Result<()> {
    let seen = browser
        .eval(&format!(
            "return {{
               pwned: document.body.dataset.pwned || null,
               js_links: [...document.querySelectorAll('[href]')]
                 .filter(a => /^\\s*javascript:/i.test(a.getAttribute('href'))).length,
               foreign: [...document.querySelectorAll('[src],[href]')]
                 .filter(e => (e.getAttribute('src') || e.getAttribute('href') || '')
                 .includes('{EVIL_HOST}')).length,
             }};"
        ))
        .await?;
    anyhow::ensure!(seen["pwned"].is_null(), "{page}: a file's script ran");
    anyhow::ensure!(seen["js_links"] == 0, "{page}: a javascript: link is live");
    anyhow::ensure!(
        seen["foreign"] == 0,
        "{page}: a link or image names {EVIL_HOST}"
    );
    Ok(())
}
