//! A program's command line: `argparse.ArgumentParser` and its methods
//! (the parsing itself is `argparse.rs`), what `parse_args` makes of
//! `sys.argv` (`cudash script train.py --epochs 3`), and argparse's way
//! out: usage and error on stderr, then `SystemExit(2)`.

use std::sync::{Arc, Mutex};

use super::argparse::{self, ActionKind, Nargs};
use super::args::{ArgVal, Bound};
use super::value::Object;
use super::{Interp, Output, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;

type Out = Result<Value, Diagnostic>;
type ArgumentParser = argparse::ArgumentParser<Value>;
type Action = argparse::Action<Value>;
type Parser = Arc<Mutex<ArgumentParser>>;

/// `ArgumentParser(prog=none, description=none, epilog=none, ...)`.
pub(super) fn argument_parser(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let prog = match b.str("prog")? {
        Some(p) => p,
        None => {
            let argv0 = super::argv::argv().remove(0);
            std::path::Path::new(&argv0)
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned())
        }
    };
    let mut p = ArgumentParser::new(prog, b.str("description")?, b.str("epilog")?, Value::None);
    if !b.bool("add_help", true)? {
        p.actions.clear();
    }
    match b.given("formatter_class") {
        None => {}
        Some((Value::Str(s), _)) if s.as_str() == "HelpFormatter" => {}
        Some((Value::Str(s), _)) if s.as_str() == "ArgumentDefaultsHelpFormatter" => {
            p.show_defaults = true
        }
        Some((v, span)) => {
            return Err(Error::value_help(
                format!(
                    "cudash's argparse formats help as `HelpFormatter` and `ArgumentDefaultsHelpFormatter`, not {}",
                    super::format::str_of(v)
                ),
                "leave `formatter_class` out",
            )
            .at(*span))
        }
    }
    Ok(Value::ArgParser(Arc::new(Mutex::new(p))))
}

/// `parser.add_argument(...)`, `parser.parse_args()` and the others.
pub(super) fn method(me: &mut Interp, name: &'static str, p: &Parser, b: &Bound) -> Out {
    // What `add_subparsers` gave has `add_parser` and nothing else; a
    // parser has everything else.
    let commands_of = lock(p).commands_of.clone();
    match (&commands_of, name) {
        (Some(main), "add_parser") => return add_parser(main, b),
        (None, "add_parser") | (Some(_), _) => {
            let class = match commands_of {
                Some(_) => "_SubParsersAction",
                None => "ArgumentParser",
            };
            return Err(Error::Attribute {
                message: format!("'{class}' object has no attribute '{name}'"),
                help: None,
            }
            .at(b.span));
        }
        _ => {}
    }
    match name {
        "add_subparsers" => {
            let mut main = lock(p);
            if main.subcommands.is_some() {
                return Err(Error::value("cannot have multiple subparser arguments").at(b.span));
            }
            main.subcommands = Some(argparse::Subcommands {
                dest: b.str("dest")?,
                title: b.str("title")?,
                description: b.str("description")?,
                help: b.str("help")?,
                metavar: b.str("metavar")?,
                required: b.bool("required", false)?,
                commands: Vec::new(),
            });
            let mut action = ArgumentParser::new(main.prog.clone(), None, None, Value::None);
            action.commands_of = Some(Arc::clone(p));
            Ok(Value::ArgParser(Arc::new(Mutex::new(action))))
        }
        "add_argument" => {
            let a = action(me, b)?;
            let mut p = lock(p);
            if let Some(f) = a
                .flags
                .iter()
                .find(|f| p.actions.iter().any(|o| o.flags.contains(f)))
            {
                return Err(Error::value(format!(
                    "argument {}: conflicting option string: {f}",
                    a.flags.join("/")
                ))
                .at(b.span));
            }
            p.actions.push(a);
            Ok(Value::None)
        }
        "parse_args" | "parse_known_args" => {
            let argv = match b.given("args") {
                None => super::argv::argv().split_off(1),
                Some((v, span)) => strings(v).map_err(|e| e.at(*span))?,
            };
            let p = lock(p).clone();
            let (ns, extras) = parse(me, &p, &argv, name == "parse_known_args", b.span)?;
            Ok(match name {
                "parse_args" => ns,
                _ => Value::List(Arc::new(vec![ns, str_list(extras)])),
            })
        }
        "format_help" | "print_help" => {
            let text = lock(p).format_help(&default_text);
            text_out(me, name, text)
        }
        "format_usage" | "print_usage" => {
            let text = lock(p).format_usage(&default_text);
            text_out(me, name, text)
        }
        "set_defaults" => {
            let mut p = lock(p);
            for (k, (v, _)) in &b.kwargs {
                for a in p.actions.iter_mut().filter(|a| a.dest == *k) {
                    a.default = v.clone();
                }
                p.defaults.retain(|(d, _)| d != k);
                p.defaults.push((k.clone(), v.clone()));
            }
            Ok(Value::None)
        }
        "error" => {
            let message = b.str("message")?.unwrap_or_default();
            let p = lock(p).clone();
            Err(fail(me, &p, &message, b.span))
        }
        other => Err(Error::value(format!("internal error: `{other}` has no handler")).at(b.span)),
    }
}

