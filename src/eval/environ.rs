//! `os.environ` as a program sets it: the session's variables, and a
//! rank's or a process's own over them (`OwnEnv`), never the process's
//! real environment (setting that while other threads run is not safe).

use crate::runtime::lock::lock;

/// What the program set with `os.environ[k] = v`: seen by `os.environ`
/// and `os.getenv` from then on (the process's own environment is left
/// alone: setting it while other threads run is not safe).
static ENV: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());

thread_local! {
    /// A rank's own environment on top of the session's (a process of its
    /// own has its own: `spawn`'s ranks, `cudash launch`'s `RANK`).
    static OWN_ENV: std::cell::RefCell<Option<Vec<(String, String)>>> =
        const { std::cell::RefCell::new(None) };
}

/// While alive, this thread's `os.environ` is `vars` over the session's,
/// and its writes stay its own.
pub struct OwnEnv(());

impl OwnEnv {
    pub fn install(vars: Vec<(String, String)>) -> OwnEnv {
        OWN_ENV.with(|e| *e.borrow_mut() = Some(vars));
        OwnEnv(())
    }
}

impl Drop for OwnEnv {
    fn drop(&mut self) {
        OWN_ENV.with(|e| *e.borrow_mut() = None);
    }
}

/// `os.environ[k] = v`.
pub fn set_env(k: &str, v: &str) {
    let set = |env: &mut Vec<(String, String)>| match env.iter_mut().find(|(key, _)| key == k) {
        Some((_, old)) => *old = v.to_string(),
        None => env.push((k.to_string(), v.to_string())),
    };
    let own = OWN_ENV.with(|e| e.borrow_mut().as_mut().map(set).is_some());
    if !own {
        set(&mut lock(&ENV));
    }
}

/// What the program set (the session's, then this thread's own over it):
/// what a process it starts inherits.
pub fn env_snapshot() -> Vec<(String, String)> {
    let mut vars = lock(&ENV).clone();
    OWN_ENV.with(|e| {
        for (k, v) in e.borrow().iter().flatten() {
            match vars.iter_mut().find(|(key, _)| key == k) {
                Some((_, old)) => old.clone_from(v),
                None => vars.push((k.clone(), v.clone())),
            }
        }
    });
    vars
}

/// `os.environ.get(key)`: what the program set, else the process's own.
pub fn env_var(key: &str) -> Option<String> {
    let set = env_snapshot().into_iter().find(|(k, _)| k == key);
    set.map(|(_, v)| v).or_else(|| std::env::var(key).ok())
}
