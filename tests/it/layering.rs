//! The layer order of `src/`, and the check that keeps it: a module may name only modules of lower
//! layers, never one of its own layer (layers are sets of independent peers) or a higher one.
//!
//! The order is written here and in `docs/design.md` (between the `layers` markers); a test
//! keeps the two equal, another that every top-level module of `src/` has its place. A module is a
//! top-level module of the crate (`src/ir/` and everything under it is `ir`); a module names another
//! when its text holds `crate::other` (a `use`, a path in code, or an intra-doc link: a reader of the
//! IR should not meet the analyses built on it either), `crate::{other, ...}`, or a `super::` chain that
//! climbs out of its own module to `other`. Plain comments count too: it is simpler to keep them
//! honest than to parse them apart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first. Modules on one line are peers.
const LAYERS: &[&[&str]] = &[
    &["proto", "text"],
    &["file"],
    &["diagnostics"],
    &["ir"],
    &["checks", "shape"],
    &["passes", "render", "settings", "write"],
    &["lint"],
    &["picture"],
    &["cli"],
];

/// Submodules only some modules may name, whatever their layers: the decoder is driven by the pipeline
/// alone (one way in for every front end; the IR implements `file::sink` and never decodes).
const ONLY_FROM: &[(&str, &[&str])] = &[("file::decode", &["file", "lint"])];

