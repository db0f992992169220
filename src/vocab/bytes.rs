//! Byte counts as people read them.

/// `1.5 GiB`, `512 B`.
pub fn human_bytes(b: u128) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else if v >= 1e6 {
        format!("{v:.3e} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
