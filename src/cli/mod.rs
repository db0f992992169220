//! Command-line front ends: `run` (transcripts, notebooks), `present`
//! (lessons in the terminal), and `cuda` (what the machine offers the CUDA
//! backend). The REPL, the plain line one too, is `repl`.

pub mod cuda;
pub mod notebook;
pub mod present;
pub mod run;
pub mod transcript;

use crate::session::{Config, Session};

/// The exit status of a run stopped by Ctrl-C, as shells report SIGINT.
pub const INTERRUPTED: u8 = 130;

/// `cudash devices`: the device table.
pub fn devices(config: Config) -> u8 {
    match Session::open(config) {
        Ok(s) => {
            println!("{}", s.devices_table());
            0
        }
        Err(code) => code,
    }
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