/// `subparsers.add_parser(name, help=..., aliases=[...], description=...)`:
/// a new parser for the command, its prog the main one's and the name.
fn add_parser(main: &Parser, b: &Bound) -> Out {
    let name = b
        .str("name")?
        .ok_or_else(|| Error::value("add_parser() needs the command's name").at(b.span))?;
    let aliases = match b.given("aliases") {
        None | Some((Value::None, _)) => Vec::new(),
        Some((v, span)) => strings(v).map_err(|e| e.at(*span))?,
    };
    let mut main = lock(main);
    let prog = format!("{} {name}", main.prog);
    let mut parser =
        ArgumentParser::new(prog, b.str("description")?, b.str("epilog")?, Value::None);
    if !b.bool("add_help", true)? {
        parser.actions.clear();
    }
    let parser = Arc::new(Mutex::new(parser));
    let Some(sub) = main.subcommands.as_mut() else {
        return Err(Error::value("internal error: add_parser without add_subparsers").at(b.span));
    };
    if let Some(taken) = std::iter::once(&name)
        .chain(&aliases)
        .find(|n| sub.find(n).is_some())
    {
        return Err(Error::value(format!("conflicting subparser: {taken}")).at(b.span));
    }
    sub.commands.push(argparse::Command {
        name,
        aliases,
        help: b.str("help")?,
        parser: Arc::clone(&parser),
    });
    Ok(Value::ArgParser(parser))
}

/// `print_help()` writes the text (and gives None); `format_help()` gives it.
fn text_out(me: &mut Interp, name: &str, text: String) -> Out {
    match name.starts_with("print") {
        true => {
            me.emit(Output::Text(text.trim_end_matches('\n').to_string()));
            Ok(Value::None)
        }
        false => Ok(Value::Str(Arc::new(text))),
    }
}

/// A default or a choice as usage and help write it: Python's `str`.
fn default_text(v: &Value) -> String {
    super::format::str_of(v)
}

fn str_list(items: Vec<String>) -> Value {
    let items = items.into_iter().map(|s| Value::Str(Arc::new(s))).collect();
    Value::MutList(Arc::new(Mutex::new(Arc::new(items))))
}

/// `parse_args(["--lr", "0.1"])`: the words given instead of `sys.argv[1:]`.
fn strings(v: &Value) -> Result<Vec<String>, Error> {
    let items = v
        .items()
        .ok_or_else(|| Error::wrong_type("`args`", "a list of strings", v.type_name()))?;
    items
        .iter()
        .map(|x| match x {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(Error::wrong_type(
                "an item of `args`",
                "a string",
                other.type_name(),
            )),
        })
        .collect()
}

