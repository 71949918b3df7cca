//! No source file imports another that (directly or through others) imports
//! it back, in any crate of the workspace that has more than a handful of
//! modules. A cycle means two files cannot be read, changed or tested one
//! without the other; the issue that asked for this found 22 of 28 files of
//! `preprocessor/src/context` in one.
//!
//! The graph is read from the sources: every `crate::…`, `super::…`,
//! `self::…` path and every path through a child module (in `use` lines,
//! brace groups expanded, and in expressions) is an edge from the file to
//! the file that defines the longest module prefix of that path. `mod x;`
//! declarations are not edges, and neither is anything after a file's
//! inline `#[cfg(test)] mod tests {` (its unit tests read the file they
//! test). Run it alone with
//! `cargo test -p mdbook-pagewalk --test import_cycles`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates held to it. `model` is not, yet: its registry of experiment
/// kinds (`run.rs`) names each experiment's results type while each
/// experiment's module reads its name back from the registry, and `lib.rs`
/// holds the schema version `load.rs` checks.
const CRATES: [&str; 4] = ["preprocessor", "figures", "collector", "analysis"];

/// A crate's files by module path (`["context", "verdict"]` for
/// `context/verdict/mod.rs`).
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            let last = parts.last().unwrap().as_str();
            if matches!(last, "mod" | "lib" | "main") {
                parts.pop();
            }
            // `main.rs` and `lib.rs` of one crate are two roots; a binary's
            // modules are the library's, so keep the first seen.
            out.entry(parts).or_insert(path);
        }
    }
    out
}

/// The code of a file without comments, string contents and its tests.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    // An inline test module ends what is read; `mod tests;` (a file of
    // its own) is a declaration, and the code after it still counts.
    let cut = text.match_indices("#[cfg(test)]\nmod ").find(|(i, _)| {
        let line = text[*i..].lines().nth(1).unwrap_or("");
        line.trim_end().ends_with('{')
    });
    let text = match cut {
        Some((i, _)) => &text[..i],
        None => &text[..],
    };
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        // Strip string literals (a path inside one is prose, not an import).
        let mut in_str = false;
        let mut prev = ' ';
        for c in line.chars() {
            if c == '"' && prev != '\\' {
                in_str = !in_str;
                out.push('"');
            } else if !in_str {
                out.push(c);
            }
            prev = c;
        }
        out.push('\n');
    }
    out
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().trim().to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

