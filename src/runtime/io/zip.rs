//! The zip archive `torch.save` writes: uncompressed ("stored") entries,
//! each record's data aligned to 64 bytes, Zip64 records past 4 GiB. Read
//! (any stored archive, Zip64 included) and written (what PyTorch's
//! `PyTorchStreamWriter` writes, so `torch.load` reads it back).

/// The entries of an archive, by name, borrowing their bytes (`None` for
/// a compressed entry, which torch.save never writes).
pub struct Archive<'a> {
    pub entries: Vec<(String, Option<&'a [u8]>)>,
}

impl<'a> Archive<'a> {
    /// A stored entry's bytes.
    pub fn get(&self, name: &str) -> Option<&'a [u8]> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, data)| *data)
    }

    pub fn has(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, _)| n == name)
    }
}

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const END64_LOCATOR: u32 = 0x0706_4b50;
/// The data of every record starts at a multiple of this (PyTorch's
/// `.storage_alignment`, so storages can be memory-mapped).
pub const ALIGNMENT: usize = 64;

fn u16_at(b: &[u8], at: usize) -> Result<u16, String> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(cut_short)
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
        .ok_or_else(cut_short)
}

fn u64_at(b: &[u8], at: usize) -> Result<u64, String> {
    b.get(at..at + 8)
        .map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
        .ok_or_else(cut_short)
}

fn cut_short() -> String {
    "the zip archive is cut short".into()
}

fn usize_of(n: u64) -> Result<usize, String> {
    usize::try_from(n).map_err(|_| cut_short())
}

/// Whether the bytes start as a zip archive does.
pub fn is_zip(b: &[u8]) -> bool {
    b.len() >= 4 && u32::from_le_bytes([b[0], b[1], b[2], b[3]]) == LOCAL
}

/// The archive's entries, from its central directory.
pub fn read(b: &[u8]) -> Result<Archive<'_>, String> {
    // The end record is the last 22 bytes, before a comment of up to 64 KiB.
    let earliest = b.len().saturating_sub(22 + 0xffff);
    let end = (earliest..b.len().saturating_sub(21))
        .rev()
        .find(|&at| u32_at(b, at) == Ok(END))
        .ok_or("not a zip archive (no end of central directory)")?;
    let mut count = u64::from(u16_at(b, end + 10)?);
    let mut offset = u64::from(u32_at(b, end + 16)?);
    if count == 0xffff || offset == 0xffff_ffff {
        // Zip64: the locator just before the end record points at the real one.
        let locator = end.checked_sub(20).ok_or_else(cut_short)?;
        if u32_at(b, locator)? != END64_LOCATOR {
            return Err("a Zip64 archive without its end-of-directory locator".into());
        }
        let end64 = usize_of(u64_at(b, locator + 8)?)?;
        if u32_at(b, end64)? != END64 {
            return Err("a Zip64 archive without its end-of-directory record".into());
        }
        count = u64_at(b, end64 + 32)?;
        offset = u64_at(b, end64 + 48)?;
    }
    let mut at = usize_of(offset)?;
    let mut entries = Vec::new();
    for _ in 0..count {
        if u32_at(b, at)? != CENTRAL {
            return Err("the zip archive's central directory is damaged".into());
        }
        let method = u16_at(b, at + 10)?;
        let mut size = u64::from(u32_at(b, at + 20)?);
        let name_len = usize::from(u16_at(b, at + 28)?);
        let extra_len = usize::from(u16_at(b, at + 30)?);
        let comment_len = usize::from(u16_at(b, at + 32)?);
        let mut local = u64::from(u32_at(b, at + 42)?);
        let name = b.get(at + 46..at + 46 + name_len).ok_or_else(cut_short)?;
        let name = String::from_utf8_lossy(name).into_owned();
        let extra = b
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .ok_or_else(cut_short)?;
        if size == 0xffff_ffff || local == 0xffff_ffff {
            (size, local) = zip64_extra(extra, size, local)?;
        }
        at += 46 + name_len + extra_len + comment_len;
        if method != 0 {
            entries.push((name, None));
            continue;
        }
        let local = usize_of(local)?;
        if u32_at(b, local)? != LOCAL {
            return Err(format!("entry `{name}`: its local header is missing"));
        }
        let start =
            local + 30 + usize::from(u16_at(b, local + 26)?) + usize::from(u16_at(b, local + 28)?);
        let data = start
            .checked_add(usize_of(size)?)
            .and_then(|stop| b.get(start..stop))
            .ok_or_else(cut_short)?;
        entries.push((name, Some(data)));
    }
    Ok(Archive { entries })
}