/// One `add_argument(*name_or_flags, action=..., ...)`, checked as
/// argparse checks it when it is added.
fn action(me: &mut Interp, b: &Bound) -> Result<Action, Diagnostic> {
    let mut flags = Vec::new();
    for (v, span) in &b.rest {
        match v {
            Value::Str(s) => flags.push(s.to_string()),
            other => {
                return Err(
                    Error::wrong_type("an argument's name", "a string", other.type_name())
                        .at(*span),
                )
            }
        }
    }
    let bad = |msg: String| Error::value(msg).at(b.span);
    if flags.is_empty() {
        return Err(bad(
            "add_argument() needs a name (`\"epochs\"`) or flags (`\"--lr\"`)".into(),
        ));
    }
    let positional = !flags[0].starts_with('-');
    if positional && flags.len() > 1 {
        return Err(bad(format!(
            "invalid option string {:?}: must start with a character '-'",
            flags[1]
        )));
    }
    if positional && b.given("dest").is_some() {
        return Err(bad(
            "dest supplied twice for positional argument, did you mean metavar?".into(),
        ));
    }
    let dest = match b.str("dest")? {
        Some(d) => d,
        None => argparse::dest_of(&flags),
    };
    let constant = b.get("const").map_or(Value::None, |(v, _)| v.clone());
    let kind = match b.str("action")?.as_deref() {
        None | Some("store") => ActionKind::Store,
        Some("store_const") => ActionKind::StoreConst(constant.clone()),
        Some("store_true") => ActionKind::StoreTrue,
        Some("store_false") => ActionKind::StoreFalse,
        Some("append") => ActionKind::Append,
        Some("count") => ActionKind::Count,
        Some("help") => ActionKind::Help,
        Some(other) => {
            return Err(Error::value_help(
                format!("unknown action \"{other}\""),
                "argparse's actions here: store, store_const, store_true, store_false, append, count, help",
            )
            .at(b.span_of("action")))
        }
    };
    let flag_only = matches!(
        kind,
        ActionKind::StoreConst(_)
            | ActionKind::StoreTrue
            | ActionKind::StoreFalse
            | ActionKind::Count
            | ActionKind::Help
    );
    let nargs = match b.given("nargs") {
        None if flag_only => Nargs::Zero,
        None => Nargs::One,
        Some(_) if flag_only => {
            return Err(bad(
                "an action that takes no value (store_true, count) takes no `nargs`".into(),
            ))
        }
        Some((Value::Str(s), _)) if s.as_str() == "?" => Nargs::Optional,
        Some((Value::Str(s), _)) if s.as_str() == "*" => Nargs::Any,
        Some((Value::Str(s), _)) if s.as_str() == "+" => Nargs::AtLeastOne,
        Some((Value::Int(n), _)) if *n > 0 => Nargs::Exactly(*n as usize),
        Some((v, span)) => {
            return Err(Error::value(format!(
                "nargs must be '?', '*', '+' or a positive int, not {}",
                super::format::repr_of(v)
            ))
            .at(*span))
        }
    };
    let default = match (b.get("default"), &kind) {
        (Some((v, _)), _) => v.clone(),
        (None, ActionKind::StoreTrue) => Value::bool(false),
        (None, ActionKind::StoreFalse) => Value::bool(true),
        (None, _) => Value::None,
    };
    let choices = match b.given("choices") {
        None => None,
        // `choices=[4, 8, 16]`: a tensor literal in cudash; its numbers.
        Some((Value::Tensor(t), span)) if t.ndim() == 1 => {
            let mut numbers = Vec::new();
            for row in Value::rows(t).map_err(|e| e.at(*span))? {
                numbers.push(me.one_element_value(row).map_err(|e| e.at(*span))?);
            }
            Some(numbers)
        }
        Some((v, span)) => Some(
            v.items()
                .ok_or_else(|| Error::wrong_type("`choices`", "a list", v.type_name()).at(*span))?
                .to_vec(),
        ),
    };
    Ok(Action {
        flags: if positional {
            Vec::new()
        } else {
            flags.clone()
        },
        dest: if positional { flags[0].clone() } else { dest },
        kind,
        nargs,
        ty: b.given("type").map(|(v, _)| v.clone()),
        default,
        constant,
        choices,
        required: b.bool("required", false)?,
        help: b.str("help")?,
        metavar: b.str("metavar")?,
    })
}

