//! Python's `argparse`, as a training script uses it: `parser =
//! argparse.ArgumentParser(description=...)`, `parser.add_argument(
//! "--batch-size", type=int, default=64, metavar="N", help=...)`, `args =
//! parser.parse_args()` reading the program's command line (`cudash script
//! train.py --epochs 3`; none in the REPL or a notebook, so every option
//! keeps its default). Options and positionals, `store`, `store_true`,
//! `store_false`, `store_const`, `append`, `count`, `nargs` (`?`, `*`, `+`,
//! N), `choices`, `required`, `dest`, abbreviated long options, `-h`, and
//! Python's usage, help and error texts (3.11's, checked line by line), an
//! error ending the program with status 2 as argparse's `SystemExit(2)`.
//! What parsing reads stays text here: converting with `type` and checking
//! `choices` needs the interpreter (`methods`' glue in `amp.rs`' manner).

/// How a value is written in usage and help (Python's `str`): the
/// caller's, so that this file knows no interpreter.
pub type Text<'a, V> = &'a dyn Fn(&V) -> String;

/// What an option does with what follows it.
#[derive(Debug, Clone)]
pub enum ActionKind<V> {
    Store,
    StoreConst(V),
    StoreTrue,
    StoreFalse,
    Append,
    Count,
    Help,
}

/// How many values an argument takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nargs {
    /// One (the default): the value itself, not a list.
    One,
    /// `?`: one or none (then `const`, or the default for a positional).
    Optional,
    /// `*`: any number, as a list.
    Any,
    /// `+`: at least one, as a list.
    AtLeastOne,
    /// `N`: exactly N, as a list.
    Exactly(usize),
    /// Flags (`store_true`, `count`, `help`): none.
    Zero,
}

/// One `add_argument`.
#[derive(Debug, Clone)]
pub struct Action<V> {
    /// `["-b", "--batch-size"]`; empty for a positional.
    pub flags: Vec<String>,
    pub dest: String,
    pub kind: ActionKind<V>,
    pub nargs: Nargs,
    /// `type=int`: what each value's text is given to.
    pub ty: Option<V>,
    pub default: V,
    pub constant: V,
    pub choices: Option<Vec<V>>,
    pub required: bool,
    pub help: Option<String>,
    pub metavar: Option<String>,
}

impl<V> Action<V> {
    pub fn positional(&self) -> bool {
        self.flags.is_empty()
    }

    /// The name usage and errors give it: its flags joined by `/`, or
    /// its metavar (or dest) for a positional.
    pub fn display_name(&self) -> String {
        match (self.positional(), &self.metavar) {
            (true, Some(m)) => m.clone(),
            (true, None) => self.dest.clone(),
            (false, _) => self.flags.join("/"),
        }
    }

    /// `N`, `{LSTM,GRU}`, or the dest (upper-cased for an option).
    fn metavar_text(&self, text: Text<V>) -> String {
        if let Some(m) = &self.metavar {
            return m.clone();
        }
        if let Some(choices) = &self.choices {
            let items: Vec<String> = choices.iter().map(text).collect();
            return format!("{{{}}}", items.join(","));
        }
        match self.positional() {
            true => self.dest.clone(),
            false => self.dest.to_uppercase(),
        }
    }

    /// What follows a flag (or stands for a positional) in usage and help.
    fn args_text(&self, text: Text<V>) -> String {
        let m = self.metavar_text(text);
        match self.nargs {
            Nargs::Zero => String::new(),
            Nargs::One => m,
            Nargs::Optional => format!("[{m}]"),
            Nargs::Any => format!("[{m} ...]"),
            Nargs::AtLeastOne => format!("{m} [{m} ...]"),
            Nargs::Exactly(n) => vec![m; n].join(" "),
        }
    }

    /// `--batch-size N` in usage (the first flag), `[...]` unless required.
    fn usage_part(&self, text: Text<V>) -> String {
        if self.positional() {
            return self.args_text(text);
        }
        let args = self.args_text(text);
        let part = match args.is_empty() {
            true => self.flags[0].clone(),
            false => format!("{} {args}", self.flags[0]),
        };
        match self.required {
            true => part,
            false => format!("[{part}]"),
        }
    }

