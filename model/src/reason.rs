//! A recorded reason in a reader's words. The collector records why an
//! experiment, a mode or a point did not run as it found it, OS errors and
//! install hints included (`strace is not installed (Debian: apt-get
//! install strace; ...)`, `perf_event_open(...) failed: No such file or
//! directory (os error 2)`): right for its terminal and for the run file,
//! wrong in a chart's legend or a chapter's sentence. [`in_words`] is the
//! one place that turns such text into what a reader is told; the run
//! file keeps the raw text.

/// What a reader must never find in a chapter, a chart's note or its
/// legend: an OS error, a raw system call, an install hint or a flag for
/// the person at the terminal (the run file keeps them; [`in_words`] says
/// them to a reader). The tests of the book and of the charts check it.
pub const RAW_MARKERS: [&str; 8] = [
    "(os error",
    "No such file or directory",
    "perf_event_open(",
    "apt-get",
    "install-tools",
    "--reserve-hugepages",
    "--browser",
    "ENOENT (",
];

/// Why a perf counter could not be opened, from its open error
/// (`perf_event_open(...) failed: No such file or directory (os error 2)`),
/// in words for running prose.
pub fn counter_failure(detail: &str) -> &'static str {
    let said = |words: &[&str]| words.iter().any(|w| detail.contains(w));
    if said(&["no PMU"]) {
        "no hardware counters are exposed to this system (no PMU)"
    } else if said(&["ENOENT", "No such file"]) {
        "the kernel offers no such event on this CPU"
    } else if said(&["EACCES", "EPERM", "denied", "not permitted"]) {
        "the kernel refused the request: the perf_event_paranoid setting or a security policy forbids it"
    } else if said(&["ENOSYS"]) {
        "perf_event_open itself is unavailable, as under some container and seccomp policies"
    } else if said(&["EOPNOTSUPP", "not supported"]) {
        "the kernel does not support this event here"
    } else {
        "the kernel returned an error (the run file has it)"
    }
}

/// Text that is an error as the system wrote it, not words for a reader:
/// the `(os error N)` of a Rust I/O error, an errno's number, a raw system
/// call. (An errno's name, `ENOMEM`, is the book's word for an error, as
/// `MADV_COLLAPSE: ENOMEM`.)
const RAW: &[&str] = &["os error", "errno", "perf_event_open("];

/// The error messages a reason most often ends in, in words
/// (`failed: Cannot allocate memory` is `failed: out of memory`).
const PLAIN: &[(&str, &str)] = &[
    ("Cannot allocate memory", "out of memory"),
    ("Permission denied", "not permitted"),
    ("Operation not permitted", "not permitted"),
    ("No such file or directory", "not found"),
];

/// An instruction for the person at the terminal (a package to install, a
/// flag to pass), which the book gives in its own place.
const INSTRUCTION: &[&str] = &[
    "apt-get",
    "apt install",
    "dnf install",
    "yum install",
    "pacman -S",
    "zypper",
    "brew install",
    "pip install",
    "cargo install",
    "install-tools",
    "sudo ",
];

/// When nothing of an error's text can be shown.
const ERROR: &str = "the collector recorded an error (the run file has it)";

/// A recorded reason (why an experiment, a mode or a point did not run),
/// or a chart's note that quotes one, as a reader is told it:
///
/// - a perf counter that would not open (`no PMU (perf_event_open(...)
///   failed: ...)`) is said as [`counter_failure`] says it;
/// - a parenthesis that holds an OS error or an install hint is left out
///   (`strace is not installed (Debian: apt-get install strace; ...)` is
///   `strace is not installed`);
/// - a clause (between `; ` or `. `) that tells the person at the terminal
///   what to run (`as root, --reserve-hugepages reserves one ...`) is left
///   out: the chapters say how, in their own place;
/// - any other error text left ends the clause, which then says the run
///   file has the error.
///
/// Text with none of these comes back as it was, so the words it gives
/// come back unchanged too, and a note made of several reasons can be
/// given whole.
pub fn in_words(raw: &str) -> String {
    let raw = raw.trim();
    let mut changed = false;
    let mut kept: Vec<(String, &'static str)> = Vec::new();
    for (clause, separator) in clauses(raw) {
        match clause_in_words(&clause) {
            Some(words) => {
                changed |= words != clause;
                kept.push((words, separator));
            }
            // Left out: the clause before it ends as this one did (a
            // sentence's `. `, or nothing at the end).
            None => {
                changed = true;
                if let Some(last) = kept.last_mut() {
                    last.1 = separator;
                }
            }
        }
    }
    if !changed {
        return raw.to_string();
    }
    let mut out = String::new();
    for (clause, separator) in &kept {
        out.push_str(clause);
        out.push_str(separator);
    }
    let mut out = out
        .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ';' | ',' | ':' | '.'))
        .to_string();
    if out.is_empty() {
        return ERROR.to_string();
    }
    if raw.ends_with('.') {
        out.push('.');
    }
    out
}

