//! `cudash kernel install`: writes the kernelspec Jupyter finds the kernel by.

use std::path::{Path, PathBuf};

/// Where the kernelspec goes.
pub enum Target {
    /// The user's Jupyter data directory (`jupyter --data-dir`).
    User,
    /// `PREFIX/share/jupyter/kernels/cudash`, e.g. a virtual environment.
    Prefix(PathBuf),
}

const LOGOS: [(&str, &[u8]); 3] = [
    (
        "logo-32x32.png",
        include_bytes!("../../assets/logo-32x32.png"),
    ),
    (
        "logo-64x64.png",
        include_bytes!("../../assets/logo-64x64.png"),
    ),
    ("logo-svg.svg", include_bytes!("../../assets/logo-svg.svg")),
];

/// Writes `kernel.json` and the logos; returns the folder written.
/// `extra` are global options (`--sim-devices 4`) the kernel is started with.
pub fn install(target: &Target, extra: &[String]) -> Result<PathBuf, String> {
    let dir = match target {
        Target::User => user_data_dir()?,
        Target::Prefix(p) => p.join("share").join("jupyter"),
    }
    .join("kernels")
    .join("cudash");
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find this program's own path: {e}"))?;
    let mut argv = vec![exe.to_string_lossy().into_owned()];
    argv.extend(extra.iter().cloned());
    argv.extend(["kernel", "-f", "{connection_file}"].map(String::from));
    let spec = serde_json::json!({
        "argv": argv,
        "display_name": "cudash",
        "language": "cudash",
        "interrupt_mode": "message",
        "metadata": { "debugger": false },
    });
    write(&dir, &spec)
        .map_err(|e| format!("cannot write the kernelspec to {}: {e}", dir.display()))?;
    Ok(dir)
}

fn write(dir: &Path, spec: &serde_json::Value) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let text = serde_json::to_string_pretty(spec).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("kernel.json"), text + "\n")?;
    for (name, bytes) in LOGOS {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}

/// Jupyter's user data directory, found as `jupyter --data-dir` finds it.
fn user_data_dir() -> Result<PathBuf, String> {
    if let Some(d) = std::env::var_os("JUPYTER_DATA_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or("HOME is not set: use --prefix to say where the kernelspec goes")?;
    if cfg!(target_os = "macos") {
        return Ok(home.join("Library").join("Jupyter"));
    }
    Ok(std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".local").join("share"))
        .join("jupyter"))
}
