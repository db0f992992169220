//! A program's own modules: `from datautils import MyTrainDataset` where
//! `datautils.py` sits beside the script (Python's `sys.path[0]`; the
//! current directory in the REPL and a notebook). The file runs once, in
//! a global namespace of its own (`__name__` is its name, so its `if
//! __name__ == "__main__":` block does not run); `import datautils` binds
//! the module and `from datautils import X` its names.
//!
//! Each module's variables are a table of their own (`Globals`), kept by
//! the interpreter while they are not running. A function remembers the
//! table it was defined in (`Function::home`): a call of a module's
//! function runs with that table as the globals, and one of the program's
//! functions called back from it with the program's. A rank of `spawn`
//! or a DataLoader worker that meets a module of the session imports the
//! file again in its own interpreter, as a spawned Python process does.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::globals::Globals;
use super::value::OwnModule;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error, Source};
use crate::lang::Span;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// Every module imported in this process, by table number: what a rank
/// or a worker imports again when it meets one of the session's.
static IMPORTED: Mutex<Vec<Arc<OwnModule>>> = Mutex::new(Vec::new());

/// The file `import name` reads: `name.py` (or `name/__init__.py`) in a
/// directory of `sys.path` (the script's first), where there is one (as in
/// Python, it hides a module of the standard library's); else one of
/// cudash's own (`stdlib/`).
fn file_of(name: &str) -> Option<PathBuf> {
    on_the_path(name)
        .or_else(|| super::stdlib::path_of(name))
        .or_else(|| namespace_package(name))
}

/// A directory on `sys.path` without `__init__.py`: a namespace package,
/// found last, as Python finds one only where no module or package of
/// that name is (so a `logging/` folder hides nothing).
fn namespace_package(name: &str) -> Option<PathBuf> {
    let rel = name.replace('.', "/");
    super::argv::search_dirs()
        .into_iter()
        .map(|dir| dir.join(&rel))
        .find(|p| p.is_dir())
        .map(|p| std::path::absolute(&p).unwrap_or(p))
}

/// The error of importing `m.name`, where `m` is one of cudash's own
/// modules (`stdlib/`) and has no such submodule: `imports.rs` says which
/// parts it has (`torchvision.ops`, `numpy.linalg`).
fn lacked_part(m: &OwnModule, name: &str) -> Option<Error> {
    let sub = format!("{}.{name}", m.name);
    if super::stdlib::text(&m.path).is_none() || file_of(&sub).is_some() {
        return None;
    }
    super::imports::module(&sub).err()
}

/// `name.py` or `name/__init__.py` in the first directory of `sys.path`
/// that has one.
fn on_the_path(name: &str) -> Option<PathBuf> {
    let rel = name.replace('.', "/");
    super::argv::search_dirs()
        .into_iter()
        .flat_map(|dir| {
            [
                dir.join(format!("{rel}.py")),
                dir.join(format!("{rel}/__init__.py")),
            ]
        })
        .find(|p| p.is_file())
        // Python names a module's file by its absolute path.
        .map(|p| std::path::absolute(&p).unwrap_or(p))
}

impl Interp {
    /// `import datautils`, `from datautils import MyTrainDataset`: a
    /// module of the program's own file, run once.
    /// False when the script's directory holds no such file.
    pub(super) fn import_own_item(
        &mut self,
        item: &crate::lang::ast::Import,
    ) -> Result<bool, Diagnostic> {
        let Some(path) = file_of(&item.module) else {
            return Ok(false);
        };
        let m = self.import_own(&item.module, path, item.module_span)?;
        let v = match &item.member {
            // `import torch.distributions` binds `torch`, which then reads
            // `torch.distributions` as this module.
            None if item.module.starts_with("torch.") && item.bind.name == "torch" => {
                Value::Namespace(
                    super::imports::module("torch").map_err(|e| e.at(item.module_span))?,
                )
            }
            // `import pkg.mod` binds the package `pkg`, which has `mod` as
            // an attribute now (`import pkg.mod as m` binds the module).
            None if item.module.split('.').next() == Some(item.bind.name.as_str())
                && item.module.contains('.') =>
            {
                let top = item.bind.name.as_str();
                match self.own_modules.iter().find(|m| m.name == top) {
                    Some(top) => Value::OwnModule(Arc::clone(top)),
                    None => Value::OwnModule(m),
                }
            }
            None => Value::OwnModule(m),
            Some(name) if name.name == "*" => {
                self.import_every_name(&m, name.span)?;
                return Ok(true);
            }
            Some(name) => match self.own_module_attr(&m, &name.name, name.span) {
                Ok(v) => v,
                // `from package import submodule`: the module file beside it.
                Err(_) => {
                    let sub = format!("{}.{}", item.module, name.name);
                    // `from torchvision import ops`: what cudash's own
                    // package lacks, said as an import of it is.
                    if let Some(e) = lacked_part(&m, &name.name) {
                        return Err(e.at(name.span));
                    }
                    let Some(path) = file_of(&sub) else {
                        let partly = match self.initializing.contains(&m.table) {
                            true => "partially initialized module ",
                            false => "",
                        };
                        let cycle = match partly.is_empty() {
                            true => "",
                            false => " (most likely due to a circular import)",
                        };
                        return Err(Error::Spelling {
                            message: format!(
                                "cannot import name '{}' from {partly}'{}'{cycle} ({})",
                                name.name,
                                m.name,
                                m.path.display()
                            ),
                            label: "not in the module".into(),
                            help: match partly.is_empty() {
                                true => format!("`{}` defines no `{}`", m.path.display(), name.name),
                                false => format!(
                                    "`{}` imports this module before it defines `{}`: import it below that definition, or inside the function that needs it",
                                    m.path.display(),
                                    name.name
                                ),
                            },
                            class: "ImportError",
                        }
                        .at(name.span));
                    };
                    Value::OwnModule(self.import_own(&sub, path, name.span)?)
                }
            },
        };
        self.assign(&item.bind, v);
        Ok(true)
    }