/// Every path the code names: `use` trees expanded, then every
/// `word::word…` run elsewhere.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code.to_string();
    while let Some(i) = find_use(&rest) {
        let end = rest[i..].find(';').map_or(rest.len(), |e| i + e);
        let tree = rest[i + 4..end].to_string();
        out.extend(expand(&tree.replace(['\n', ' '], "")));
        rest.replace_range(i..end, "");
    }
    let bytes: Vec<char> = rest.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < bytes.len() {
        if word(bytes[i]) && (i == 0 || !(word(bytes[i - 1]) || bytes[i - 1] == ':')) {
            let mut j = i;
            while j < bytes.len() && (word(bytes[j]) || bytes[j] == ':') {
                j += 1;
            }
            let s: String = bytes[i..j].iter().collect();
            if s.contains("::") {
                out.push(s);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out.into_iter().map(|p| split(&p)).collect()
}

fn find_use(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = code[from..].find("use ") {
        let at = from + i;
        let before = code[..at].chars().next_back();
        if before.is_none_or(|c| c.is_whitespace() || c == '{' || c == ';' || c == ')') {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// What a file re-exports: `pub use x::Item;` maps `Item` to the path
/// `x::Item` as written there; `pub use x::*;` adds `x` to its globs.
#[derive(Default)]
struct Exports {
    items: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    /// The items the file itself defines.
    defines: BTreeSet<String>,
}

type Reexports = BTreeMap<Vec<String>, Exports>;

/// The file a path from module `here` lands in. A path to an item a file
/// only re-exports (`crate::Summary`, re-exported by `lib.rs` from
/// `stats.rs`) lands where the item is defined: naming it through the root
/// does not make the root a dependency.
fn target(
    here: &[String],
    path: &[String],
    children: &BTreeMap<Vec<String>, BTreeSet<String>>,
    files: &BTreeMap<Vec<String>, PathBuf>,
    reexports: &Reexports,
    depth: usize,
) -> Option<Vec<String>> {
    let base = absolute(here, path, &children[here])?;
    let n = (0..=base.len())
        .rev()
        .find(|&n| files.contains_key(&base[..n]))?;
    let file = base[..n].to_vec();
    if let (Some(item), true) = (base.get(n), depth < 8) {
        let exports = reexports.get(&file);
        if let Some(via) = exports.and_then(|r| r.items.get(item)) {
            if let Some(t) = target(&file, via, children, files, reexports, depth + 1) {
                return Some(t);
            }
        }
        // Through a glob: the first globbed module that defines the item.
        let defined = exports.is_some_and(|r| r.defines.contains(item));
        for glob in exports.map_or(&[][..], |r| &r.globs[..]) {
            if defined {
                break;
            }
            let mut via = glob.clone();
            via.push(item.clone());
            if let Some(t) = target(&file, &via, children, files, reexports, depth + 1) {
                if reexports.get(&t).is_some_and(|r| r.defines.contains(item)) {
                    return Some(t);
                }
            }
        }
    }
    Some(file)
}

/// `path` as a module path from the crate root.
fn absolute(here: &[String], path: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here.to_vec(),
        first if children.contains(first) => here.to_vec(),
        _ => return None,
    };
    let mut rest = match path[0].as_str() {
        "crate" | "self" => &path[1..],
        _ => path,
    };
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

fn split(p: &str) -> Vec<String> {
    p.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The names a file defines at any depth: `struct`, `enum`, `fn`, `const`,
/// `static`, `type`, `trait`, `macro_rules!`.
fn definitions(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if matches!(
            pair[0],
            "struct" | "enum" | "fn" | "const" | "static" | "type" | "trait" | "macro_rules!"
        ) {
            out.insert(pair[1].to_string());
        }
    }
    out
}

fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = modules(src);
    let codes: BTreeMap<_, _> = files.iter().map(|(m, p)| (m.clone(), code(p))).collect();
    let mut children = BTreeMap::new();
    let mut reexports = Reexports::new();
    for (module, code) in &codes {
        let mods: BTreeSet<String> = code
            .lines()
            .filter_map(|l| {
                let l = l
                    .trim()
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub ");
                l.strip_prefix("mod ")?
                    .strip_suffix(';')
                    .map(str::to_string)
            })
            .collect();
        children.insert(module.clone(), mods);
        let mut exports = Exports::default();
        for l in code.split(';') {
            let l = l.trim();
            let tree = l
                .strip_prefix("pub use ")
                .or_else(|| l.strip_prefix("pub(crate) use "));
            for p in tree
                .map(|t| expand(&t.replace(['\n', ' '], "")))
                .unwrap_or_default()
            {
                let mut p = split(&p);
                match p.last().map(String::as_str) {
                    Some("*") => {
                        p.pop();
                        exports.globs.push(p);
                    }
                    Some(last) => {
                        exports.items.insert(last.to_string(), p.clone());
                    }
                    None => {}
                }
            }
        }
        exports.defines = definitions(code);
        reexports.insert(module.clone(), exports);
    }
    // Items a macro defines belong to the files that invoke it
    // (`experiment_kinds!` in run.rs defines `Kind` and `Results`).
    let macros: Vec<(String, BTreeSet<String>)> = codes
        .iter()
        .flat_map(|(m, code)| {
            let inner = reexports[m].defines.clone();
            code.split("macro_rules!")
                .skip(1)
                .filter_map(|rest| rest.split_whitespace().next())
                .map(move |name| (format!("{name}!"), inner.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    for (module, code) in &codes {
        for (call, inner) in &macros {
            if code.contains(call.as_str()) && !code.contains(&format!("macro_rules! {call}")) {
                let e = reexports.get_mut(module).unwrap();
                e.defines.extend(inner.iter().cloned());
            }
        }
    }
    let mut edges = BTreeMap::new();
    for (module, code) in &codes {
        let mut to = BTreeSet::new();
        for p in paths(code) {
            if let Some(t) = target(module, &p, &children, &files, &reexports, 0) {
                if &t != module {
                    to.insert(t);
                }
            }
        }
        edges.insert(module.clone(), to);
    }
    edges
}

/// Strongly connected components with more than one file (Tarjan).
fn cycles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on.insert(v);
        for w in &s.edges[v] {
            let Some((w, _)) = s.edges.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let l = s.low[w].min(s.low[v]);
                s.low.insert(v, l);
            } else if s.on.contains(w) {
                let l = s.index[w].min(s.low[v]);
                s.low.insert(v, l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate root".into()
    } else {
        m.join("::")
    }
}

#[test]
fn no_source_file_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut found = Vec::new();
    for krate in CRATES {
        let edges = graph(&root.join(krate).join("src"));
        assert!(edges.len() > 3, "{krate}: no modules read");
        for comp in cycles(&edges) {
            let files: Vec<String> = comp.iter().map(|m| name(m)).collect();
            found.push(format!("{krate}: {}", files.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "files in an import cycle:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reader_sees_a_planted_cycle_and_its_own_kinds_of_path() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod c;\n").unwrap();
    std::fs::write(
        src.join("a/mod.rs"),
        "mod b;\nuse b::Thing;\npub struct View;\n",
    )
    .unwrap();
    std::fs::write(
        src.join("a/b.rs"),
        "use super::{View, super::c::{X, Y as Z}};\npub struct Thing;\n\
         // crate::c::Q in a comment is not an edge\n\
         #[cfg(test)]\nmod tests { use crate::c::*; }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("c.rs"),
        "pub fn f() { let s = \"crate::a::b\"; }\n",
    )
    .unwrap();
    let edges = graph(src);
    let a = vec!["a".to_string()];
    let b = vec!["a".to_string(), "b".to_string()];
    let c = vec!["c".to_string()];
    assert_eq!(edges[&a], BTreeSet::from([b.clone()]));
    assert_eq!(edges[&b], BTreeSet::from([a.clone(), c.clone()]));
    assert!(
        edges[&c].is_empty(),
        "a path inside a string is not an edge"
    );
    assert_eq!(cycles(&edges), vec![vec![a, b]]);
}
