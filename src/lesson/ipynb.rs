//! Jupyter notebooks (nbformat 4) as JSON: the cells, the outputs saved with
//! them, and fresh outputs written back the way Jupyter writes notebooks
//! (one-space indent, sorted keys, text as lists of lines) so that a lesson
//! saved by `cudash run --save` diffs cleanly against one saved by Jupyter.
//! Everything else in the file (metadata, cell ids, attachments) is kept.

use serde_json::{json, Value};

use super::multiline::text;
use super::{outputs, Cell, CellKind, CellOutput};

/// The tag that marks a cell whose error is part of the lesson (as in nbclient).
pub const RAISES: &str = "raises-exception";

#[derive(Debug, Clone)]
pub struct Notebook {
    json: Value,
}

impl Notebook {
    pub fn parse(text: &str) -> Result<Notebook, String> {
        let json: Value = serde_json::from_str(text)
            .map_err(|e| format!("bad JSON at line {}, column {}: {e}", e.line(), e.column()))?;
        match json.get("nbformat").and_then(Value::as_u64) {
            Some(4) => {}
            Some(v) => return Err(format!("it is nbformat {v}; cudash reads nbformat 4")),
            None => return Err("it has no `nbformat` field".into()),
        }
        if !json.get("cells").is_some_and(Value::is_array) {
            return Err("it has no `cells` list".into());
        }
        Ok(Notebook { json })
    }

    /// The cells in order; raw cells are shown like markdown.
    pub fn cells(&self) -> Result<Vec<Cell>, String> {
        let mut cells = Vec::new();
        for (i, c) in self.raw_cells().iter().enumerate() {
            let n = i + 1;
            let kind = match c.get("cell_type").and_then(Value::as_str) {
                Some("code") => CellKind::Code,
                Some("markdown" | "raw") => CellKind::Markdown,
                Some(other) => return Err(format!("cell {n} has an unknown cell_type `{other}`")),
                None => return Err(format!("cell {n} has no cell_type")),
            };
            let expects_error = c["metadata"]["tags"]
                .as_array()
                .is_some_and(|tags| tags.iter().any(|t| t == RAISES));
            let saved = match (kind, c.get("outputs")) {
                (CellKind::Code, Some(outs)) => {
                    outputs::from_json(outs).map_err(|e| format!("cell {n}: {e}"))?
                }
                _ => Vec::new(),
            };
            cells.push(Cell {
                kind,
                source: text(&c["source"]),
                expects_error,
                saved,
            });
        }
        Ok(cells)
    }

    /// Replaces cell `index`'s outputs and execution count.
    pub fn set_outputs(&mut self, index: usize, outs: &[CellOutput], count: Option<usize>) {
        if let Some(cell) = self.json["cells"].get_mut(index) {
            cell["outputs"] = outputs::to_json(outs, count);
            cell["execution_count"] = count.map_or(Value::Null, |c| json!(c));
        }
    }

    /// The notebook as Jupyter writes it.
    pub fn to_json_string(&self) -> String {
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        serde::Serialize::serialize(&self.json, &mut ser).expect("a JSON value always serializes");
        let mut s = String::from_utf8(buf).expect("serde_json writes UTF-8");
        s.push('\n');
        s
    }

    fn raw_cells(&self) -> &[Value] {
        self.json["cells"].as_array().map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{
 "cells": [
  {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# Title\n", "Text."]},
  {"cell_type": "code", "execution_count": null, "id": "b", "metadata": {"tags": ["raises-exception"]},
   "outputs": [], "source": "x = nope"},
  {"cell_type": "code", "execution_count": 1, "id": "c", "metadata": {},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["1\n", "2\n"]}],
   "source": ["print(1)\n", "print(2)"]}
 ],
 "metadata": {"kernelspec": {"name": "cudash"}},
 "nbformat": 4,
 "nbformat_minor": 5
}"##;

    #[test]
    fn reads_cells_tags_and_saved_outputs() {
        let nb = Notebook::parse(NB).unwrap();
        let cells = nb.cells().unwrap();
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[0].kind, CellKind::Markdown);
        assert_eq!(cells[0].source, "# Title\nText.");
        assert!(cells[1].expects_error && !cells[2].expects_error);
        assert_eq!(cells[2].source, "print(1)\nprint(2)");
        assert_eq!(
            cells[2].saved,
            vec![CellOutput::Stream {
                stderr: false,
                text: "1\n2\n".into()
            }]
        );
    }

    #[test]
    fn writes_outputs_back_and_keeps_the_rest() {
        let mut nb = Notebook::parse(NB).unwrap();
        let outs = [CellOutput::Result {
            text: "2".into(),
            html: Some("<b>2</b>".into()),
        }];
        nb.set_outputs(1, &outs, Some(7));
        let written = nb.to_json_string();
        assert!(written.starts_with("{\n \"cells\": [\n  {\n"), "{written}");
        assert!(written.ends_with("}\n"));
        let again = Notebook::parse(&written).unwrap();
        let cells = again.cells().unwrap();
        assert_eq!(cells[1].saved, outs);
        assert_eq!(again.json["cells"][1]["execution_count"], 7);
        assert_eq!(again.json["cells"][1]["id"], "b");
        assert_eq!(again.json["metadata"]["kernelspec"]["name"], "cudash");
    }

    #[test]
    fn rejects_what_is_not_a_notebook() {
        assert!(Notebook::parse("{").unwrap_err().contains("line 1"));
        assert!(Notebook::parse(r#"{"nbformat": 3, "worksheets": []}"#)
            .unwrap_err()
            .contains("nbformat 3"));
        assert!(Notebook::parse(r#"{"nbformat": 4}"#)
            .unwrap_err()
            .contains("cells"));
        let odd = r#"{"nbformat": 4, "cells": [{"cell_type": "slide", "source": ""}]}"#;
        assert!(Notebook::parse(odd)
            .unwrap()
            .cells()
            .unwrap_err()
            .contains("slide"));
    }
}