    /// Calls `function` of `module`, one of cudash's own modules
    /// (`stdlib/`), with `args`: how the interpreter hands work to them
    /// (`torch.nn.utils.parametrize`, a module's backward hooks).
    pub(crate) fn call_stdlib(
        &mut self,
        module: &str,
        function: &str,
        args: Vec<Value>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let args = args
            .into_iter()
            .map(|value| super::args::ArgVal::positional(value, span))
            .collect();
        self.call_stdlib_args(module, function, args, span)
    }

    /// `torch.embedding_renorm_(weight, indices, max_norm, norm_type)`:
    /// what an embedding with `max_norm` does to the rows it is about to
    /// read (`stdlib/torch_nn_more.py`).
    pub(crate) fn embedding_renorm(
        &mut self,
        weight: &Arc<Tensor>,
        indices: &Arc<Tensor>,
        (max_norm, norm_type): (f64, f64),
        span: Span,
    ) -> Result<(), Diagnostic> {
        let args = vec![
            Value::Tensor(Arc::clone(weight)),
            Value::Tensor(Arc::clone(indices)),
            Value::Float(super::value::Word::new(max_norm)),
            Value::Float(super::value::Word::new(norm_type)),
        ];
        self.call_stdlib("torch.nn._more", "embedding_renorm_", args, span)?;
        Ok(())
    }

    /// [`Interp::call_stdlib`] with arguments as a call writes them
    /// (keywords among them).
    pub(crate) fn call_stdlib_args(
        &mut self,
        module: &str,
        function: &str,
        args: Vec<super::args::ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let path = super::stdlib::path_of(module).expect("a module of stdlib/");
        let own = self.import_own(module, path, span)?;
        let f = self.own_module_attr(&own, function, span)?;
        self.call_value(f, args, span)
    }

    /// `module.name` of a namespace of cudash's builtins (`torch.zeros`),
    /// or, where cudash writes that submodule in Python (`torch.distributions`,
    /// `stdlib/`), that module, imported on first use.
    pub(crate) fn namespace_member(
        &mut self,
        m: &'static crate::eval::value::PyModule,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let full = format!("{}.{name}", m.path);
        // A name of PyTorch's that a module of cudash's own defines.
        if let Some(module) = super::stdlib::member_module(m.path, name) {
            let path = super::stdlib::path_of(module).expect("a module of stdlib/");
            let own = self.import_own(module, path, span)?;
            return self.own_module_attr(&own, name, span);
        }
        match super::stdlib::path_of(&full) {
            Some(path) => Ok(Value::OwnModule(self.import_own(&full, path, span)?)),
            None => super::imports::member(m, name).map_err(|e| e.at(span)),
        }
    }

