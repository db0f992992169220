//! Tar archives (`.tar`, `.tar.gz`, `.tgz`: CIFAR-10's download), read as
//! Python's `tarfile` reads them: ustar headers with their name prefix,
//! GNU long names and PAX `path` records; regular files and directories
//! (links and devices are refused). A member whose name climbs out of the
//! folder it is unpacked into (`../x`, `/etc/x`) is refused, as Python's
//! `data` extraction filter does.

use std::path::{Component, Path, PathBuf};

/// One member: its path inside the archive, and its bytes (none for a
/// directory).
#[derive(Debug, PartialEq)]
pub struct Member {
    pub name: String,
    pub dir: bool,
    pub data: Vec<u8>,
}

const BLOCK: usize = 512;

/// The archive's members, in order.
pub fn members(b: &[u8]) -> Result<Vec<Member>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    // A name a GNU 'L' or PAX 'x' header gave the member after it.
    let mut long_name: Option<String> = None;
    while at + BLOCK <= b.len() {
        let header = &b[at..at + BLOCK];
        if header.iter().all(|&c| c == 0) {
            break;
        }
        check_sum(header)?;
        let size = octal(&header[124..136]).ok_or("a member's size is not a number")?;
        let size = usize::try_from(size).map_err(|_| "a member is too large")?;
        let start = at + BLOCK;
        let data = start
            .checked_add(size)
            .and_then(|end| b.get(start..end))
            .ok_or("the archive is cut short")?;
        at = start + size.div_ceil(BLOCK) * BLOCK;
        let kind = header[156];
        let name = match long_name.take() {
            Some(n) => n,
            None => {
                let name = text(&header[..100]);
                let prefix = match &header[257..262] == b"ustar" {
                    true => text(&header[345..500]),
                    false => String::new(),
                };
                match prefix.is_empty() {
                    true => name,
                    false => format!("{prefix}/{name}"),
                }
            }
        };
        match kind {
            b'L' => long_name = Some(text(data)),
            b'x' => long_name = pax_path(data),
            b'g' => {}
            b'0' | 0 | b'7' => out.push(Member {
                name: checked(&name)?,
                dir: false,
                data: data.to_vec(),
            }),
            b'5' => out.push(Member {
                name: checked(&name)?,
                dir: true,
                data: Vec::new(),
            }),
            b'1' | b'2' => {
                return Err(format!(
                    "member `{name}` is a link: cudash unpacks files and folders only"
                ))
            }
            other => {
                return Err(format!(
                    "member `{name}` is of type '{}': cudash unpacks files and folders only",
                    char::from(other)
                ))
            }
        }
    }
    Ok(out)
}

/// Writes each member under `into`, making folders as needed; the paths
/// written, in order.
pub fn extract<'a>(
    members: impl IntoIterator<Item = &'a Member>,
    into: &Path,
) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for m in members {
        let path = into.join(&m.name);
        let fail = |e: std::io::Error| format!("{}: {e}", path.display());
        if m.dir {
            std::fs::create_dir_all(&path).map_err(fail)?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        std::fs::write(&path, &m.data).map_err(fail)?;
        written.push(path);
    }
    Ok(written)
}

/// The header's checksum: the sum of its bytes, the field itself as spaces.
fn check_sum(header: &[u8]) -> Result<(), String> {
    let want = octal(&header[148..156]).ok_or("not a tar archive (a header's checksum)")?;
    let got: u64 = header
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if (148..156).contains(&i) {
                32
            } else {
                u64::from(c)
            }
        })
        .sum();
    match got == want {
        true => Ok(()),
        false => {
            Err("not a tar archive, or a damaged one (a header's checksum does not match)".into())
        }
    }
}

fn octal(field: &[u8]) -> Option<u64> {
    let s = text(field);
    let s = s.trim_matches([' ', '\0']);
    if s.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(s, 8).ok()
}

fn text(field: &[u8]) -> String {
    let end = field.iter().position(|&c| c == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// A PAX header's `path` record ("LEN path=NAME\n").
fn pax_path(data: &[u8]) -> Option<String> {
    String::from_utf8_lossy(data).lines().find_map(|line| {
        line.split_once(' ')?
            .1
            .strip_prefix("path=")
            .map(str::to_string)
    })
}

/// A member's name, refused if it would be written outside the folder.
fn checked(name: &str) -> Result<String, String> {
    let path = Path::new(name);
    let outside = path.components().any(|c| {
        matches!(
            c,
            Component::ParentDir | Component::RootDir | Component::Prefix(_)
        )
    });
    match outside || name.is_empty() {
        true => Err(format!(
            "member `{name}` would be written outside the folder it is unpacked into (Python's `data` filter refuses it too)"
        )),
        false => Ok(name.trim_end_matches('/').to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, kind: u8, size: usize) -> Vec<u8> {
        let mut h = vec![0u8; BLOCK];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[156] = kind;
        h[257..263].copy_from_slice(b"ustar\0");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&c| u32::from(c)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        h
    }

    fn archive(entries: &[(&str, u8, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, kind, data) in entries {
            out.extend(header(name, *kind, data.len()));
            out.extend(*data);
            out.resize(out.len().next_multiple_of(BLOCK), 0);
        }
        out.extend([0u8; 2 * BLOCK]);
        out
    }

    #[test]
    fn files_and_folders_read_in_order() {
        let a = archive(&[("d/", b'5', b""), ("d/x.bin", b'0', b"hello")]);
        let m = members(&a).unwrap();
        assert_eq!(m.len(), 2);
        assert!(m[0].dir && m[0].name == "d");
        assert_eq!(
            (m[1].name.as_str(), &m[1].data[..]),
            ("d/x.bin", &b"hello"[..])
        );
    }

    #[test]
    fn a_gnu_long_name_names_the_next_member() {
        let long = "a/".repeat(70) + "f";
        let a = archive(&[
            ("././@LongLink", b'L', long.as_bytes()),
            ("short", b'0', b"1"),
        ]);
        assert_eq!(members(&a).unwrap()[0].name, long);
    }

    #[test]
    fn a_name_that_climbs_out_is_refused() {
        let a = archive(&[("../evil", b'0', b"x")]);
        assert!(members(&a).unwrap_err().contains("outside"));
        let a = archive(&[("/etc/evil", b'0', b"x")]);
        assert!(members(&a).is_err());
    }

    #[test]
    fn a_damaged_header_or_a_short_archive_is_an_error() {
        let mut a = archive(&[("f", b'0', b"data")]);
        a[0] = b'g';
        assert!(members(&a).unwrap_err().contains("checksum"));
        let a = archive(&[("f", b'0', &[7u8; 1000])]);
        assert!(members(&a[..BLOCK + 100])
            .unwrap_err()
            .contains("cut short"));
    }
}
