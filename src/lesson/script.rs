//! A script read as a lesson: a run of comment lines on their own is
//! narration (shown like markdown), and the code between blank lines is a
//! cell. A blank line inside an unfinished statement (an open `{`, or a
//! Python block whose next line is indented) does not end its cell.

use super::Cell;
use crate::lang::{completeness, ends_in_block, Completeness};

pub fn cells(src: &str) -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut chunk: Vec<&str> = Vec::new();
    let lines: Vec<&str> = src.lines().collect();
    for (n, &line) in lines.iter().enumerate() {
        let next = lines[n..].iter().find(|l| !l.trim().is_empty());
        // A Python block goes on past a blank line while its lines do.
        let indented = next.is_some_and(|l| l.starts_with([' ', '\t']));
        if line.trim().is_empty() && !chunk.is_empty() && !unfinished(&chunk, indented) {
            cells.extend(split(&chunk));
            chunk.clear();
        } else if !line.trim().is_empty() || !chunk.is_empty() {
            chunk.push(line);
        }
    }
    cells.extend(split(&chunk));
    cells
}

fn unfinished(chunk: &[&str], next_indented: bool) -> bool {
    let code = chunk.join("\n");
    match completeness(&code) {
        Completeness::Incomplete { .. } if ends_in_block(&code) => next_indented,
        Completeness::Incomplete { .. } => true,
        _ => false,
    }
}

fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// A chunk's leading comment lines are narration; the rest (if any) is code.
fn split(chunk: &[&str]) -> Vec<Cell> {
    let narration = chunk.iter().take_while(|l| is_comment(l)).count();
    let mut out = Vec::new();
    if narration > 0 {
        let text: Vec<&str> = chunk[..narration]
            .iter()
            .map(|l| {
                let l = l.trim_start().trim_start_matches('#');
                l.strip_prefix(' ').unwrap_or(l)
            })
            .collect();
        out.push(Cell::markdown(text.join("\n")));
    }
    let code = chunk[narration..].join("\n");
    if !code.trim().is_empty() {
        out.push(Cell::code(code.trim_end()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::CellKind::{Code, Markdown};

    fn kinds(cells: &[Cell]) -> Vec<(crate::lesson::CellKind, &str)> {
        cells.iter().map(|c| (c.kind, c.source.as_str())).collect()
    }

    #[test]
    fn comments_narrate_and_blank_lines_split() {
        let src = "# Placement\n# where tensors live\n\nx = ones(2)\ny = x + 1\n\n\
                   # Now on the GPU:\nz = x.to(cuda)\n\nfor i in 0..2 {\n\n  print(i)\n}\n";
        assert_eq!(
            kinds(&cells(src)),
            vec![
                (Markdown, "Placement\nwhere tensors live"),
                (Code, "x = ones(2)\ny = x + 1"),
                (Markdown, "Now on the GPU:"),
                (Code, "z = x.to(cuda)"),
                (Code, "for i in 0..2 {\n\n  print(i)\n}"),
            ]
        );
    }

    #[test]
    fn empty_and_comment_only_scripts() {
        assert!(cells("").is_empty());
        assert!(cells("\n\n\n").is_empty());
        assert_eq!(kinds(&cells("#only\n")), vec![(Markdown, "only")]);
    }
}
