//! Syntax colours for the input line and device colours for tags. Highlighting
//! never changes the text's display width: it only adds ANSI colour codes.

use nu_ansi_term::{Color, Style};

use crate::lang::token::Kw;
use crate::vocab::DType;

/// Each device its own colour, the same in input and in tags.
pub fn device_style(device: &str) -> Style {
    match device
        .strip_prefix("cuda:")
        .and_then(|n| n.parse::<usize>().ok())
    {
        Some(i) => {
            const PALETTE: [Color; 6] = [
                Color::Green,
                Color::Blue,
                Color::Magenta,
                Color::Cyan,
                Color::Yellow,
                Color::Red,
            ];
            PALETTE[i % PALETTE.len()].bold()
        }
        None if device == "cuda" => Color::Green.normal(),
        None => Color::White.dimmed(),
    }
}

/// Colours a line of cudash source.
pub fn highlight(line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    let b = line.as_bytes();
    let mut i = 0;
    while i < line.len() {
        let c = b[i];
        let start = i;
        if c == b'#' {
            out.push_str(&Color::DarkGray.italic().paint(&line[i..]).to_string());
            break;
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < line.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(line.len());
            out.push_str(&Color::Green.paint(&line[start..i]).to_string());
        } else if c.is_ascii_digit() {
            while i < line.len()
                && (b[i].is_ascii_alphanumeric() || (b[i] == b'.' && b.get(i + 1) != Some(&b'.')))
            {
                i += 1;
            }
            out.push_str(&Color::Cyan.paint(&line[start..i]).to_string());
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < line.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let after_dot = start > 0 && b[start - 1] == b'.';
            let word = &line[start..i];
            if word == "cuda"
                && b.get(i) == Some(&b':')
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            {
                i += 1;
                while i < line.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let word = &line[start..i];
            let style = if after_dot {
                None
            } else if word == "cpu" || word.starts_with("cuda") {
                Some(device_style(word))
            } else if Kw::from_word(word).is_some() || word == "stream" {
                Some(Style::new().bold())
            } else if DType::from_name(word).is_some() {
                Some(Color::Yellow.normal())
            } else if matches!(word, "true" | "false" | "none") {
                Some(Color::Cyan.normal())
            } else {
                None
            };
            match style {
                Some(s) => out.push_str(&s.paint(word).to_string()),
                None => out.push_str(word),
            }
        } else {
            let ch = line[i..].chars().next().unwrap_or(' ');
            i += ch.len_utf8();
            out.push(ch);
        }
    }
    out
}

/// Colours every device tag (`@cuda:1`, `@cpu`) in output text.
pub fn color_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" @") {
        out.push_str(&rest[..at + 1]);
        let tail = &rest[at + 1..];
        let len = tail[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == ':'))
            .map_or(tail.len(), |n| n + 1);
        let tag = &tail[..len];
        let device = &tag[1..];
        if device == "cpu" || device.starts_with("cuda:") {
            out.push_str(&device_style(device).paint(tag).to_string());
        } else {
            out.push_str(tag);
        }
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(s: &str) -> String {
        crate::diag::strip_ansi(s)
    }

    #[test]
    fn highlighting_keeps_the_text() {
        for line in [
            "x = [1., 2.].to(cuda:1)  # move",
            "with device(1) { a = randn(2, dtype=f16, device=cuda) }",
            "s = 'unterminated",
            "for i in 0..10 { y = x @ x.T }",
            "é = \"ünïcode\"",
        ] {
            assert_eq!(strip(&highlight(line)), line);
        }
    }

    #[test]
    fn tags_get_device_colours() {
        let t = color_tags("[1., 2.]  f32[2] @cuda:1\n[3.]  f32[1] @cpu pinned");
        assert_eq!(
            strip(&t),
            "[1., 2.]  f32[2] @cuda:1\n[3.]  f32[1] @cpu pinned"
        );
        assert!(t.contains(&device_style("cuda:1").paint("@cuda:1").to_string()));
    }
}
