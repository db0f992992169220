//! Byte counts as people read and write them.

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

/// `part` of `whole`, each in `whole`'s unit with as many decimals (up to
/// 3) as it takes for a difference to show: `15.98 GiB` of `16.00 GiB`
/// rather than `16.0 GiB` of `16.0 GiB` when 22 MiB are taken.
pub fn bytes_of(part: u128, whole: u128) -> (String, String) {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let (a, b) = (human_bytes(part), human_bytes(whole));
    if part == whole || a != b {
        return (a, b);
    }
    let u = b.rsplit(' ').next().unwrap_or("B");
    let Some(k) = UNITS.iter().position(|x| *x == u).filter(|&k| k > 0) else {
        return (a, b);
    };
    let scale = 1024f64.powi(k as i32);
    let (p, w) = (part as f64 / scale, whole as f64 / scale);
    for d in 2..=3 {
        let (x, y) = (format!("{p:.d$} {u}"), format!("{w:.d$} {u}"));
        if x != y || d == 3 {
            return (x, y);
        }
    }
    (a, b)
}

/// Parses `16GiB`, `512MiB`, `2GB`, `1048576`.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size (try 16GiB, 512MiB)"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(format!(
                "unknown size unit `{other}` in `{s}` (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)"
            ))
        }
    };
    let bytes = n * mult;
    if !bytes.is_finite() || bytes < 0.0 || bytes > (1u64 << 60) as f64 {
        return Err(format!("`{s}` is not a usable memory size"));
    }
    Ok(bytes as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_shows_enough_digits_to_differ_from_the_whole() {
        let gib = 1u128 << 30;
        assert_eq!(
            bytes_of(16 * gib - (22 << 20), 16 * gib),
            ("15.98 GiB".into(), "16.00 GiB".into())
        );
        assert_eq!(
            bytes_of(16 * gib - (512 << 10), 16 * gib),
            ("16.000 GiB".into(), "16.000 GiB".into())
        );
        assert_eq!(
            bytes_of(16 * gib, 16 * gib),
            ("16.0 GiB".into(), "16.0 GiB".into())
        );
        assert_eq!(
            bytes_of(gib, 16 * gib),
            ("1.0 GiB".into(), "16.0 GiB".into())
        );
    }

    #[test]
    fn sizes_print() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("16GiB").unwrap(), 16 << 30);
        assert_eq!(parse_size("512 MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3 parsecs").is_err());
    }
}
