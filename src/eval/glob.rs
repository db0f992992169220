//! Python's `glob.glob(pathname, recursive=False)` (and `iglob`): the paths
//! that match a pattern of `*`, `?` and `[...]` per path component, `**`
//! any depth of directories when `recursive`; names starting with `.` only
//! where the pattern's component does too. Directories are listed in the
//! order the system gives (Python's order too: it does not sort).

use std::path::Path;

/// The paths matching `pattern`.
pub fn glob(pattern: &str, recursive: bool) -> Vec<String> {
    let absolute = pattern.starts_with('/');
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    let start = if absolute {
        "/".to_string()
    } else {
        String::new()
    };
    let mut out = Vec::new();
    walk(&start, &parts, recursive, &mut out);
    out
}

fn join(base: &str, name: &str) -> String {
    match base {
        "" => name.to_string(),
        b if b.ends_with('/') => format!("{b}{name}"),
        b => format!("{b}/{name}"),
    }
}

fn magic(part: &str) -> bool {
    part.contains(['*', '?', '['])
}

fn walk(base: &str, parts: &[&str], recursive: bool, out: &mut Vec<String>) {
    let Some((&part, rest)) = parts.split_first() else {
        if !base.is_empty() {
            out.push(base.to_string());
        }
        return;
    };
    let dir = if base.is_empty() { "." } else { base };
    if recursive && part == "**" {
        // Zero directories, then each directory below (not hidden ones).
        walk(base, rest, recursive, out);
        for name in names(dir) {
            let path = join(base, &name);
            if !name.starts_with('.') && Path::new(&path).is_dir() {
                walk(&path, parts, recursive, out);
            }
        }
        return;
    }
    if !magic(part) {
        let path = join(base, part);
        if (rest.is_empty() && Path::new(&path).exists()) || Path::new(&path).is_dir() {
            walk(&path, rest, recursive, out);
        }
        return;
    }
    for name in names(dir) {
        if name.starts_with('.') && !part.starts_with('.') {
            continue;
        }
        if matches(part.as_bytes(), name.as_bytes()) {
            let path = join(base, &name);
            if rest.is_empty() || Path::new(&path).is_dir() {
                walk(&path, rest, recursive, out);
            }
        }
    }
}

fn names(dir: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `fnmatch` of one component: `*` any run, `?` one character, `[abc]`,
/// `[a-z]`, `[!abc]` one of (or none of) a set.
fn matches(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|k| matches(rest, &s[k..])),
        Some((b'?', rest)) => !s.is_empty() && matches(rest, &s[1..]),
        Some((b'[', rest)) => match (set(rest), s.split_first()) {
            (Some((hit, after)), Some((&c, s_rest))) => hit(c) && matches(after, s_rest),
            (None, Some((&c, s_rest))) => c == b'[' && matches(rest, s_rest),
            _ => false,
        },
        Some((&c, rest)) => s.first() == Some(&c) && matches(rest, &s[1..]),
    }
}

/// A `[...]` set after its `[`: whether a byte is in it, and the pattern
/// after its `]` (None when it is never closed: then `[` is itself).
#[allow(clippy::type_complexity)]
fn set(p: &[u8]) -> Option<(Box<dyn Fn(u8) -> bool + '_>, &[u8])> {
    let (negate, body) = match p.first() {
        Some(b'!') => (true, &p[1..]),
        _ => (false, p),
    };
    // A `]` right after `[` (or `[!`) is a member.
    let close = body.iter().skip(1).position(|&c| c == b']')? + 1;
    let members = &body[..close];
    let hit = move |c: u8| {
        let mut k = 0;
        let mut found = false;
        while k < members.len() {
            if k + 2 < members.len() && members[k + 1] == b'-' {
                found |= members[k] <= c && c <= members[k + 2];
                k += 3;
            } else {
                found |= members[k] == c;
                k += 1;
            }
        }
        found != negate
    };
    Some((Box::new(hit), &body[close + 1..]))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn components_match_as_fnmatch() {
        for (p, s, want) in [
            ("*.txt", "a.txt", true),
            ("*.txt", "a.txt.bak", false),
            ("?.py", "a.py", true),
            ("?.py", "ab.py", false),
            ("[ab]*", "beta", true),
            ("[!ab]*", "beta", false),
            ("[a-c]x", "cx", true),
            ("[a-c]x", "dx", false),
            ("[]]x", "]x", true),
            ("[x", "[x", true),
            ("**", "anything", true),
        ] {
            assert_eq!(matches(p.as_bytes(), s.as_bytes()), want, "{p} {s}");
        }
    }
}
