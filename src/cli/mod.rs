//! Command-line front ends: `run` (transcripts) and the line REPL.

pub mod repl;
pub mod run;

use crate::session::{Config, Session};

pub fn check_backend(name: &str) -> Result<(), String> {
    match name {
        "auto" | "cpu" => Ok(()),
        "cuda" | "sim" => Err(format!(
            "--backend {name} is not available in this build yet: only the cpu backend exists (use --backend auto)"
        )),
        other => Err(format!("unknown backend `{other}`: use auto, cuda or sim")),
    }
}

/// `cudash devices`: the device table.
pub fn devices(config: Config) -> u8 {
    let s = Session::new(config);
    println!("backend: {}", s.backend_name());
    println!("{:<6} {:<24} {:>18}", "index", "name", "memory");
    println!("{:<6} {:<24} {:>18}", "cpu", "host", "system memory");
    println!("no CUDA devices: the cpu backend runs every op on the host, synchronously");
    0
}