/// The 64-bit size and offset from an entry's Zip64 extra field.
fn zip64_extra(mut extra: &[u8], size: u64, local: u64) -> Result<(u64, u64), String> {
    while extra.len() >= 4 {
        let id = u16_at(extra, 0)?;
        let len = usize::from(u16_at(extra, 2)?);
        let body = extra.get(4..4 + len).ok_or_else(cut_short)?;
        if id == 1 {
            // The fields present are those whose 32-bit value is saturated, in this order.
            let mut fields = body
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
            let uncompressed = if size == 0xffff_ffff {
                fields.next()
            } else {
                Some(size)
            };
            if size == 0xffff_ffff {
                fields.next(); // the compressed size, equal for a stored entry
            }
            let local = if local == 0xffff_ffff {
                fields.next()
            } else {
                Some(local)
            };
            return uncompressed.zip(local).ok_or_else(cut_short);
        }
        extra = &extra[4 + len..];
    }
    Err("a Zip64 entry without its extra field".into())
}

/// An archive of stored entries in the given order, each entry's data
/// aligned to [`ALIGNMENT`] as PyTorch's writer aligns it.
pub fn write(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len();
        let (Ok(size), Ok(offset32)) = (u32::try_from(data.len()), u32::try_from(offset)) else {
            return Err("archives over 4 GiB are not written (save fewer tensors per file)".into());
        };
        // Padding in an extra field ("FB", as PyTorch's) so the data is aligned.
        let unpadded = offset + 30 + name.len() + 4;
        let pad = unpadded.next_multiple_of(ALIGNMENT) - unpadded;
        let crc = crc32(data);
        let header = |sig: u32, out: &mut Vec<u8>| {
            out.extend(sig.to_le_bytes());
            if sig == CENTRAL {
                out.extend(20u16.to_le_bytes()); // version made by
            }
            out.extend(20u16.to_le_bytes()); // version needed
            out.extend(0u16.to_le_bytes()); // flags
            out.extend(0u16.to_le_bytes()); // stored
            out.extend(0u32.to_le_bytes()); // time and date
            out.extend(crc.to_le_bytes());
            out.extend(size.to_le_bytes());
            out.extend(size.to_le_bytes());
            out.extend((name.len() as u16).to_le_bytes());
        };
        header(LOCAL, &mut out);
        out.extend(((4 + pad) as u16).to_le_bytes());
        out.extend(name.as_bytes());
        out.extend(0x4246u16.to_le_bytes());
        out.extend((pad as u16).to_le_bytes());
        out.resize(out.len() + pad, b'Z');
        out.extend(data);

        header(CENTRAL, &mut central);
        central.extend(0u16.to_le_bytes()); // extra
        central.extend(0u16.to_le_bytes()); // comment
        central.extend(0u16.to_le_bytes()); // disk
        central.extend(0u16.to_le_bytes()); // internal attributes
        central.extend(0u32.to_le_bytes()); // external attributes
        central.extend(offset32.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let directory = out.len();
    let (Ok(count), Ok(directory32), Ok(central_len)) = (
        u16::try_from(entries.len()),
        u32::try_from(directory),
        u32::try_from(central.len()),
    ) else {
        return Err("archives over 4 GiB or 65,535 entries are not written".into());
    };
    out.extend(central);
    out.extend(END.to_le_bytes());
    out.extend(0u32.to_le_bytes()); // disks
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend(central_len.to_le_bytes());
    out.extend(directory32.to_le_bytes());
    out.extend(0u16.to_le_bytes()); // comment
    Ok(out)
}

/// CRC-32 (IEEE), as zip records it for each entry.
pub fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            (0..8).fold(i as u32, |c, _| {
                if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                }
            })
        })
    });
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_a_known_string() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn written_archives_read_back_aligned() {
        let entries = vec![
            ("m/data.pkl".to_string(), b"abc".to_vec()),
            ("m/data/0".to_string(), vec![7u8; 100]),
        ];
        let bytes = write(&entries).unwrap();
        let archive = read(&bytes).unwrap();
        assert_eq!(archive.get("m/data.pkl"), Some(&b"abc"[..]));
        let data = archive.get("m/data/0").unwrap();
        assert_eq!(data, &[7u8; 100][..]);
        let at = data.as_ptr() as usize - bytes.as_ptr() as usize;
        assert_eq!(at % ALIGNMENT, 0);
    }
}