    /// `-b N, --batch-size N` in help.
    fn invocation(&self, text: Text<V>) -> String {
        if self.positional() {
            return self.metavar_text(text);
        }
        let args = self.args_text(text);
        self.flags
            .iter()
            .map(|f| match args.is_empty() {
                true => f.clone(),
                false => format!("{f} {args}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `parser.add_subparsers(title=..., dest=...)`: a positional naming a
/// command, and each command's own parser (`subparsers.add_parser("train")`);
/// the words after the command are that parser's.
#[derive(Debug, Clone)]
pub struct Subcommands<V> {
    pub dest: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub help: Option<String>,
    pub metavar: Option<String>,
    pub required: bool,
    pub commands: Vec<Command<V>>,
}

/// One `add_parser(name, aliases=[...], help=...)`.
#[derive(Debug, Clone)]
pub struct Command<V> {
    pub name: String,
    pub aliases: Vec<String>,
    pub help: Option<String>,
    pub parser: std::sync::Arc<std::sync::Mutex<ArgumentParser<V>>>,
}

impl<V> Subcommands<V> {
    /// Every name a command answers to, aliases after each name.
    fn names(&self) -> Vec<&str> {
        self.commands
            .iter()
            .flat_map(|c| {
                std::iter::once(c.name.as_str()).chain(c.aliases.iter().map(String::as_str))
            })
            .collect()
    }

    /// `{train,eval}`, or the metavar.
    fn metavar_text(&self) -> String {
        match &self.metavar {
            Some(m) => m.clone(),
            None => format!("{{{}}}", self.names().join(",")),
        }
    }

    /// What errors call it: the metavar, the dest, or the choices.
    fn display_name(&self) -> String {
        match (&self.metavar, &self.dest) {
            (Some(m), _) => m.clone(),
            (None, Some(d)) => d.clone(),
            (None, None) => self.metavar_text(),
        }
    }

    /// The command a word names (by name or alias).
    pub fn find(&self, word: &str) -> Option<usize> {
        self.commands
            .iter()
            .position(|c| c.name == word || c.aliases.iter().any(|a| a == word))
    }
}

/// `argparse.ArgumentParser(...)`.
#[derive(Debug, Clone)]
pub struct ArgumentParser<V> {
    pub prog: String,
    pub description: Option<String>,
    pub epilog: Option<String>,
    pub actions: Vec<Action<V>>,
    /// `set_defaults(k=v)`: values for names no argument sets.
    pub defaults: Vec<(String, V)>,
    /// `formatter_class=ArgumentDefaultsHelpFormatter`: each help ends
    /// with its default.
    pub show_defaults: bool,
    /// `add_subparsers(...)`: the commands, if any.
    pub subcommands: Option<Subcommands<V>>,
    /// Set on what `add_subparsers` gives (argparse's
    /// `_SubParsersAction`): the parser whose commands `add_parser` adds to.
    pub commands_of: Option<std::sync::Arc<std::sync::Mutex<ArgumentParser<V>>>>,
}

/// What parsing the command line found: each action's texts, in the
/// order given, and what no option took.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Per action (by index): the values each occurrence gave (a flag's
    /// occurrence gives none).
    pub found: Vec<Vec<Vec<String>>>,
    pub extras: Vec<String>,
    /// `-h` was given.
    pub help: bool,
    /// The command named (its index among the subcommands), the word that
    /// named it (a name or an alias), and the words after it, which are its
    /// parser's.
    pub command: Option<(usize, String, Vec<String>)>,
}

/// The width argparse formats to: the terminal's columns (80 when there is
/// none) less 2.
const WIDTH: usize = 78;

impl<V: Clone> ArgumentParser<V> {
    /// A parser with argparse's `-h`; `none` is the value of nothing (Python's None).
    pub fn new(prog: String, description: Option<String>, epilog: Option<String>, none: V) -> Self {
        let help = Action {
            flags: vec!["-h".into(), "--help".into()],
            dest: "help".into(),
            kind: ActionKind::Help,
            nargs: Nargs::Zero,
            ty: None,
            default: none.clone(),
            constant: none,
            choices: None,
            required: false,
            help: Some("show this help message and exit".into()),
            metavar: None,
        };
        ArgumentParser {
            prog,
            description,
            epilog,
            actions: vec![help],
            defaults: Vec::new(),
            show_defaults: false,
            subcommands: None,
            commands_of: None,
        }
    }

    /// The option a command-line word names: its exact flag, or a long
    /// option it is the unique start of (argparse's `allow_abbrev`).
    fn option(&self, word: &str) -> Result<Option<usize>, String> {
        let exact = self
            .actions
            .iter()
            .position(|a| a.flags.iter().any(|f| f == word));
        if exact.is_some() || !word.starts_with("--") {
            return Ok(exact);
        }
        let matches: Vec<(usize, &String)> = self
            .actions
            .iter()
            .enumerate()
            .flat_map(|(k, a)| a.flags.iter().map(move |f| (k, f)))
            .filter(|(_, f)| f.starts_with("--") && f.starts_with(word))
            .collect();
        match matches.as_slice() {
            [] => Ok(None),
            [(k, _)] => Ok(Some(*k)),
            many => Err(format!(
                "ambiguous option: {word} could match {}",
                many.iter()
                    .map(|(_, f)| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Whether a word is an option's (not a value, not a negative number).
    fn is_flag(word: &str) -> bool {
        word.starts_with('-') && word.len() > 1 && word.parse::<f64>().is_err()
    }

    /// Reads `argv` (the program's arguments, without its name): which
    /// action took which texts, or argparse's error message.
    pub fn parse(&self, argv: &[String]) -> Result<Parsed, String> {
        let mut parsed = Parsed {
            found: vec![Vec::new(); self.actions.len()],
            ..Parsed::default()
        };
        let mut positionals: Vec<String> = Vec::new();
        let mut k = 0;
        let mut only_positionals = false;
        let own_positionals = self.actions.iter().filter(|a| a.positional()).count();
        while k < argv.len() {
            let word = &argv[k];
            k += 1;
            // The command, once this parser's own positionals have their
            // words: it and every word after it are the command's.
            if let Some(sub) = &self.subcommands {
                let is_word = only_positionals || !Self::is_flag(word);
                if is_word && positionals.len() >= own_positionals {
                    let Some(c) = sub.find(word) else {
                        let names: Vec<String> =
                            sub.names().iter().map(|n| format!("'{n}'")).collect();
                        return Err(format!(
                            "argument {}: invalid choice: '{word}' (choose from {})",
                            sub.display_name(),
                            names.join(", ")
                        ));
                    };
                    parsed.command = Some((c, word.clone(), argv[k..].to_vec()));
                    break;
                }
            }
            if only_positionals || !Self::is_flag(word) {
                positionals.push(word.clone());
                continue;
            }
            if word == "--" {
                only_positionals = true;
                continue;
            }
            // `-vv`, `-xb32`: short flags run together, each taking no
            // value, the last one perhaps with its value attached.
            let mut word = word.clone();
            while !word.starts_with("--") && word.len() > 2 {
                match self.option(&word[..2])? {
                    Some(at) if self.actions[at].nargs == Nargs::Zero => {
                        if matches!(self.actions[at].kind, ActionKind::Help) {
                            parsed.help = true;
                            return Ok(parsed);
                        }
                        parsed.found[at].push(Vec::new());
                        word = format!("-{}", &word[2..]);
                    }
                    _ => break,
                }
            }
            let word = &word;
            // `--lr=0.1`, and `-b32` (a short option with its value).
            let (flag, attached) = match word.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ if !word.starts_with("--") && word.len() > 2 => {
                    (word[..2].to_string(), Some(word[2..].to_string()))
                }
                _ => (word.clone(), None),
            };
            let Some(at) = self.option(&flag)? else {
                parsed.extras.push(word.clone());
                continue;
            };
            let a = &self.actions[at];
            let name = a.display_name();
            let mut values = Vec::new();
            match (a.nargs, attached) {
                (Nargs::Zero, Some(_)) => {
                    return Err(format!(
                        "argument {name}: ignored explicit argument '{}'",
                        &word[flag.len()..].trim_start_matches('=')
                    ));
                }
                (Nargs::Zero, None) => {}
                (_, Some(v)) => values.push(v),
                (nargs, None) => {
                    let mut take = |k: &mut usize| -> bool {
                        match argv.get(*k) {
                            Some(w) if !Self::is_flag(w) => {
                                values.push(w.clone());
                                *k += 1;
                                true
                            }
                            _ => false,
                        }
                    };
                    match nargs {
                        Nargs::One => {
                            if !take(&mut k) {
                                return Err(format!("argument {name}: expected one argument"));
                            }
                        }
                        Nargs::Optional => {
                            take(&mut k);
                        }
                        Nargs::Any => while take(&mut k) {},
                        Nargs::AtLeastOne => {
                            while take(&mut k) {}
                            if values.is_empty() {
                                return Err(format!(
                                    "argument {name}: expected at least one argument"
                                ));
                            }
                        }
                        Nargs::Exactly(n) => {
                            for _ in 0..n {
                                if !take(&mut k) {
                                    return Err(format!("argument {name}: expected {n} arguments"));
                                }
                            }
                        }
                        Nargs::Zero => {}
                    }
                }
            }
            if matches!(a.kind, ActionKind::Help) {
                parsed.help = true;
                return Ok(parsed);
            }
            parsed.found[at].push(values);
        }
        self.assign_positionals(&mut parsed, positionals);
        let missing: Vec<String> = self
            .actions
            .iter()
            .enumerate()
            .filter(|(k, a)| {
                parsed.found[*k].is_empty()
                    && (a.required
                        || (a.positional()
                            && matches!(
                                a.nargs,
                                Nargs::One | Nargs::AtLeastOne | Nargs::Exactly(_)
                            )))
            })
            .map(|(_, a)| a.display_name())
            .chain(
                self.subcommands
                    .iter()
                    .filter(|s| s.required && parsed.command.is_none())
                    .map(|s| s.display_name()),
            )
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "the following arguments are required: {}",
                missing.join(", ")
            ));
        }
        Ok(parsed)
    }

    /// The positional words to the positional arguments in order: each
    /// takes what its `nargs` allows, leaving what the ones after it need.
    fn assign_positionals(&self, parsed: &mut Parsed, words: Vec<String>) {
        let slots: Vec<usize> = (0..self.actions.len())
            .filter(|&k| self.actions[k].positional())
            .collect();
        let need = |k: usize| match self.actions[k].nargs {
            Nargs::One | Nargs::AtLeastOne => 1,
            Nargs::Exactly(n) => n,
            _ => 0,
        };
        let mut at = 0;
        for (i, &k) in slots.iter().enumerate() {
            let later: usize = slots[i + 1..].iter().map(|&j| need(j)).sum();
            let left = words.len().saturating_sub(at);
            let free = left.saturating_sub(later);
            let n = match self.actions[k].nargs {
                Nargs::One => 1.min(left),
                Nargs::Exactly(n) => n.min(left),
                Nargs::Optional => 1.min(free),
                Nargs::Any => free,
                Nargs::AtLeastOne => free.max(1).min(left),
                Nargs::Zero => 0,
            };
            if n > 0 || matches!(self.actions[k].nargs, Nargs::Any) && left > 0 {
                parsed.found[k].push(words[at..at + n].to_vec());
            }
            at += n;
        }
        parsed.extras.extend(words[at..].iter().cloned());
    }

    /// `usage: main.py [-h] [--lr LR] epochs`, wrapped as argparse wraps it.
    pub fn format_usage(&self, text: Text<V>) -> String {
        let prefix = "usage: ";
        let opts: Vec<String> = self
            .actions
            .iter()
            .filter(|a| !a.positional())
            .map(|a| a.usage_part(text))
            .collect();
        let pos: Vec<String> = self
            .actions
            .iter()
            .filter(|a| a.positional())
            .map(|a| a.usage_part(text))
            .chain(
                self.subcommands
                    .iter()
                    .map(|s| format!("{} ...", s.metavar_text())),
            )
            .collect();
        let all: Vec<&str> = std::iter::once(self.prog.as_str())
            .chain(opts.iter().map(String::as_str))
            .chain(pos.iter().map(String::as_str))
            .collect();
        let line = all.join(" ");
        if prefix.len() + line.len() <= WIDTH {
            return format!("{prefix}{line}\n");
        }
        let indent = " ".repeat(prefix.len() + self.prog.len() + 1);
        let lines_of = |parts: &[&str], first: bool| -> Vec<String> {
            let mut lines = Vec::new();
            let mut line: Vec<&str> = Vec::new();
            let mut len = if first { prefix.len() } else { indent.len() } - 1;
            for &part in parts {
                if len + 1 + part.len() > WIDTH && !line.is_empty() {
                    lines.push(format!("{indent}{}", line.join(" ")));
                    line.clear();
                    len = indent.len() - 1;
                }
                line.push(part);
                len += part.len() + 1;
            }
            if !line.is_empty() {
                lines.push(format!("{indent}{}", line.join(" ")));
            }
            if first {
                if let Some(l) = lines.first_mut() {
                    *l = l[indent.len()..].to_string();
                }
            }
            lines
        };
        let mut lines;
        if opts.is_empty() {
            let parts: Vec<&str> = std::iter::once(self.prog.as_str())
                .chain(pos.iter().map(String::as_str))
                .collect();
            lines = lines_of(&parts, true);
        } else {
            let parts: Vec<&str> = std::iter::once(self.prog.as_str())
                .chain(opts.iter().map(String::as_str))
                .collect();
            lines = lines_of(&parts, true);
            let pos: Vec<&str> = pos.iter().map(String::as_str).collect();
            lines.extend(lines_of(&pos, false));
        }
        format!("{prefix}{}\n", lines.join("\n"))
    }

    /// The whole help: usage, description, each argument with its help
    /// (`%(default)s` filled in), epilog; as `print_help` writes it.
    pub fn format_help(&self, text: Text<V>) -> String {
        let mut out = self.format_usage(text);
        if let Some(d) = &self.description {
            out.push('\n');
            out.push_str(&wrap(d, WIDTH, "").join("\n"));
            out.push('\n');
        }
        // The commands' lines count too: `{train,eval}` indented 2, each
        // command with a help indented 4.
        let commands = self.subcommands.iter().flat_map(|s| {
            let listed = s.commands.iter().filter(|c| c.help.is_some());
            std::iter::once(s.metavar_text().len() + 2).chain(listed.map(|c| c.name.len() + 4))
        });
        let longest = self
            .actions
            .iter()
            .map(|a| a.invocation(text).len() + 2)
            .chain(commands)
            .max()
            .unwrap_or(0);
        let help_at = (longest + 2).min(24);
        let section = |title: &str, actions: Vec<&Action<V>>, out: &mut String| {
            if actions.is_empty() {
                return;
            }
            out.push_str(&format!("\n{title}:\n"));
            for a in actions {
                let inv = a.invocation(text);
                let help = a.help.as_deref().map(|h| self.fill(h, a, text));
                let width = help_at - 4;
                let lines = help
                    .as_deref()
                    .map(|h| wrap(h, (WIDTH - help_at).max(11), ""))
                    .unwrap_or_default();
                let pad = " ".repeat(help_at);
                match lines.split_first() {
                    None => out.push_str(&format!("  {inv}\n")),
                    Some((first, rest)) => {
                        if inv.len() <= width {
                            out.push_str(&format!("  {inv:<width$}  {first}\n"));
                        } else {
                            out.push_str(&format!("  {inv}\n{pad}{first}\n"));
                        }
                        for l in rest {
                            out.push_str(&format!("{pad}{l}\n"));
                        }
                    }
                }
            }
        };
        // The commands as argparse lists them: `{train,eval}` with the
        // action's help, then each command that has a help, indented.
        let command_lines = |s: &Subcommands<V>| {
            let mut lines = String::new();
            let mut line = |indent: usize, inv: &str, help: Option<&str>| {
                let width = help_at - indent - 2;
                match help {
                    Some(h) if inv.len() <= width => {
                        lines.push_str(&format!("{}{inv:<width$}  {h}\n", " ".repeat(indent)))
                    }
                    Some(h) => lines.push_str(&format!(
                        "{}{inv}\n{}{h}\n",
                        " ".repeat(indent),
                        " ".repeat(help_at)
                    )),
                    None => lines.push_str(&format!("{}{inv}\n", " ".repeat(indent))),
                }
            };
            line(2, &s.metavar_text(), s.help.as_deref());
            for c in s.commands.iter().filter(|c| c.help.is_some()) {
                line(4, &c.name, c.help.as_deref());
            }
            lines
        };
        let untitled = self
            .subcommands
            .as_ref()
            .filter(|s| s.title.is_none() && s.description.is_none());
        let pos: Vec<&Action<V>> = self.actions.iter().filter(|a| a.positional()).collect();
        if untitled.is_some() && pos.is_empty() {
            out.push_str("\npositional arguments:\n");
        }
        section("positional arguments", pos, &mut out);
        if let Some(s) = untitled {
            out.push_str(&command_lines(s));
        }
        let opts = self.actions.iter().filter(|a| !a.positional()).collect();
        section("options", opts, &mut out);
        if let Some(s) = self.subcommands.as_ref().filter(|_| untitled.is_none()) {
            let title = s.title.as_deref().unwrap_or("subcommands");
            out.push_str(&format!("\n{title}:\n"));
            if let Some(d) = &s.description {
                out.push_str(&format!("  {d}\n\n"));
            }
            out.push_str(&command_lines(s));
        }
        if let Some(e) = &self.epilog {
            out.push('\n');
            out.push_str(&wrap(e, WIDTH, "").join("\n"));
            out.push('\n');
        }
        out
    }

    /// A help text with `%(default)s`, `%(prog)s`, `%(dest)s` and
    /// `%(metavar)s` filled in, as argparse's `%` does.
    fn fill(&self, help: &str, a: &Action<V>, text: Text<V>) -> String {
        let shows_default = self.show_defaults
            && !help.contains("%(default)")
            && !matches!(a.kind, ActionKind::Help)
            && (!a.positional() || matches!(a.nargs, Nargs::Optional | Nargs::Any));
        let help = match shows_default {
            true => format!("{help} (default: %(default)s)"),
            false => help.to_string(),
        };
        help.replace("%(default)s", &text(&a.default))
            .replace("%(default)r", &text(&a.default))
            .replace("%(prog)s", &self.prog)
            .replace("%(dest)s", &a.dest)
            .replace("%(metavar)s", &a.metavar_text(text))
            .replace("%%", "%")
    }
}

/// Python's `textwrap.wrap` of a help text: whitespace collapsed, lines of
/// at most `width`, words kept whole.
fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > width {
            lines.push(format!("{indent}{line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(format!("{indent}{line}"));
    }
    lines
}

/// `--batch-size` → `batch_size`; a positional's name as it is.
pub fn dest_of(flags: &[String]) -> String {
    let long = flags.iter().find(|f| f.starts_with("--"));
    let name = long.or(flags.first()).map_or("", |f| f.as_str());
    name.trim_start_matches('-').replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values as text here: `"None"`, `"1.0"`.
    type V = &'static str;

    fn action(flags: &[&str], kind: ActionKind<V>, nargs: Nargs) -> Action<V> {
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        let positional = !flags[0].starts_with('-');
        Action {
            dest: dest_of(&flags),
            flags: if positional { Vec::new() } else { flags },
            kind,
            nargs,
            ty: None,
            default: "None",
            constant: "None",
            choices: None,
            required: false,
            help: None,
            metavar: None,
        }
    }

    fn parser() -> ArgumentParser<V> {
        let mut p = ArgumentParser::new(
            "ap.py".into(),
            Some("PyTorch MNIST Example".into()),
            None,
            "None",
        );
        let mut epochs = action(&["total_epochs"], ActionKind::Store, Nargs::One);
        epochs.help = Some("Total epochs to train the model".into());
        p.actions.push(epochs);
        let mut bs = action(&["--batch-size"], ActionKind::Store, Nargs::One);
        bs.metavar = Some("N".into());
        bs.help = Some("input batch size for training (default: 64)".into());
        p.actions.push(bs);
        let mut lr = action(&["--lr"], ActionKind::Store, Nargs::One);
        lr.metavar = Some("LR".into());
        lr.default = "1.0";
        lr.help = Some("learning rate (default: %(default)s)".into());
        p.actions.push(lr);
        let mut na = action(&["--no-accel"], ActionKind::StoreTrue, Nargs::Zero);
        na.help = Some("disables accelerator".into());
        p.actions.push(na);
        let mut model = action(&["--model"], ActionKind::Store, Nargs::One);
        model.choices = Some(vec!["LSTM", "GRU"]);
        model.help = Some("type of net".into());
        p.actions.push(model);
        let mut seed = action(&["--seed"], ActionKind::Store, Nargs::One);
        seed.metavar = Some("S".into());
        seed.help = Some("random seed (default: 1)".into());
        p.actions.push(seed);
        let mut save = action(&["--save-model"], ActionKind::StoreTrue, Nargs::Zero);
        save.help = Some("For Saving the current Model".into());
        p.actions.push(save);
        p
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// The text Python 3.11's argparse printed for the same parser.
    #[test]
    fn help_is_pythons() {
        let want = "\
usage: ap.py [-h] [--batch-size N] [--lr LR] [--no-accel] [--model {LSTM,GRU}]
             [--seed S] [--save-model]
             total_epochs

PyTorch MNIST Example

positional arguments:
  total_epochs        Total epochs to train the model

options:
  -h, --help          show this help message and exit
  --batch-size N      input batch size for training (default: 64)
  --lr LR             learning rate (default: 1.0)
  --no-accel          disables accelerator
  --model {LSTM,GRU}  type of net
  --seed S            random seed (default: 1)
  --save-model        For Saving the current Model
";
        let got = parser().format_help(&|v: &V| v.to_string());
        assert_eq!(got, want);
    }

    #[test]
    fn parses_as_python() {
        let p = parser();
        let r = p.parse(&words("5 --batch 32 --no-accel --lr=0.5")).unwrap();
        assert_eq!(r.found[1], vec![vec!["5".to_string()]]);
        assert_eq!(r.found[2], vec![vec!["32".to_string()]]);
        assert_eq!(r.found[3], vec![vec!["0.5".to_string()]]);
        assert_eq!(r.found[4], vec![Vec::<String>::new()]);
        assert!(r.extras.is_empty());
        assert_eq!(
            p.parse(&[]).unwrap_err(),
            "the following arguments are required: total_epochs"
        );
        assert_eq!(
            p.parse(&words("3 --batch-size")).unwrap_err(),
            "argument --batch-size: expected one argument"
        );
        assert_eq!(p.parse(&words("3 --foo")).unwrap().extras, ["--foo"]);
        assert_eq!(
            p.parse(&words("3 --s 1")).unwrap_err(),
            "ambiguous option: --s could match --seed, --save-model"
        );
        assert!(p.parse(&words("--help")).unwrap().help);
    }

    #[test]
    fn positionals_share_the_words() {
        let mut p = ArgumentParser::new("p".into(), None, None, "None");
        p.actions
            .push(action(&["src"], ActionKind::Store, Nargs::AtLeastOne));
        p.actions
            .push(action(&["dst"], ActionKind::Store, Nargs::One));
        let r = p.parse(&words("a b c")).unwrap();
        assert_eq!(r.found[1], vec![words("a b")]);
        assert_eq!(r.found[2], vec![words("c")]);
        assert_eq!(
            p.format_usage(&|v: &V| v.to_string()),
            "usage: p [-h] src [src ...] dst\n"
        );
    }
}