    /// `from module import *`: each of the module's names that does not
    /// start with `_` (or those its `__all__` lists), as Python binds them.
    fn import_every_name(&mut self, m: &OwnModule, span: Span) -> Result<(), Diagnostic> {
        let local = self.local_table(m.table, span)?;
        let table = match self.vars.number() == local {
            true => &self.vars,
            false => match self.parked.iter().find(|t| t.number() == local) {
                Some(t) => t,
                None => return Ok(()),
            },
        };
        let listed: Option<Vec<String>> = match table.get("__all__") {
            Some(v @ (Value::List(_) | Value::MutList(_))) => Some(
                v.items()
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|v| match v {
                        Value::Str(s) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        };
        let names: Vec<(String, Value)> = match listed {
            Some(names) => names
                .into_iter()
                .filter_map(|n| table.get(&n).cloned().map(|v| (n, v)))
                .collect(),
            None => table
                .iter()
                .filter(|(n, _)| !n.starts_with('_'))
                .map(|(n, v)| (n.clone(), v.clone()))
                .collect(),
        };
        for (name, v) in names {
            self.assign(&crate::lang::ast::Name::new(name, span), v);
        }
        Ok(())
    }

    /// The absolute name of a relative import's module, Python's rule:
    /// `.fsdp` in the package `configs` is `configs.fsdp`; each dot after
    /// the first goes up one package. The importing module is the one
    /// whose file is running.
    pub(super) fn absolute_module(&self, module: &str, span: Span) -> Result<String, Diagnostic> {
        let dots = module.len() - module.trim_start_matches('.').len();
        let rest = &module[dots..];
        let running = self.source.as_ref().map(|s| s.name.as_str());
        let here = self
            .own_modules
            .iter()
            .find(|m| Some(m.path.display().to_string().as_str()) == running);
        let no_parent = || {
            Error::Spelling {
                message: "attempted relative import with no known parent package".into(),
                label: "a relative import".into(),
                help: "a program's own file imports its neighbours by name (`from datautils import X`); \
                       `from .x import y` works in a package's modules"
                    .into(),
                class: "ImportError",
            }
            .at(span)
        };
        let Some(here) = here else {
            return Err(no_parent());
        };
        let mut package: Vec<&str> = here.name.split('.').collect();
        if !here.path.ends_with("__init__.py") {
            package.pop();
        }
        for _ in 1..dots {
            if package.pop().is_none() {
                return Err(no_parent());
            }
        }
        if package.is_empty() {
            return Err(no_parent());
        }
        let mut name = package.join(".");
        if !rest.is_empty() {
            name = format!("{name}.{rest}");
        }
        Ok(name)
    }

    /// The module `name` from `path`, run now unless this interpreter has
    /// already imported it (Python's `sys.modules`).
    pub(super) fn import_own(
        &mut self,
        name: &str,
        path: PathBuf,
        span: Span,
    ) -> Result<Arc<OwnModule>, Diagnostic> {
        if let Some(m) = self.own_modules.iter().find(|m| m.path == path) {
            return Ok(Arc::clone(m));
        }
        // Python imports a submodule's packages first (`pkg/__init__.py`
        // runs before `pkg/mod.py`), and makes the submodule an attribute
        // of its package once it has run.
        let parent = match name.rsplit_once('.') {
            Some((package, _)) => match file_of(package) {
                Some(p) => Some(self.import_own(package, p, span)?),
                None => None,
            },
            None => None,
        };
        // The package's `__init__.py` may have imported it.
        if let Some(m) = self.own_modules.iter().find(|m| m.path == path) {
            return Ok(Arc::clone(m));
        }
        let module = self.run_module(name, path, span)?;
        if let Some(parent) = parent {
            let attr = name.rsplit_once('.').map_or(name, |(_, a)| a);
            self.set_own_module_attr(&parent, attr, Value::OwnModule(Arc::clone(&module)), span)?;
        }
        Ok(module)
    }

    /// Sets `m.name` (a variable of the module's table).
    fn set_own_module_attr(
        &mut self,
        m: &OwnModule,
        name: &str,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let local = self.local_table(m.table, span)?;
        match self.vars.number() == local {
            true => self.vars.insert(name.to_string(), v),
            false => {
                if let Some(t) = self.parked.iter_mut().find(|t| t.number() == local) {
                    t.insert(name.to_string(), v);
                }
            }
        }
        Ok(())
    }

    /// Runs the module `name`'s file (`path`): its own globals, registered
    /// before its body runs (an import cycle finds it half made, as in
    /// Python). A directory without `__init__.py` is a namespace package:
    /// a module with nothing in it but what is imported into it.
    fn run_module(
        &mut self,
        name: &str,
        path: PathBuf,
        span: Span,
    ) -> Result<Arc<OwnModule>, Diagnostic> {
        let text = match super::stdlib::text(&path) {
            Some(text) => Ok(text.to_string()),
            None if path.is_dir() => Ok(String::new()),
            None => std::fs::read_to_string(&path),
        }
        .map_err(|e| {
            Error::Io {
                action: "read the module".into(),
                path: path.display().to_string(),
                reason: e.to_string(),
            }
            .at(span)
        })?;
        let source = Arc::new(Source {
            name: path.display().to_string(),
            text: Arc::from(text.as_str()),
        });
        let stmts = crate::lang::parse_as(&text, crate::lang::Dialect::Python)
            .map_err(|mut errors| errors.swap_remove(0).in_source(&source))?;
        crate::lang::flow::check(&stmts).map_err(|d| d.in_source(&source))?;
        // The module's own globals while its body runs.
        let mut table = Globals::default();
        table.insert("__name__".into(), Value::Str(Arc::new(name.to_string())));
        table.insert(
            "__file__".into(),
            Value::Str(Arc::new(path.display().to_string())),
        );
        let number = table.number();
        let module = Arc::new(OwnModule {
            name: name.to_string(),
            path,
            table: number,
        });
        self.own_modules.push(Arc::clone(&module));
        lock(&IMPORTED).push(Arc::clone(&module));
        // The importer's table waits with the parked ones: an import cycle
        // back into it (`from a import X` in the module `a` imports) finds
        // what it has defined so far, as Python's half-made module.
        let outer = std::mem::replace(&mut self.vars, table);
        let outer_number = outer.number();
        self.parked.push(outer);
        let outer_source = self.source.replace(Arc::clone(&source));
        // A module first imported inside a function (a stdlib function
        // reaching `torch.linalg.det`) runs its body at its own top level:
        // its functions are the module's text, closing over nothing of
        // the caller's.
        let outer_frames = std::mem::take(&mut self.frames);
        let mut ran = Ok(());
        self.initializing.push(number);
        // A module's body shows no values (its docstring is no output),
        // also when a REPL cell or a notebook imports it.
        self.quiet += 1;
        for s in &stmts {
            if let Err(d) = self.exec(s) {
                ran = Err(d.in_source(&source));
                break;
            }
        }
        self.quiet -= 1;
        self.initializing.retain(|&n| n != number);
        self.frames = outer_frames;
        self.source = outer_source;
        let k = self.parked.iter().position(|t| t.number() == outer_number);
        let outer = k.map(|k| self.parked.swap_remove(k)).unwrap_or_default();
        let table = std::mem::replace(&mut self.vars, outer);
        self.parked.push(table);
        ran.map(|()| module)
    }

    /// What pickle's `find_class(module, name)` finds: a name of the
    /// session's script (`__main__`), or of the module `module`, imported
    /// as Python's pickle imports it. None where there is no such module.
    pub(super) fn pickled_global(
        &mut self,
        module: &str,
        name: &str,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        if module == "__main__" {
            let modules: Vec<u64> = self.own_modules.iter().map(|m| m.table).collect();
            let main = std::iter::once(&self.vars)
                .chain(self.parked.iter())
                .find(|t| !modules.contains(&t.number()));
            return Ok(main.and_then(|t| t.get(name).cloned()));
        }
        let Some(path) = file_of(module) else {
            return Ok(None);
        };
        let m = self.import_own(module, path, span)?;
        Ok(self.own_module_attr(&m, name, span).ok())
    }

    /// `module.name`, `from module import name`: a variable of the module.
    pub(super) fn own_module_attr(
        &mut self,
        m: &OwnModule,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let local = self.local_table(m.table, span)?;
        let table = match self.vars.number() == local {
            true => Some(&self.vars),
            false => self.parked.iter().find(|t| t.number() == local),
        };
        // `models.__dict__`: the module's variables (a copy), as the
        // imagenet example lists torchvision's models by it.
        if name == "__dict__" {
            let vars = table
                .map(|t| {
                    t.iter()
                        .map(|(n, v)| (super::value::Key::Str(n.clone()), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            return Ok(Value::Dict(super::value::PyDict::new(vars)));
        }
        let found = table.and_then(|t| t.get(name).cloned());
        // `models.resnet` of cudash's own package: its submodule, imported
        // on first use (torchvision's `__init__` imports them all).
        if found.is_none() {
            let full = format!("{}.{name}", m.name);
            if let Some(path) = super::stdlib::path_of(&full) {
                return Ok(Value::OwnModule(self.import_own(&full, path, span)?));
            }
        }
        found.ok_or_else(|| {
            // `torchvision.ops`, `np.linalg`: a part cudash's own module
            // lacks says which parts it has.
            let help = match lacked_part(m, name) {
                Some(Error::Spelling { help, .. }) => Some(help),
                _ => None,
            };
            Error::Attribute {
                message: format!("module '{}' has no attribute '{name}'", m.name),
                help,
            }
            .at(span)
        })
    }

    /// This interpreter's number for the table `home`: its own, or, for a
    /// module the session imported, the copy imported again here. None
    /// for a table that is no module's (the session's, seen from a rank:
    /// its functions run with the rank's globals).
    fn local_table(&mut self, home: u64, span: Span) -> Result<u64, Diagnostic> {
        if self.vars.number() == home || self.parked.iter().any(|t| t.number() == home) {
            return Ok(home);
        }
        if let Some(&(_, local)) = self.module_alias.iter().find(|(h, _)| *h == home) {
            return Ok(local);
        }
        let known = lock(&IMPORTED).iter().find(|m| m.table == home).cloned();
        match known {
            Some(m) => {
                let here = self.import_own(&m.name, m.path.clone(), span)?;
                // A module a worker adopted is the one its process imported,
                // under that process's number: the worker's own copy is
                // the table that number leads to here.
                let local = self
                    .module_alias
                    .iter()
                    .find(|(h, _)| *h == here.table)
                    .map_or(here.table, |&(_, l)| l);
                self.module_alias.push((home, local));
                Ok(local)
            }
            // No module's table (the session's, seen from a rank or a
            // worker): remembered, so later calls need no look at the
            // process's list.
            None => {
                self.module_alias.push((home, home));
                Ok(home)
            }
        }
    }

    /// Runs `call` with the table `home` as the globals (a module's
    /// function), the current one put back after, also after an error.
    pub(super) fn at_home<R>(
        &mut self,
        home: u64,
        span: Span,
        call: impl FnOnce(&mut Interp) -> Result<R, Diagnostic>,
    ) -> Result<R, Diagnostic> {
        let local = self.local_table(home, span)?;
        let Some(k) = self.parked.iter().position(|t| t.number() == local) else {
            return call(self);
        };
        // The current table waits with the others: a function of its own
        // called back from the module finds it there.
        let table = self.parked.swap_remove(k);
        let outer = std::mem::replace(&mut self.vars, table);
        let outer_number = outer.number();
        self.parked.push(outer);
        let r = call(self);
        if let Some(k) = self.parked.iter().position(|t| t.number() == outer_number) {
            let outer = self.parked.swap_remove(k);
            let table = std::mem::replace(&mut self.vars, outer);
            self.parked.push(table);
        }
        r
    }
}

impl Interp {
    /// The program's own table (its `__main__`'s), also while a module's
    /// function runs (then it waits with the parked ones): what a spawned
    /// process re-creates.
    pub(super) fn main_table(&self) -> &Globals {
        let module = |n: u64| {
            self.own_modules.iter().any(|m| {
                let local = self
                    .module_alias
                    .iter()
                    .find(|(h, _)| *h == m.table)
                    .map_or(m.table, |&(_, l)| l);
                local == n
            })
        };
        std::iter::once(&self.vars)
            .chain(self.parked.iter())
            .find(|t| !module(t.number()))
            .unwrap_or(&self.vars)
    }
}

/// The program's modules as a forked process holds them: each module, its
/// table's number here, and copies of its variables.
pub(crate) type ModuleCopies = Vec<(Arc<OwnModule>, u64, Vec<(String, Value)>)>;

impl Interp {
    /// This interpreter's modules, copied for a DataLoader worker (a
    /// forked process: it does not import them again, it has them as
    /// they are).
    pub(crate) fn forked_modules(&self) -> ModuleCopies {
        let mut copies = Vec::new();
        for m in &self.own_modules {
            let local = self
                .module_alias
                .iter()
                .find(|(h, _)| *h == m.table)
                .map_or(m.table, |&(_, l)| l);
            let table = match self.vars.number() == local {
                true => Some(&self.vars),
                false => self.parked.iter().find(|t| t.number() == local),
            };
            if let Some(t) = table {
                let vars = t
                    .iter()
                    .map(|(k, v)| (k.clone(), super::data::own_copy(v)))
                    .collect();
                copies.push((Arc::clone(m), local, vars));
            }
        }
        copies
    }

    /// A worker takes the modules `forked_modules` copied: tables of its
    /// own, which the session's numbers (and their functions' homes) lead to.
    pub(crate) fn adopt_modules(&mut self, copies: ModuleCopies) {
        for (m, local, vars) in copies {
            let mut t = Globals::default();
            for (k, v) in vars {
                t.insert(k, v);
            }
            self.module_alias.push((m.table, t.number()));
            if local != m.table {
                self.module_alias.push((local, t.number()));
            }
            self.parked.push(t);
            self.own_modules.push(m);
        }
    }
}
