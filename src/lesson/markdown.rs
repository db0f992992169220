//! Markdown as readable terminal text, for `cudash present`: headings stand
//! out, paragraphs and list items are wrapped to the width, code is set apart.
//! Covers what lessons use (headings, paragraphs, lists, quotes, fenced code,
//! `code`, **bold**, *emphasis*, [links](url)); anything else shows as written.

use nu_ansi_term::{Color, Style};

/// Renders `md` in `width` columns; with `color`, styled with ANSI codes.
pub fn render(md: &str, width: usize, color: bool) -> String {
    let width = width.max(20);
    let mut out = Vec::new();
    // The paragraph or list item being gathered, and its prefixes (first line, others).
    let mut para: Vec<&str> = Vec::new();
    let mut prefix = (String::new(), String::new());
    let mut in_code = false;
    let paint = |style: Style, s: &str| {
        if color {
            style.paint(s).to_string()
        } else {
            s.to_string()
        }
    };
    let flush = |para: &mut Vec<&str>, prefix: &mut (String, String), out: &mut Vec<String>| {
        if !para.is_empty() {
            let (first, rest) = std::mem::take(prefix);
            out.extend(wrap(&para.join(" "), width, &first, &rest, color));
            para.clear();
        }
    };
    for line in md.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            flush(&mut para, &mut prefix, &mut out);
            in_code = !in_code;
            continue;
        }
        if in_code {
            out.push(paint(Color::Cyan.normal(), &format!("    {line}")));
            continue;
        }
        if trimmed.is_empty() {
            flush(&mut para, &mut prefix, &mut out);
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
        } else if let Some((level, title)) = heading(trimmed) {
            flush(&mut para, &mut prefix, &mut out);
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
            let plain = plain_inline(title);
            let style = if level == 1 {
                Style::new().bold().fg(Color::Green)
            } else {
                Style::new().bold()
            };
            out.push(paint(style, &plain));
            if level <= 2 {
                let rule = if level == 1 { "═" } else { "─" };
                let n = plain.chars().count().min(width);
                out.push(paint(Style::new().dimmed(), &rule.repeat(n)));
            }
        } else if let Some((marker, item)) = list_item(trimmed) {
            flush(&mut para, &mut prefix, &mut out);
            let indent = line.len() - trimmed.len();
            let first = format!("{}{marker} ", " ".repeat(indent + 2));
            let rest = " ".repeat(first.chars().count());
            prefix = (first, rest);
            para.push(item);
        } else if let Some(quote) = trimmed.strip_prefix('>') {
            flush(&mut para, &mut prefix, &mut out);
            let bar = paint(Style::new().dimmed(), "  │ ");
            out.extend(
                wrap(quote.trim_start(), width - 4, "", "", color)
                    .into_iter()
                    .map(|l| format!("{bar}{l}")),
            );
        } else if para.is_empty() && (line.starts_with("    ") || line.starts_with('\t')) {
            // Indented code (it cannot interrupt a paragraph or an item).
            out.push(paint(Color::Cyan.normal(), line));
        } else {
            // A paragraph line, or the next line of a list item.
            para.push(trimmed);
        }
    }
    flush(&mut para, &mut prefix, &mut out);
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out.join("\n")
}

fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    let rest = &line[level..];
    ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with(' ')))
        .then(|| (level, rest.trim()))
}

fn list_item(line: &str) -> Option<(String, &str)> {
    for bullet in ["- ", "* ", "+ "] {
        if let Some(item) = line.strip_prefix(bullet) {
            return Some(("•".into(), item));
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        if let Some(item) = line[digits..].strip_prefix(". ") {
            return Some((line[..digits + 1].to_string(), item));
        }
    }
    None
}

/// One run of text with one style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Span {
    Plain,
    Code,
    Strong,
    Emphasis,
}

