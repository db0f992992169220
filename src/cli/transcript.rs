//! What `cudash run` shares between scripts and notebooks: how it was asked
//! to run, statements shown with prompts, and where a transcript differs.

/// `--check`, `--save`, `--keep-going`.
pub struct Mode {
    pub check: bool,
    pub save: bool,
    pub keep_going: bool,
}

/// `>>> ` before the first line of a statement, `... ` before the rest; comments as they are.
pub fn prompted(text: &str) -> String {
    let mut out = String::new();
    let mut first = true;
    for line in text.lines() {
        if first && line.trim_start().starts_with('#') {
            out.push_str(line);
        } else if first {
            out.push_str(">>> ");
            out.push_str(line);
            first = false;
        } else {
            out.push_str("... ");
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Where two texts first differ: a few lines of each, `-` expected, `+` actual.
pub fn first_difference(expected: &str, actual: &str, indent: &str) -> String {
    let (el, al): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let first = el
        .iter()
        .zip(&al)
        .position(|(x, y)| x != y)
        .unwrap_or(el.len().min(al.len()));
    let mut out = format!("{indent}first difference at line {}:\n", first + 1);
    for l in el.iter().skip(first).take(5) {
        out.push_str(&format!("{indent}- {l}\n"));
    }
    for l in al.iter().skip(first).take(5) {
        out.push_str(&format!("{indent}+ {l}\n"));
    }
    out
}