/// Files of the crate root that are no module of a layer: the crate's table of contents and the binary.
const ROOT_FILES: &[&str] = &["lib.rs", "main.rs"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `.rs` file under `dir`, with its module path from the crate root (`src/shape/ops/mod.rs` is
/// `["shape", "ops"]`, `src/lint.rs` is `["lint"]`).
fn sources(root: &Path) -> Vec<(PathBuf, Vec<String>)> {
    fn walk(dir: &Path, prefix: &[String], out: &mut Vec<(PathBuf, Vec<String>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let mut p = prefix.to_vec();
                p.push(name);
                walk(&path, &p, out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let mut p = prefix.to_vec();
                if stem != "mod" {
                    p.push(stem.to_owned());
                }
                out.push((path, p));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &[], &mut out);
    out
}

/// The top-level modules `text` names, other than through its own module. `module` is the file's
/// module path (for resolving `super::`).
fn named_modules(text: &str, module: &[String]) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    // `crate::x` and `crate::{x, y::z}`.
    for (at, _) in text.match_indices("crate::") {
        // Not the tail of another path (`onnx_lint::crate::` cannot occur; `$crate::` in macros is the same crate).
        if text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start && depth == 0 => {
                        item_start = false;
                        let name = ident(&group[i..]);
                        if !name.is_empty() {
                            out.insert(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    // `super::super::x`: climbing to the crate root lands on a top-level module.
    for (at, _) in text.match_indices("super::") {
        if text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        {
            continue; // the second `super::` of a chain, counted with the first
        }
        let mut rest = &text[at..];
        let mut depth = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            depth += 1;
            rest = r;
        }
        // From a file's items, as many steps as the file's depth reach the crate root. (From an
        // inline `mod tests` it takes one more; counting from the file may then name a module of the
        // crate root that is not one: such names have no layer and are skipped.)
        if depth >= module.len() {
            let name = ident(rest);
            if !name.is_empty() && name != "super" {
                out.insert(name);
            }
        }
    }
    let own = module.first().cloned().unwrap_or_default();
    out.remove(&own);
    out.remove("self");
    out
}

/// Whether `text` names the submodule `path` (`file::decode`): as a path, or as `decode` in a
/// `crate::file::{...}` group.
fn names_submodule(text: &str, path: &str) -> bool {
    let (parent, child) = path.split_once("::").expect("a submodule path");
    if text.contains(path) {
        return true;
    }
    let group = format!("crate::{parent}::{{");
    text.match_indices(&group).any(|(at, _)| {
        let rest = &text[at + group.len()..];
        let body = &rest[..rest.find('}').unwrap_or(rest.len())];
        body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == child)
    })
}

/// Every import of `root` (a `src/` folder) that breaks the layer order, as `file: module -> other`.
fn violations(root: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    for (path, module) in sources(root) {
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        if module.len() == 1 && ROOT_FILES.contains(&rel.as_str()) {
            continue;
        }
        let top = &module[0];
        let Some(mine) = layer_of(top) else {
            bad.push(format!(
                "{rel}: module `{top}` has no place in the layer order"
            ));
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        for (sub, allowed) in ONLY_FROM {
            if !allowed.contains(&top.as_str()) && names_submodule(&text, sub) {
                bad.push(format!(
                    "{rel}: `{top}` names `{sub}`, which only {allowed:?} may name"
                ));
            }
        }
        for other in named_modules(&text, &module) {
            match layer_of(&other) {
                Some(theirs) if theirs < mine => {}
                Some(theirs) if theirs == mine => bad.push(format!(
                    "{rel}: `{top}` names its peer `{other}` (layer {mine}: {:?})",
                    LAYERS[mine]
                )),
                Some(_) => bad.push(format!(
                    "{rel}: `{top}` (layer {mine}) names `{other}`, a higher layer"
                )),
                // Not a module of the crate (a macro-generated name, `crate::` in a string): only
                // top-level modules are checked.
                None => {}
            }
        }
    }
    bad
}

#[test]
fn no_module_names_a_module_above_it_or_beside_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = violations(&src);
    assert!(
        bad.is_empty(),
        "the layer order is broken:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_top_level_module_has_a_layer_and_every_layer_a_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    let placed: BTreeSet<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    assert_eq!(declared, placed, "lib.rs's modules and the layers differ");
}

#[test]
fn the_design_doc_states_the_same_order() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/design.md"))
        .unwrap();
    let start = doc
        .find("<!-- layers -->")
        .expect("docs/design.md: a `<!-- layers -->` marker before the layer order");
    let end = doc
        .find("<!-- /layers -->")
        .expect("docs/design.md: a `<!-- /layers -->` marker after it");
    // The block lists the layers highest first, as a stack is drawn: one line per layer, peers
    // separated by spaces, each line possibly followed by `  ` and a comment.
    let stated: Vec<Vec<String>> = doc[start..end]
        .lines()
        .filter(|l| !l.starts_with("<!--") && !l.starts_with("```") && !l.trim().is_empty())
        .map(|l| {
            let names = l.split("  ").next().unwrap_or("");
            names.split_whitespace().map(str::to_owned).collect()
        })
        .rev()
        .collect();
    let ours: Vec<Vec<String>> = LAYERS
        .iter()
        .map(|l| l.iter().map(|s| (*s).to_owned()).collect())
        .collect();
    assert_eq!(
        stated, ours,
        "the layer order of docs/design.md differs from this test's"
    );
}

/// The check itself: an upward import, a peer import, a `crate::{...}` group, a `super::` chain out of
/// a module and a name of the decoder outside the pipeline are each caught, and a downward import is
/// not.
#[test]
fn the_check_catches_upward_and_peer_imports() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod ir;");
    write(
        "ir/mod.rs",
        "use crate::proto::ModelProto;\nuse crate::diagnostics::Diagnostic;\n",
    );
    write(
        "ir/fine.rs",
        "use super::Graph;\nuse crate::file::Origin;\n",
    );
    assert_eq!(violations(src), Vec::<String>::new());

    write("ir/model.rs", "use crate::lint::Findings;\n");
    write(
        "ir/group.rs",
        "use crate::{file, shape::infer::GraphShapes};\n",
    );
    write(
        "ir/deep/climb.rs",
        "use super::super::super::checks::run;\n",
    );
    write(
        "checks/x.rs",
        "/// See [`crate::shape::infer`].\nfn f() {}\n",
    );
    write(
        "ir/decodes.rs",
        "use crate::file::{Origin, decode::decode_bytes};\n",
    );
    let mut found = violations(src);
    found.sort();
    assert_eq!(
        found,
        [
            "checks/x.rs: `checks` names its peer `shape` (layer 4: [\"checks\", \"shape\"])",
            "ir/decodes.rs: `ir` names `file::decode`, which only [\"file\", \"lint\"] may name",
            "ir/deep/climb.rs: `ir` (layer 3) names `checks`, a higher layer",
            "ir/group.rs: `ir` (layer 3) names `shape`, a higher layer",
            "ir/model.rs: `ir` (layer 3) names `lint`, a higher layer",
        ]
    );

    write("newlayer/mod.rs", "");
    assert!(
        violations(src)
            .iter()
            .any(|v| v.contains("`newlayer` has no place")),
        "a module outside the order is reported"
    );
}

/// Prints what each module names, layer by layer, highest first: the map to read while moving code
/// (`cargo test --release --test it layering -- --nocapture`).
/// The issue that made this order: the IR names no analysis built on it. The graph is printed too
/// (`cargo test --release --test it layering -- --nocapture`), which shows what each layer uses.
#[test]
fn the_ir_names_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, module) in sources(&src) {
        let rel = path.strip_prefix(&src).unwrap().display().to_string();
        if module.len() == 1 && ROOT_FILES.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        graph
            .entry(module[0].clone())
            .or_default()
            .extend(named_modules(&text, &module));
    }
    for layer in LAYERS.iter().rev() {
        for m in *layer {
            let uses: Vec<_> = graph.get(*m).into_iter().flatten().cloned().collect();
            println!("{m:12} -> {}", uses.join(" "));
        }
    }
    let ir: BTreeSet<&str> = graph["ir"].iter().map(String::as_str).collect();
    let allowed: BTreeSet<&str> = ["proto", "text", "file", "diagnostics"]
        .into_iter()
        .collect();
    assert!(ir.is_subset(&allowed), "the IR names {ir:?}");
}

/// Most lines of code a source file may hold: lines that are neither blank nor comments, before its
/// `#[cfg(test)]` module. Past that a file holds more than one thing; split it by what it holds.
const MAX_LINES_OF_CODE: usize = 800;

/// The lines of code of a source file's text (see [`MAX_LINES_OF_CODE`]).
fn lines_of_code(text: &str) -> usize {
    text.lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn no_source_file_is_over_800_lines_of_code() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let long: Vec<String> = sources(&src)
        .into_iter()
        .filter_map(|(path, _)| {
            let n = lines_of_code(&std::fs::read_to_string(&path).unwrap());
            (n > MAX_LINES_OF_CODE).then(|| format!("{}: {n} lines of code", path.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES_OF_CODE} lines of code:\n{}",
        long.join("\n")
    );
}

#[test]
fn lines_of_code_leave_out_blanks_comments_and_tests() {
    let text =
        "//! head\nfn a() {}\n\n    // why\nfn b() {}\n#[cfg(test)]\nmod tests {\nfn c() {}\n}\n";
    assert_eq!(lines_of_code(text), 2);
}

/// The words that name a pass (the `passes` modules and the commands that run them). The byte layer
/// writes what it is given and must not know what made it: a pass's names, recipes and hints live
/// with the pass.
const PASS_WORDS: &[&str] = &[
    "expand",
    "explicit_broadcast",
    "fold_expand",
    "fold",
    "annotate",
];

/// The places in `text` where a word of [`PASS_WORDS`] stands as a word (case-insensitive; `folder`
/// and `expanded` are other words), as `line: text`.
fn pass_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let words = lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        if words.into_iter().any(|w| PASS_WORDS.contains(&w)) {
            out.push(format!("{}: {}", i + 1, line.trim()));
        }
    }
    out
}

#[test]
fn the_byte_layer_names_no_pass() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/file");
    let mut found = Vec::new();
    for (path, _) in sources(&file) {
        for hit in pass_words(&std::fs::read_to_string(&path).unwrap()) {
            found.push(format!("{}:{hit}", path.display()));
        }
    }
    assert!(
        found.is_empty(),
        "src/file names a pass:\n{}",
        found.join("\n")
    );
}

#[test]
fn pass_words_are_whole_words() {
    assert_eq!(
        pass_words("a folder\nthe Expand node\nexpanded"),
        ["2: the Expand node"]
    );
}

/// The modules of `siblings` that a file of `src/file/` names in its code (not its comments or its
/// tests): `super::x`, `super::{x, y::z}`, `crate::file::x`.
fn sibling_imports(text: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let code: String = text
        .lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    for prefix in ["super::", "crate::file::"] {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let names: Vec<String> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(|item| ident(item.trim()))
                    .collect(),
                None => vec![ident(rest)],
            };
            out.extend(names.into_iter().filter(|n| siblings.contains(n)));
        }
    }
    out
}

