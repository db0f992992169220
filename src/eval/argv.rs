//! The program's command line and what Python makes of it: `sys.argv`,
//! `sys.path` (where `import` looks for the program's own modules) and
//! the script's `__file__`. One of each per process, as Python's.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::value::Value;
use crate::runtime::lock::lock;

/// The program's command line, as `sys.argv` gives it (`[""]` in the
/// REPL and a notebook, as Python's interactive `sys.argv`).
static ARGV: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// `cudash script FILE ARGS`: `sys.argv` is `[FILE, ARGS...]`.
pub fn set_argv(argv: Vec<String>) {
    *lock(&ARGV) = argv;
    reset_sys_path();
}

/// `sys.argv`.
pub fn argv() -> Vec<String> {
    let argv = lock(&ARGV).clone();
    match argv.is_empty() {
        true => vec![String::new()],
        false => argv,
    }
}

/// The running script's `__file__`: its absolute path; none in the REPL
/// or a notebook, where Python has none either.
pub fn main_file() -> Option<String> {
    let argv = lock(&ARGV);
    let file = std::path::Path::new(argv.first().filter(|f| !f.is_empty())?);
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    Some(file.to_string_lossy().into_owned())
}

/// `sys.path`: the list `import` searches for a program's own modules,
/// one list for the process (a program's `sys.path.insert(0, dir)` holds
/// for its later imports). Made from the command line on first use.
static SYS_PATH: Mutex<Option<SharedList>> = Mutex::new(None);

/// A Python list's storage (`Value::MutList`'s), the same for every holder.
type SharedList = Arc<Mutex<Arc<Vec<Value>>>>;

/// `sys.path` as Python starts it: the script's directory (the current
/// one, `''`, in the REPL and a notebook), then `PYTHONPATH`'s entries.
/// cudash's own modules come after these, as Python's standard library
/// does.
fn initial_sys_path() -> Vec<Value> {
    let dir = script_dir();
    let first = match dir.as_os_str().is_empty() {
        true => String::new(),
        false => std::path::absolute(&dir)
            .unwrap_or(dir)
            .to_string_lossy()
            .into_owned(),
    };
    let extra = std::env::var("PYTHONPATH").unwrap_or_default();
    std::iter::once(first)
        .chain(
            extra
                .split(':')
                .filter(|d| !d.is_empty())
                .map(str::to_string),
        )
        .map(|d| Value::Str(Arc::new(d)))
        .collect()
}

/// `sys.path`, the same list on every read.
pub(super) fn sys_path() -> Value {
    let mut slot = lock(&SYS_PATH);
    let list = slot.get_or_insert_with(|| Arc::new(Mutex::new(Arc::new(initial_sys_path()))));
    Value::MutList(Arc::clone(list))
}

/// A new command line makes `sys.path` anew on its next read.
fn reset_sys_path() {
    *lock(&SYS_PATH) = None;
}

/// The directories of `sys.path`, in order (`''` is the current one);
/// entries that are not strings are passed over, as Python passes over
/// what it cannot search.
pub(super) fn search_dirs() -> Vec<PathBuf> {
    let Value::MutList(list) = sys_path() else {
        return Vec::new();
    };
    let items = Arc::clone(&lock(&list));
    items
        .iter()
        .filter_map(|v| match v {
            Value::Str(s) => Some(PathBuf::from(s.as_str())),
            _ => None,
        })
        .collect()
}

/// The script's directory (Python's `sys.path[0]`; the current one in the
/// REPL).
fn script_dir() -> PathBuf {
    let argv0 = argv().remove(0);
    std::path::Path::new(&argv0)
        .parent()
        .map_or_else(PathBuf::new, PathBuf::from)
}