/// argparse's error: the usage and `prog: error: message` on stderr, then
/// `SystemExit(2)`.
fn fail(me: &mut Interp, p: &ArgumentParser, message: &str, span: Span) -> Diagnostic {
    me.emit(Output::Stderr(format!(
        "{}{}: error: {message}",
        p.format_usage(&default_text),
        p.prog
    )));
    Error::Exit { code: 2 }.at(span)
}

/// `parse_args`: the namespace (and, for `parse_known_args`, the words no
/// argument took), each value converted by its `type` and checked against
/// its `choices`.
fn parse(
    me: &mut Interp,
    p: &ArgumentParser,
    argv: &[String],
    known: bool,
    span: Span,
) -> Result<(Value, Vec<String>), Diagnostic> {
    let parsed = match p.parse(argv) {
        Ok(r) => r,
        Err(msg) => return Err(fail(me, p, &msg, span)),
    };
    if parsed.help {
        let help = p.format_help(&default_text);
        me.emit(Output::Text(help.trim_end_matches('\n').to_string()));
        return Err(Error::Exit { code: 0 }.at(span));
    }
    if !known && !parsed.extras.is_empty() {
        let msg = format!("unrecognized arguments: {}", parsed.extras.join(" "));
        return Err(fail(me, p, &msg, span));
    }
    let ns = Object::new(super::value::namespace_class());
    for (a, found) in p.actions.iter().zip(&parsed.found) {
        if matches!(a.kind, ActionKind::Help) {
            continue;
        }
        let v = match found.last() {
            None => match &a.default {
                // A string default goes through `type`, as argparse's does.
                Value::Str(s) if a.ty.is_some() => convert(me, p, a, s, span)?,
                other => other.clone(),
            },
            Some(last) => match &a.kind {
                ActionKind::StoreTrue => Value::bool(true),
                ActionKind::StoreFalse => Value::bool(false),
                ActionKind::StoreConst(c) => c.clone(),
                ActionKind::Count => {
                    let base = match &a.default {
                        Value::Int(n) => *n,
                        _ => 0,
                    };
                    Value::Int(base + found.len() as i64)
                }
                ActionKind::Append => {
                    let mut items = a.default.items().map_or_else(Vec::new, |xs| xs.to_vec());
                    for occurrence in found {
                        items.push(values(me, p, a, occurrence, span)?);
                    }
                    Value::MutList(Arc::new(Mutex::new(Arc::new(items))))
                }
                ActionKind::Store | ActionKind::Help => values(me, p, a, last, span)?,
            },
        };
        ns.set(&a.dest, v);
    }
    let mut extras = parsed.extras;
    if let Some(sub) = &p.subcommands {
        if let Some(dest) = &sub.dest {
            let named = parsed.command.as_ref().map(|(_, word, _)| word);
            ns.set(
                dest,
                named.map_or(Value::None, |w| Value::Str(Arc::new(w.clone()))),
            );
        }
        // The command's own parser reads the words after it; what it does
        // not know is this parser's error, as argparse reports it.
        if let Some((c, _, rest)) = &parsed.command {
            let c = &sub.commands[*c];
            let sub_parser = lock(&c.parser).clone();
            let (sub_ns, sub_extras) = parse(me, &sub_parser, rest, true, span)?;
            if let Value::Object(o) = &sub_ns {
                for (k, v) in o.attrs_dict().items().iter() {
                    ns.set(&super::format::str_of(&k.value()), v.clone());
                }
            }
            extras.extend(sub_extras);
            if !known && !extras.is_empty() {
                let msg = format!("unrecognized arguments: {}", extras.join(" "));
                return Err(fail(me, p, &msg, span));
            }
        }
    }
    for (k, v) in &p.defaults {
        if !ns.has(k) {
            ns.set(k, v.clone());
        }
    }
    Ok((Value::Object(Arc::new(ns)), extras))
}