/// A circle among `edges` (module to the modules it names), if there is one, as the path around it.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|p| p == at) {
            let mut found = path[start..].to_vec();
            found.push(at.to_string());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for next in edges.get(at).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

#[test]
fn the_byte_layers_modules_name_each_other_without_a_circle() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/file");
    // Each module of src/file: a file, or a folder of files (its mod.rs and its children).
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(&file).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let files = sources(&path).into_iter().map(|(p, _)| p).collect();
            modules.insert(name, files);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "mod" {
            modules.insert(name, vec![path]);
        }
    }
    let siblings: BTreeSet<String> = modules.keys().cloned().collect();
    let edges: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|(name, files)| {
            let mut named = BTreeSet::new();
            for p in files {
                named.extend(sibling_imports(
                    &std::fs::read_to_string(p).unwrap(),
                    &siblings,
                ));
            }
            named.remove(name);
            (name.clone(), named)
        })
        .collect();
    assert!(
        edges.get("list_edit").is_some_and(|n| n.contains("made")),
        "list_edit's imports not found: the scan is broken"
    );
    assert_eq!(
        circle(&edges),
        None,
        "modules of src/file name each other in a circle"
    );
}

#[test]
fn the_circle_check_finds_a_circle_and_passes_a_chain() {
    let siblings: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let named = sibling_imports(
        "use super::{a, b::X};\n// super::c\nuse crate::file::c::Y;\n#[cfg(test)]\nuse super::a;",
        &siblings,
    );
    assert_eq!(named, ["a", "b", "c"].map(String::from).into());
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(circle(&graph(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        circle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
}
