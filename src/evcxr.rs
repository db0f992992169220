//! evcxr's display convention, so Rust notebooks (evcxr_jupyter, with
//! `:dep cudash`) show tensors and cells as the cudash kernel does: a type
//! with an `evcxr_display` method prints its MIME bundle between markers.

use crate::runtime::Tensor;
use crate::session::Outcome;
use crate::session::{Output, Value};

/// One MIME part in evcxr's framing.
fn part(out: &mut String, mime: &str, body: &str) {
    out.push_str("EVCXR_BEGIN_CONTENT ");
    out.push_str(mime);
    out.push('\n');
    out.push_str(body);
    out.push_str("\nEVCXR_END_CONTENT\n");
}

fn bundle(text: &str, html: Option<&str>) -> String {
    let mut out = String::new();
    part(&mut out, "text/plain", text);
    if let Some(h) = html {
        part(&mut out, "text/html", h);
    }
    out
}

impl Tensor {
    /// What evcxr prints for a tensor: its text and its HTML table.
    pub fn evcxr_content(&self) -> String {
        bundle(
            &crate::display::tensor::render(self),
            Some(&crate::display::html::tensor(self)),
        )
    }

    /// Called by evcxr on a cell's final value.
    pub fn evcxr_display(&self) {
        print!("{}", self.evcxr_content());
    }
}

impl Value {
    pub fn evcxr_content(&self) -> String {
        match self {
            Value::Tensor(t) => t.evcxr_content(),
            v => bundle(&crate::session::repr(v), None),
        }
    }

    pub fn evcxr_display(&self) {
        print!("{}", self.evcxr_content());
    }
}

impl Outcome {
    /// A cell's outputs in order, as the kernel shows them (HTML where the
    /// session renders it: `Session::enable_html`), then its error.
    pub fn evcxr_content(&self) -> String {
        let mut text = Vec::new();
        let mut html = String::new();
        for o in &self.outputs {
            match o {
                Output::Value(s) | Output::Display(s) => {
                    text.push(s.text.clone());
                    match &s.html {
                        Some(h) => html.push_str(h),
                        None => html.push_str(&format!(
                            "<pre>{}</pre>",
                            crate::display::html::escape(&s.text)
                        )),
                    }
                }
                Output::Text(t) | Output::Stderr(t) | Output::Partial { text: t, .. } => {
                    text.push(t.clone());
                    html.push_str(&format!("<pre>{}</pre>", crate::display::html::escape(t)));
                }
                Output::Warning(w) => {
                    text.push(format!("warning: {w}"));
                    html.push_str(&format!(
                        "<pre style=\"color:#b45309\">warning: {}</pre>",
                        crate::display::html::escape(w)
                    ));
                }
                Output::Clear { .. } => {}
            }
        }
        if let Some(e) = &self.error {
            text.push(e.report.trim_end().to_string());
            html.push_str(&format!(
                "<pre style=\"color:#b91c1c\">{}</pre>",
                crate::display::html::escape(e.report.trim_end())
            ));
        }
        bundle(&text.join("\n"), Some(&html))
    }

    pub fn evcxr_display(&self) {
        print!("{}", self.evcxr_content());
    }
}