/// `text` cut into its clauses at `; ` and `. ` outside parentheses, each
/// with the separator that follows it (none after the last).
fn clauses(text: &str) -> Vec<(String, &'static str)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut clause = String::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let next_space = chars.get(i + 1) == Some(&' ');
        if depth == 0 && next_space && (c == ';' || c == '.') {
            out.push((
                std::mem::take(&mut clause),
                if c == ';' { "; " } else { ". " },
            ));
            i += 2;
            continue;
        }
        clause.push(c);
        i += 1;
    }
    out.push((clause, ""));
    out
}

/// One clause in words; `None` to leave it out.
fn clause_in_words(clause: &str) -> Option<String> {
    // A counter that would not open: what kind of failure, from the start
    // of its error to the end of the clause.
    if let Some(at) = outside_parentheses(clause, &["no PMU", "perf_event_open("]) {
        let (before, error) = split_chars(clause, at);
        return Some(format!("{before}{}", counter_failure(&error)));
    }
    let clause = plain(&without_raw_parentheses(clause));
    if INSTRUCTION.iter().any(|m| clause.contains(m)) || flag(&clause) {
        return None;
    }
    match first_raw(&clause) {
        None => Some(clause),
        Some(at) => {
            let (before, _) = split_chars(&clause, at);
            let before = before
                .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | '('));
            Some(if before.is_empty() {
                ERROR.to_string()
            } else {
                format!("{before} (the run file has the error)")
            })
        }
    }
}

/// `text` with the errors of [`PLAIN`] in words.
fn plain(text: &str) -> String {
    let mut out = text.to_string();
    for (error, words) in PLAIN {
        while let Some(at) = error_at(&out, error) {
            let (before, rest) = split_chars(&out, at);
            let after: String = rest.chars().skip(error.chars().count()).collect();
            out = format!("{before}{words}{after}");
        }
    }
    out
}

/// `text` split at character `at`.
fn split_chars(text: &str, at: usize) -> (String, String) {
    (
        text.chars().take(at).collect(),
        text.chars().skip(at).collect(),
    )
}

