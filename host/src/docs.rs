//! The docs the tests keep true. README.md and every Markdown file under docs/ are read, and
//! - every relative link names a file that exists, and every `#anchor` a heading there;
//! - every command line starting with `queens` in a fenced code block parses with this
//!   binary's own parser (nothing runs);
//! - every row of README.md's headline figures names the command that measures it;
//! - every command's `--help` ends with examples that parse the same way.
//!
//! A failure names the file and the line, so a renamed heading or option is found here
//! rather than by a reader.

use crate::Cli;
use clap::{CommandFactory, Parser};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root: the host crate's parent.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the host crate lies in the workspace")
        .to_path_buf()
}

/// README.md and every `.md` file under docs/, in a fixed order.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut docs = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut docs);
    docs.sort();
    docs
}

/// A document's lines, each with its number and whether it lies in a fenced code block (the
/// fences themselves count as inside).
fn lines(text: &str) -> Vec<(usize, &str, bool)> {
    let mut fenced = false;
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let t = l.trim_start();
            let fence = t.starts_with("```") || t.starts_with("~~~");
            if fence {
                fenced = !fenced;
            }
            (i + 1, l, fenced || fence)
        })
        .collect()
}

/// `text` without its inline code spans: a link inside backticks is no link.
fn without_code(text: &str) -> String {
    text.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The anchor GitHub gives a heading: its text lower-cased, letters, digits, spaces, `-` and
/// `_` kept, spaces turned into hyphens. Code spans and link targets are not part of the text.
pub fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // [words](target) reads as "words".
    while let Some(open) = rest.find("](") {
        let close = rest[open..].find(')').map_or(rest.len(), |c| open + c + 1);
        text.push_str(&rest[..open]);
        rest = &rest[close..];
    }
    text.push_str(rest);
    text.chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a document: one per heading, a repeated one numbered as GitHub does.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, l, fenced) in lines(text) {
        let t = l.trim_start();
        if fenced || !t.starts_with('#') {
            continue;
        }
        let heading = t.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading.trim());
        let mut anchor = base.clone();
        let mut k = 0;
        while seen.contains(&anchor) {
            k += 1;
            anchor = format!("{base}-{k}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of a line's inline links and images, `[text](target "title")`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code(line);
    let mut out = Vec::new();
    let mut rest = line.as_str();
    while let Some(open) = rest.find("](") {
        rest = &rest[open + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        out.push(target.trim_matches(|c| c == '<' || c == '>').to_string());
        rest = &rest[end..];
    }
    out
}

/// Whether a link leaves the repository (a web address, mail).
fn external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// Every broken relative link and anchor of one document, as "file:line: why".
fn broken_links(doc: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(doc).expect("a document reads");
    let shown = doc.strip_prefix(root()).unwrap_or(doc).display().to_string();
    let mut broken = Vec::new();
    for (number, l, fenced) in lines(&text) {
        if fenced {
            continue;
        }
        for target in link_targets(l) {
            if target.is_empty() || external(&target) {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                doc.to_path_buf()
            } else {
                doc.parent().expect("a document has a folder").join(path)
            };
            if !file.exists() {
                broken.push(format!("{shown}:{number}: {target}: no such file"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if file.extension().is_none_or(|x| x != "md") {
                continue;
            }
            let there = std::fs::read_to_string(&file).expect("a linked document reads");
            if !anchors(&there).contains(anchor) {
                broken.push(format!("{shown}:{number}: {target}: no heading with that anchor"));
            }
        }
    }
    broken
}

/// The words of a shell command line: quotes and backslashes as a shell reads them; the line
/// ends at a comment or at a pipe, a `;`, `&&` or a redirection (the rest is not ours).
pub fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            '#' if word.is_none() => break,
            '|' | ';' | '&' | '>' | '<' if word.is_none() => break,
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// Why `line` (a `queens` command line) does not parse, or None when it does.
fn parse_error(line: &str) -> Option<String> {
    match Cli::try_parse_from(words(line)) {
        Ok(_) => None,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            None
        }
        Err(e) => Some(e.to_string().lines().next().unwrap_or("").to_string()),
    }
}

/// Whether a line is a `queens` command.
fn is_queens(line: &str) -> bool {
    let t = line.trim_start();
    t == "queens" || t.starts_with("queens ")
}

/// Every `queens` command line in a document's code blocks that does not parse.
fn bad_commands(doc: &Path) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(doc).expect("a document reads");
    let shown = doc.strip_prefix(root()).unwrap_or(doc).display().to_string();
    let (mut checked, mut bad) = (0, Vec::new());
    // A command continued with a backslash is one line, named by its first.
    let mut pending: Option<(usize, String)> = None;
    for (number, l, fenced) in lines(&text) {
        if !fenced {
            pending = None;
            continue;
        }
        let (first, joined) = match pending.take() {
            Some((n, mut so_far)) => {
                so_far.push(' ');
                so_far.push_str(l);
                (n, so_far)
            }
            None => (number, l.to_string()),
        };
        if let Some(head) = joined.strip_suffix('\\') {
            pending = Some((first, head.to_string()));
            continue;
        }
        if is_queens(&joined) {
            checked += 1;
            if let Some(why) = parse_error(&joined) {
                bad.push(format!("{shown}:{first}: {}: {why}", joined.trim()));
            }
        }
    }
    (checked, bad)
}

#[test]
fn links_and_anchors_resolve() {
    let docs = documents();
    assert!(docs.len() > 5, "README.md and docs/ found: {docs:?}");
    let broken: Vec<String> = docs.iter().flat_map(|d| broken_links(d)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn documented_commands_parse() {
    let (mut checked, mut bad) = (0, Vec::new());
    for d in documents() {
        let (c, b) = bad_commands(&d);
        checked += c;
        bad.extend(b);
    }
    assert!(
        checked > 20,
        "only {checked} queens command lines found in code blocks"
    );
    assert!(bad.is_empty(), "commands that do not parse:\n{}", bad.join("\n"));
}

/// The rows of README.md's "Headline figures" table, each with its line number.
fn headline_rows(readme: &str) -> Vec<(usize, String)> {
    let mut rows = Vec::new();
    let mut inside = false;
    for (number, l, fenced) in lines(readme) {
        if fenced {
            continue;
        }
        if let Some(heading) = l.strip_prefix("## ") {
            inside = slug(heading) == "headline-figures";
            continue;
        }
        if inside && l.starts_with('|') {
            rows.push((number, l.to_string()));
        }
    }
    // The header and the separator are no figures.
    rows.into_iter().skip(2).collect()
}

#[test]
fn headline_figures_name_their_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md reads");
    let rows = headline_rows(&readme);
    assert!(
        rows.len() >= 5,
        "README.md's headline figures: {} rows",
        rows.len()
    );
    let mut bad = Vec::new();
    for (number, row) in rows {
        // Code spans are the odd pieces between backticks.
        let commands: Vec<&str> = row
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|c| is_queens(c) || c.starts_with("cargo "))
            .collect();
        if commands.is_empty() {
            bad.push(format!(
                "README.md:{number}: a headline figure without its command"
            ));
        }
        for c in commands.iter().filter(|c| is_queens(c)) {
            if let Some(why) = parse_error(c) {
                bad.push(format!("README.md:{number}: {c}: {why}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Commands whose examples are still to be written; their examples are checked when they
/// have some.
const EXAMPLES_ELSEWHERE: &[&str] = &[];

#[test]
fn every_help_ends_with_examples_that_parse() {
    fn visit(cmd: &clap::Command, path: &str, bad: &mut Vec<String>) {
        let help = cmd.get_after_help().map(|h| h.to_string()).unwrap_or_default();
        let examples: Vec<&str> = help.lines().filter(|l| is_queens(l)).collect();
        let elsewhere = EXAMPLES_ELSEWHERE.iter().any(|e| path.starts_with(e));
        if examples.is_empty() && !elsewhere {
            bad.push(format!("{path} --help: no examples after the help"));
        }
        for e in examples {
            if let Some(why) = parse_error(e) {
                bad.push(format!("{path} --help: {}: {why}", e.trim()));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            visit(sub, &format!("{path} {}", sub.get_name()), bad);
        }
    }
    let mut bad = Vec::new();
    visit(&Cli::command(), "queens", &mut bad);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn slugs_and_words_read_as_github_and_a_shell_do() {
    assert_eq!(slug("Against the Queens@TUD unit"), "against-the-queenstud-unit");
    assert_eq!(slug("The walk's orientation"), "the-walks-orientation");
    assert_eq!(slug("2. Check the board"), "2-check-the-board");
    assert_eq!(slug("The `queens` command"), "the-queens-command");
    assert_eq!(slug("See [the guide](x.md#y)"), "see-the-guide");
    assert_eq!(
        words(r#"queens hdl report --nextpnr-args="--placer-heap-alpha 0.03" # a comment"#),
        [
            "queens",
            "hdl",
            "report",
            "--nextpnr-args=--placer-heap-alpha 0.03"
        ]
    );
    assert_eq!(words("queens run 14 | tail -1"), ["queens", "run", "14"]);
    assert_eq!(
        words("queens db stats 'a b#c'"),
        ["queens", "db", "stats", "a b#c"]
    );
    // A headline's own anchor and a numbered repeat.
    let a = anchors("# A\n## B c\n```\n# not a heading\n```\n## B c\n");
    assert_eq!(a, BTreeSet::from(["a".into(), "b-c".into(), "b-c-1".into()]));
}