/// One occurrence's texts as the argument's value: one value, or a list
/// for `nargs` `*`, `+` and N; `const` for a `?` given no value.
fn values(
    me: &mut Interp,
    p: &ArgumentParser,
    a: &Action,
    texts: &[String],
    span: Span,
) -> Result<Value, Diagnostic> {
    match a.nargs {
        Nargs::One => convert(me, p, a, &texts[0], span),
        Nargs::Optional => match texts.first() {
            Some(t) => convert(me, p, a, t, span),
            None if a.positional() => Ok(a.default.clone()),
            None => Ok(a.constant.clone()),
        },
        _ => {
            let mut items = Vec::with_capacity(texts.len());
            for t in texts {
                items.push(convert(me, p, a, t, span)?);
            }
            Ok(Value::MutList(Arc::new(Mutex::new(Arc::new(items)))))
        }
    }
}

/// A text through the argument's `type` (`int("32")`), then checked
/// against its `choices`: argparse's "invalid int value" and "invalid
/// choice" errors otherwise.
fn convert(
    me: &mut Interp,
    p: &ArgumentParser,
    a: &Action,
    text: &str,
    span: Span,
) -> Result<Value, Diagnostic> {
    let v = match &a.ty {
        None => Value::Str(Arc::new(text.to_string())),
        Some(ty) => {
            let arg = ArgVal::positional(Value::Str(Arc::new(text.to_string())), span);
            match me.call_value(ty.clone(), vec![arg], span) {
                Ok(v) => v,
                Err(d) if matches!(d.error.class(), "ValueError" | "TypeError") => {
                    let msg = format!(
                        "argument {}: invalid {} value: {}",
                        a.display_name(),
                        type_name(ty),
                        super::format::repr_of(&Value::Str(Arc::new(text.to_string())))
                    );
                    return Err(fail(me, p, &msg, span));
                }
                Err(d) => return Err(d),
            }
        }
    };
    if let Some(choices) = &a.choices {
        let same = |c: &Value| super::format::repr_of(c) == super::format::repr_of(&v);
        if !choices.iter().any(same) {
            let listed: Vec<String> = choices.iter().map(super::format::repr_of).collect();
            let msg = format!(
                "argument {}: invalid choice: {} (choose from {})",
                a.display_name(),
                super::format::repr_of(&v),
                listed.join(", ")
            );
            return Err(fail(me, p, &msg, span));
        }
    }
    Ok(v)
}

/// `int`, `float`, a function's name: as argparse's error names a type.
fn type_name(ty: &Value) -> String {
    match ty {
        Value::Builtin(d) => d.name.to_string(),
        Value::Function(f) => f.def.name.name.clone(),
        other => other.type_name().to_string(),
    }
}

/// `vars(args)`: an object's attributes as a dict.
pub(super) fn vars(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (v, span) = b.get("object").cloned().unwrap_or((Value::None, b.span));
    let object = match &v {
        Value::Object(o) => Some(Arc::clone(o)),
        Value::Module(m) => super::value::object_of(m),
        _ => None,
    };
    let Some(o) = object else {
        return Err(Error::Module {
            class: "TypeError",
            message: "vars() argument must have __dict__ attribute".into(),
            help: None,
        }
        .at(span));
    };
    Ok(Value::Dict(o.attrs_dict()))
}
