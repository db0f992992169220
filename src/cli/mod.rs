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

/// Whether output may be coloured: not with `--no-color`, nor with
/// `NO_COLOR` set to anything but an empty string (no-color.org). Front ends
/// also leave it off where output is not a terminal.
pub fn colour_wanted(no_color_flag: bool, no_color_env: Option<&std::ffi::OsStr>) -> bool {
    !no_color_flag && no_color_env.is_none_or(|v| v.is_empty())
}

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

#[cfg(test)]
mod tests {
    use super::colour_wanted;
    use std::ffi::OsStr;

    #[test]
    fn no_color_counts_only_when_set_and_not_empty() {
        assert!(colour_wanted(false, None));
        assert!(colour_wanted(false, Some(OsStr::new(""))));
        assert!(!colour_wanted(false, Some(OsStr::new("1"))));
        assert!(!colour_wanted(true, None));
    }
}