/// Splits inline markdown into styled runs; links become `text (url)`.
fn inline(s: &str) -> Vec<(Span, String)> {
    let mut runs: Vec<(Span, String)> = Vec::new();
    let mut plain = String::new();
    let mut rest = s;
    let take = |plain: &mut String, runs: &mut Vec<(Span, String)>| {
        if !plain.is_empty() {
            runs.push((Span::Plain, std::mem::take(plain)));
        }
    };
    while let Some(c) = rest.chars().next() {
        let styled = [
            ("`", Span::Code),
            ("**", Span::Strong),
            ("*", Span::Emphasis),
            ("_", Span::Emphasis),
        ]
        .into_iter()
        .find_map(|(mark, span)| {
            let body = rest.strip_prefix(mark)?;
            let end = body.find(mark)?;
            // `_` inside a word (snake_case) is not emphasis.
            let word_inside =
                mark == "_" && plain.chars().last().is_some_and(char::is_alphanumeric);
            (end > 0 && !word_inside).then(|| (span, &body[..end], mark.len() * 2 + end))
        });
        if let Some((span, body, len)) = styled {
            take(&mut plain, &mut runs);
            runs.push((span, body.to_string()));
            rest = &rest[len..];
            continue;
        }
        if c == '[' {
            if let Some((text, url, len)) = link(rest) {
                take(&mut plain, &mut runs);
                runs.extend(inline(text));
                runs.push((Span::Plain, format!(" ({url})")));
                rest = &rest[len..];
                continue;
            }
        }
        plain.push(c);
        rest = &rest[c.len_utf8()..];
    }
    take(&mut plain, &mut runs);
    runs
}

/// `[text](url)` at the start of `s`: (text, url, length).
fn link(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find("](")?;
    let end = s[close + 2..].find(')')? + close + 2;
    Some((&s[1..close], &s[close + 2..end], end + 1))
}

fn plain_inline(s: &str) -> String {
    inline(s).into_iter().map(|(_, t)| t).collect()
}

fn paint_span(span: Span, s: &str, color: bool) -> String {
    match (span, color) {
        (Span::Code, false) => format!("`{s}`"),
        (Span::Plain, _) | (_, false) => s.to_string(),
        (Span::Code, true) => Color::Yellow.paint(s).to_string(),
        (Span::Strong, true) => Style::new().bold().paint(s).to_string(),
        (Span::Emphasis, true) => Style::new().italic().paint(s).to_string(),
    }
}

/// Wraps inline markdown to `width` columns, `first` before the first line
/// and `rest` before the others. Code spans are never broken.
fn wrap(text: &str, width: usize, first: &str, rest: &str, color: bool) -> Vec<String> {
    // Words with their style, and whether a space came before them.
    let mut words: Vec<(Span, String, bool)> = Vec::new();
    let mut space = false;
    for (span, run) in inline(text) {
        if span == Span::Code {
            words.push((span, run, space));
            space = false;
            continue;
        }
        for (i, w) in run.split(' ').enumerate() {
            space |= i > 0;
            if !w.is_empty() {
                words.push((span, w.to_string(), space));
                space = false;
            }
        }
    }
    let visible =
        |span: Span, w: &str| w.chars().count() + if span == Span::Code && !color { 2 } else { 0 };
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut used = first.chars().count();
    let mut empty = true;
    for (span, w, space) in words {
        let len = visible(span, &w);
        if !empty && space && used + 1 + len > width {
            lines.push(std::mem::take(&mut line));
            line.push_str(rest);
            used = rest.chars().count();
            empty = true;
        }
        if !empty && space {
            line.push(' ');
            used += 1;
        }
        line.push_str(&paint_span(span, &w, color));
        used += len;
        empty = false;
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn headings_paragraphs_and_lists() {
        let md = "# Devices\n\nEvery tensor lives on a **device**: `cpu` or\n`cuda:N`.\n\n\
                  - one\n- two is a much longer item\n  that has to wrap around\n\n\
                  ```\nx = ones(2)\n```\n> note this\n\nSee [the docs](https://example.org).";
        let text = render(md, 40, false);
        let expected = "Devices\n═══════\n\n\
            Every tensor lives on a device: `cpu` or\n`cuda:N`.\n\n  \
            • one\n  \
            • two is a much longer item that has\n    to wrap around\n\n    \
            x = ones(2)\n  \
            │ note this\n\n\
            See the docs (https://example.org).";
        assert_eq!(text, expected);
    }

    #[test]
    fn colour_styles_and_snake_case() {
        let text = render(
            "Use `empty_cache` and *stream* syncs; zeros_like_this stays.",
            80,
            true,
        );
        assert!(text.contains("\x1b[33mempty_cache\x1b[0m"), "{text:?}");
        assert!(text.contains("\x1b[3mstream\x1b[0m"), "{text:?}");
        assert!(text.contains("zeros_like_this"), "{text:?}");
        assert_eq!(
            render("1. first\n2. second", 80, false),
            "  1. first\n  2. second"
        );
    }

    #[test]
    fn never_panics_on_odd_input() {
        for s in [
            "`",
            "**",
            "[",
            "[a](",
            "#",
            "######",
            "####### x",
            "* ",
            "1.",
            "_x_",
            "é`é`é",
        ] {
            let _ = render(s, 20, true);
            let _ = render(s, 20, false);
        }
    }
}