/// Where the first of `markers` starts outside parentheses, in characters.
fn outside_parentheses(text: &str, markers: &[&str]) -> Option<usize> {
    let chars: Vec<char> = text.chars().collect();
    let mut depth = 0usize;
    for (i, &c) in chars.iter().enumerate() {
        if depth == 0 && markers.iter().any(|m| starts_with(&chars[i..], m)) {
            return Some(i);
        }
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn starts_with(chars: &[char], marker: &str) -> bool {
    let mut rest = chars.iter();
    marker.chars().all(|m| rest.next() == Some(&m))
}

/// `text` without the parenthesized parts (nested ones included) that hold
/// an error or an instruction, and the space before each.
fn without_raw_parentheses(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '(' {
            // The group's end: its closing parenthesis, or the end of the
            // text when it has none.
            let mut depth = 0usize;
            let mut end = chars.len();
            for (j, &c) in chars.iter().enumerate().skip(i) {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = j + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let group: String = chars[i..end].iter().collect();
            let raw = first_raw(&group).is_some()
                || INSTRUCTION.iter().any(|m| group.contains(m))
                || flag(&group);
            if raw {
                while out.ends_with(' ') {
                    out.pop();
                }
            } else {
                out.push_str(&group);
            }
            i = end;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Whether `text` names a command-line flag (`--reserve-hugepages`).
fn flag(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).enumerate().any(|(i, w)| {
        w[0] == '-'
            && w[1] == '-'
            && w[2].is_ascii_lowercase()
            && (i == 0 || !chars[i - 1].is_alphanumeric() && chars[i - 1] != '-')
    })
}

/// Where the first error text starts, in characters.
fn first_raw(text: &str) -> Option<usize> {
    RAW.iter().filter_map(|m| error_at(text, m)).min()
}

/// Where `error` first starts in `text`, in characters.
fn error_at(text: &str, error: &str) -> Option<usize> {
    let chars: Vec<char> = text.chars().collect();
    (0..chars.len()).find(|&i| starts_with(&chars[i..], error))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reasons as recorded runs have them.
    const STRACE: &str = "strace is not installed (Debian: apt-get install strace; scripts/install-tools --browser installs it)";
    const NO_PMU: &str = "skipped: no PMU (perf_event_open(PERF_COUNT_HW_CPU_CYCLES, user only) failed: No such file or directory (os error 2))";
    const DTLB: &str = "perf_event_open(dTLB read misses, user space only) failed: ENOENT (No such file or directory (os error 2))";
    const GIGANTIC: &str = "no 1 GiB pages are reserved on this machine (the 1 GiB pool's nr_hugepages is 0), and MAP_HUGETLB maps only reserved ones; as root, --reserve-hugepages reserves one and puts it back afterwards";
    const NUMA: &str =
        "one NUMA node (node 0: CPUs 0-1, 13.2 GiB): first-touch placement needs two or more";
    const THP: &str = "THP enabled=never: MADV_HUGEPAGE cannot obtain huge pages";

    fn raw(text: &str) -> bool {
        first_raw(text).is_some() || INSTRUCTION.iter().any(|m| text.contains(m)) || flag(text)
    }

    #[test]
    fn an_install_hint_and_an_os_error_are_left_out() {
        assert_eq!(in_words(STRACE), "strace is not installed");
        assert_eq!(
            in_words(NO_PMU),
            "skipped: no hardware counters are exposed to this system (no PMU)"
        );
        assert_eq!(
            in_words(DTLB),
            "the kernel offers no such event on this CPU"
        );
        assert_eq!(
            in_words(GIGANTIC),
            "no 1 GiB pages are reserved on this machine (the 1 GiB pool's nr_hugepages is 0), and MAP_HUGETLB maps only reserved ones"
        );
        assert_eq!(
            in_words("failed: Cannot allocate memory (os error 12)"),
            "failed: out of memory"
        );
        assert_eq!(
            in_words("open failed: No such file or directory (os error 2)"),
            "open failed: not found"
        );
        assert_eq!(
            in_words("read failed: errno 5"),
            "read failed (the run file has the error)"
        );
        assert_eq!(in_words("os error 5"), ERROR);
        assert_eq!(in_words("--reserve-hugepages"), ERROR);
    }

    #[test]
    fn words_for_a_reader_stay_as_they_are() {
        for plain in [
            NUMA,
            THP,
            "",
            "median of 3 repetitions",
            "AMD EPYC 9R14.",
            // An errno's name is the book's word for an error.
            "33% backed by huge pages; MADV_COLLAPSE: ENOMEM",
        ] {
            assert_eq!(in_words(plain), plain);
        }
    }

    #[test]
    fn a_note_of_several_reasons_is_said_clause_by_clause() {
        let note = format!(
            "this run: {STRACE}. 4 KiB pages: {NO_PMU}. 1 GiB pages skipped: {GIGANTIC}. {NUMA}."
        );
        let said = in_words(&note);
        assert_eq!(
            said,
            format!(
                "this run: strace is not installed. 4 KiB pages: skipped: no hardware counters are \
                 exposed to this system (no PMU). 1 GiB pages skipped: no 1 GiB pages are reserved \
                 on this machine (the 1 GiB pool's nr_hugepages is 0), and MAP_HUGETLB maps only \
                 reserved ones. {NUMA}."
            )
        );
        assert!(!raw(&said), "{said}");
    }

    #[test]
    fn its_words_come_back_unchanged() {
        for text in [
            STRACE,
            NO_PMU,
            DTLB,
            GIGANTIC,
            NUMA,
            THP,
            "os error",
            "x (os error 38",
        ] {
            let once = in_words(text);
            assert_eq!(in_words(&once), once, "{text}");
            assert!(!raw(&once), "{text}: {once}");
        }
        for detail in [NO_PMU, DTLB, "EACCES", "ENOSYS", "EOPNOTSUPP", "EBUSY"] {
            let words = counter_failure(detail);
            assert_eq!(in_words(words), words);
        }
    }
}
