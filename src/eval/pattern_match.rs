//! Python's `match` statement (PEP 634): whether a subject matches a
//! `case`'s pattern, binding the pattern's names as it goes. The statement
//! itself is an `if` chain of these tests (`parser::match_statement`).

use super::dataclass;
use super::value::{Key, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{BinOp, Expr, ExprKind, Name, Pattern};
use crate::lang::Span;
use crate::vocab::BinaryOp;

/// Python's classes whose one positional sub-pattern matches the subject
/// itself (`case int(n):`).
const SELF_MATCHING: &[&str] = &[
    "int", "float", "str", "bytes", "list", "tuple", "dict", "set",
];

impl Interp {
    /// Whether `subject` matches `pattern`, its names bound where it does.
    pub(super) fn matches(
        &mut self,
        subject: &Value,
        pattern: &Pattern,
        d: usize,
    ) -> Result<bool, Diagnostic> {
        match pattern {
            Pattern::Wildcard | Pattern::Star(None) => Ok(true),
            Pattern::Capture(name) | Pattern::Star(Some(name)) => {
                self.set_var(name, subject.clone());
                Ok(true)
            }
            Pattern::Value(e) => self.equal_to(subject, e, d),
            Pattern::As(inner, name) => {
                let hit = self.matches(subject, inner, d)?;
                if hit {
                    self.set_var(name, subject.clone());
                }
                Ok(hit)
            }
            Pattern::Or(alternatives) => {
                for p in alternatives {
                    if self.matches(subject, p, d)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Pattern::Sequence(items) => self.matches_sequence(subject, items, d),
            Pattern::Mapping(items, rest) => self.matches_mapping(subject, items, rest.as_ref(), d),
            Pattern::Class(class, positional, keywords) => {
                self.matches_class(subject, class, positional, keywords, d)
            }
        }
    }

    /// A literal or dotted value: `None`, `True` and `False` by identity,
    /// anything else by `==`.
    fn equal_to(&mut self, subject: &Value, e: &Expr, d: usize) -> Result<bool, Diagnostic> {
        match &e.kind {
            ExprKind::None => return Ok(matches!(subject, Value::None)),
            ExprKind::Bool(b) => return Ok(matches!(subject, Value::Bool(x) if x.get() == *b)),
            _ => {}
        }
        let v = self.eval(e, d)?;
        let eq = self.arith(BinOp::Elementwise(BinaryOp::Eq), subject.clone(), v, e.span)?;
        self.truth(&eq, e.span)
    }

    /// `[a, *rest, z]`: a sequence (a list, a tuple, a `torch.Size`, a
    /// range, a named tuple; not a string, bytes, a dict or a tensor) of
    /// as many items (with a star: at least as many as the others).
    fn matches_sequence(
        &mut self,
        subject: &Value,
        items: &[Pattern],
        d: usize,
    ) -> Result<bool, Diagnostic> {
        let values: Vec<Value> = match subject {
            Value::List(_) | Value::MutList(_) | Value::Size(_) => {
                subject.items().map(|v| v.to_vec()).unwrap_or_default()
            }
            Value::Range(_) => self.items_of(subject.clone(), Span::from(0..0))?,
            Value::Object(o) if o.class.tuple => o.tuple_items(),
            _ => return Ok(false),
        };
        let star = items.iter().position(|p| matches!(p, Pattern::Star(_)));
        let fixed = items.len() - usize::from(star.is_some());
        match star {
            None if values.len() != fixed => return Ok(false),
            Some(_) if values.len() < fixed => return Ok(false),
            _ => {}
        }
        let (before, after) = match star {
            Some(k) => (k, items.len() - k - 1),
            None => (items.len(), 0),
        };
        for (p, v) in items[..before].iter().zip(&values) {
            if !self.matches(v, p, d)? {
                return Ok(false);
            }
        }
        if let Some(k) = star {
            let tail = values.len() - after;
            for (p, v) in items[k + 1..].iter().zip(&values[tail..]) {
                if !self.matches(v, p, d)? {
                    return Ok(false);
                }
            }
            let rest = Value::list(values[before..tail].to_vec());
            return self.matches(&rest, &items[k], d);
        }
        Ok(true)
    }

    /// `{"k": p, **rest}`: a dict holding every key, each value matching;
    /// `rest` takes the items left, as a dict.
    fn matches_mapping(
        &mut self,
        subject: &Value,
        items: &[(Expr, Pattern)],
        rest: Option<&Name>,
        d: usize,
    ) -> Result<bool, Diagnostic> {
        let Value::Dict(dict) = subject else {
            return Ok(false);
        };
        let mut taken = Vec::new();
        for (k, p) in items {
            let key = self.eval(k, d)?;
            let key = self.key(&key, k.span)?;
            let Some(v) = dict.get(&key) else {
                return Ok(false);
            };
            if !self.matches(&v, p, d)? {
                return Ok(false);
            }
            taken.push(key);
        }
        if let Some(name) = rest {
            let left: Vec<(Key, Value)> = dict
                .items()
                .iter()
                .filter(|(k, _)| !taken.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            self.set_var(name, Value::Dict(PyDict::new(left)));
        }
        Ok(true)
    }

    /// `Point(x, y=0)`: an instance of the class, each positional
    /// sub-pattern matching the attribute `__match_args__` names there (a
    /// dataclass's and a named tuple's fields), each keyword one the
    /// attribute it names (an instance without it does not match).
    fn matches_class(
        &mut self,
        subject: &Value,
        class: &Expr,
        positional: &[Pattern],
        keywords: &[(Name, Pattern)],
        d: usize,
    ) -> Result<bool, Diagnostic> {
        let cls = self.eval(class, d)?;
        let at = class.span;
        if !super::builtins::nn::is_instance(subject, &cls).map_err(|e| e.at(at))? {
            return Ok(false);
        }
        let self_matching = match &cls {
            Value::Builtin(doc) => SELF_MATCHING.contains(&doc.name),
            Value::DType(t) => t.get() == crate::runtime::DType::Bool,
            _ => false,
        };
        let names: Vec<String> = match (&cls, self_matching) {
            (_, true) if positional.len() <= 1 => {
                if let Some(p) = positional.first() {
                    if !self.matches(subject, p, d)? {
                        return Ok(false);
                    }
                }
                Vec::new()
            }
            (_, true) => return Err(too_many(&cls, 1, positional.len(), at)),
            (_, false) if positional.is_empty() => Vec::new(),
            (Value::Class(c), false) => match c.find("__match_args__") {
                Some(v) => v
                    .items()
                    .unwrap_or_default()
                    .iter()
                    .map(|n| match n {
                        Value::Str(s) => Ok(s.to_string()),
                        _ => Err(Error::Module {
                            class: "TypeError",
                            message: "__match_args__ elements must be strings".into(),
                            help: None,
                        }
                        .at(at)),
                    })
                    .collect::<Result<_, _>>()?,
                None if c.dataclass.load(std::sync::atomic::Ordering::Relaxed) => {
                    dataclass::fields_of(c)
                }
                None => Vec::new(),
            },
            _ => Vec::new(),
        };
        if positional.len() > names.len() && !self_matching {
            return Err(too_many(&cls, names.len(), positional.len(), at));
        }
        let by_position = names.iter().zip(positional).map(|(n, p)| (n.clone(), p));
        let by_keyword = keywords.iter().map(|(n, p)| (n.name.clone(), p));
        let wanted: Vec<(String, &Pattern)> = by_position.chain(by_keyword).collect();
        for (name, p) in wanted {
            // An instance without the attribute does not match.
            let Ok(v) = self.property(subject, &name, at) else {
                return Ok(false);
            };
            if !self.matches(&v, p, d)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Python's TypeError for more positional sub-patterns than the class
/// takes.
fn too_many(cls: &Value, takes: usize, given: usize, at: Span) -> Diagnostic {
    let name = match cls {
        Value::Class(c) => c.name.clone(),
        Value::Builtin(doc) => doc.name.to_string(),
        Value::DType(_) => "bool".into(),
        other => other.type_name().to_string(),
    };
    Error::Module {
        class: "TypeError",
        message: format!(
            "{name}() accepts {takes} positional sub-pattern{} ({given} given)",
            if takes == 1 { "" } else { "s" }
        ),
        help: None,
    }
    .at(at)
}
