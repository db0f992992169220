//! Command-line front ends: `run` (transcripts, notebooks), `present`
//! (lessons in the terminal), and `cuda` (what the machine offers the CUDA
//! backend). The REPL, the plain line one too, is `repl`.

pub mod cuda;
pub mod notebook;
pub mod present;
pub mod run;
pub mod transcript;

use crate::session::{Config, Session};

/// Ctrl-C stops the running statement (an `Interrupted` error at its span)
/// rather than killing the process; the flag stays set so the caller can stop.
pub fn interrupt_on_ctrl_c(session: &Session) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let flag = session.interrupt_handle();
    let handler = std::sync::Arc::clone(&flag);
    let _ = ctrlc::set_handler(move || handler.store(true, std::sync::atomic::Ordering::Relaxed));
    flag
}

/// The exit status of a run stopped by Ctrl-C, as shells report SIGINT.
pub const INTERRUPTED: u8 = 130;

pub fn check_backend(name: &str) -> Result<(), String> {
    match name {
        "auto" | "sim" => Ok(()),
        "cuda" => Err(crate::runtime::cuda::probe::cuda_backend_error()),
        other => Err(format!("unknown backend `{other}`: use auto, cuda or sim")),
    }
}

/// `cudash devices`: the device table.
pub fn devices(config: Config) -> u8 {
    println!("{}", Session::new(config).devices_table());
    0
}

/// `cudash kernel install [--user | --prefix P]`.
pub fn install_kernel(prefix: Option<std::path::PathBuf>, extra: &[String]) -> u8 {
    let target = match prefix {
        Some(p) => crate::kernel::install::Target::Prefix(p),
        None => crate::kernel::install::Target::User,
    };
    match crate::kernel::install::install(&target, extra) {
        Ok(dir) => {
            println!("installed the cudash kernelspec in {}", dir.display());
            0
        }
        Err(e) => {
            eprintln!("cudash kernel install: {e}");
            1
        }
    }
}
