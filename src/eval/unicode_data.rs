//! Python's `unicodedata` as PyTorch's text tutorials use it (turning
//! names and sentences into ASCII: `normalize('NFD', s)` and dropping the
//! characters whose `category` is `'Mn'`): `normalize`, `is_normalized`,
//! `category` and `combining`, from the Unicode tables of the
//! `unicode-normalization` and `unicode-general-category` crates.

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use unicode_normalization::UnicodeNormalization;

/// The names this module answers.
pub const NAMES: [&str; 4] = [
    "unicodedata.normalize",
    "unicodedata.is_normalized",
    "unicodedata.category",
    "unicodedata.combining",
];

fn type_error(message: String) -> Error {
    Error::Module {
        class: "TypeError",
        message,
        help: None,
    }
}

/// A normalization form's text (`"NFD"`), checked as Python checks it.
fn form(v: Option<&ArgVal>, function: &str) -> Result<&'static str, Error> {
    match v.map(|a| &a.value) {
        Some(Value::Str(s)) => match s.as_str() {
            "NFC" => Ok("NFC"),
            "NFD" => Ok("NFD"),
            "NFKC" => Ok("NFKC"),
            "NFKD" => Ok("NFKD"),
            _ => Err(Error::Module {
                class: "ValueError",
                message: "invalid normalization form".into(),
                help: Some("the forms are \"NFC\", \"NFD\", \"NFKC\" and \"NFKD\"".into()),
            }),
        },
        other => Err(type_error(format!(
            "{function}() argument 1 must be str, not {}",
            other.map_or("nothing".into(), super::format::python_type)
        ))),
    }
}

/// The text argument `k` of `function`.
fn text<'a>(args: &'a [ArgVal], k: usize, function: &str) -> Result<&'a str, Error> {
    match args.get(k).map(|a| &a.value) {
        Some(Value::Str(s)) => Ok(s.as_str()),
        other => Err(type_error(format!(
            "{function}() argument {} must be str, not {}",
            k + 1,
            other.map_or("nothing".into(), super::format::python_type)
        ))),
    }
}

/// The one character `category(c)` and `combining(c)` take.
fn character(args: &[ArgVal], function: &str) -> Result<char, Error> {
    let c = match args.first().map(|a| &a.value) {
        Some(Value::Str(s)) => {
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Some(c),
                _ => None,
            }
        }
        _ => None,
    };
    c.ok_or_else(|| {
        type_error(format!(
            "{function}() argument must be a unicode character, not {}",
            args.first()
                .map_or("nothing".into(), |a| super::format::python_type(&a.value))
        ))
    })
}

/// `s` in normalization form `form`.
fn normalized(form: &str, s: &str) -> String {
    match form {
        "NFC" => s.nfc().collect(),
        "NFD" => s.nfd().collect(),
        "NFKC" => s.nfkc().collect(),
        _ => s.nfkd().collect(),
    }
}

impl Interp {
    pub(super) fn call_unicode_data(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let function = name.trim_start_matches("unicodedata.");
        let v = match function {
            "normalize" | "is_normalized" => {
                let form = form(args.first(), function).map_err(|e| e.at(span))?;
                let s = text(&args, 1, function).map_err(|e| e.at(span))?;
                let n = normalized(form, s);
                match function {
                    "normalize" => Value::Str(std::sync::Arc::new(n)),
                    _ => Value::bool(n == s),
                }
            }
            "category" => {
                let c = character(&args, function).map_err(|e| e.at(span))?;
                let category = unicode_general_category::get_general_category(c);
                Value::Str(std::sync::Arc::new(category.abbreviation().to_string()))
            }
            _ => {
                let c = character(&args, function).map_err(|e| e.at(span))?;
                Value::Int(unicode_normalization::char::canonical_combining_class(c) as i64)
            }
        };
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_come_apart_and_back() {
        assert_eq!(normalized("NFD", "Ślusàrski"), "S\u{301}lusa\u{300}rski");
        assert_eq!(normalized("NFC", "S\u{301}lusa\u{300}rski"), "Ślusàrski");
        assert_eq!(normalized("NFKD", "ﬁ²"), "fi2");
        let mn = |c| unicode_general_category::get_general_category(c).abbreviation();
        assert_eq!(
            (mn('\u{301}'), mn('a'), mn('A'), mn(' ')),
            ("Mn", "Ll", "Lu", "Zs")
        );
    }
}
