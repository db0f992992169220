//! `PYTORCH_CUDA_ALLOC_CONF`: the caching allocator's settings, read as
//! PyTorch reads them (`max_split_size_mb:128,roundup_power2_divisions:4`).
//! `max_split_size_mb`, `max_non_split_rounding_mb`,
//! `roundup_power2_divisions`, `garbage_collection_threshold` and
//! `expandable_segments` change what the allocator does, as they do
//! PyTorch's; the settings about what cudash does not model (the
//! `cudaMallocAsync` backend, pinned memory's registration) are taken and
//! said to have no effect here.

use super::{LARGE_SEGMENT, MIN_BLOCK};

/// The intervals `roundup_power2_divisions` sets, one per power of two
/// from 1 MiB to 64 GiB (PyTorch's `kRoundUpPowerOfTwoIntervals`).
pub const ROUNDUP_INTERVALS: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub struct AllocatorConfig {
    /// The text the settings were read from (the snapshot keeps it).
    pub text: String,
    /// Blocks this large or larger are never split, and a request under it
    /// is never given one (`usize::MAX`: no limit, PyTorch's default).
    pub max_split_size: usize,
    /// How much larger than a request of `max_split_size` or more a cached
    /// block may be and still be handed out whole (20 MiB by default).
    pub max_non_split_rounding_size: usize,
    /// For each interval, into how many equal steps a power of two is
    /// divided when a request is rounded up (0: no rounding beyond 512 B).
    pub roundup_power2_divisions: [usize; ROUNDUP_INTERVALS],
    /// With a memory fraction set: the share of the allowed memory past
    /// which cached blocks are given back before a new segment (0: never).
    pub garbage_collection_threshold: f64,
    pub expandable_segments: bool,
}

impl Default for AllocatorConfig {
    fn default() -> AllocatorConfig {
        AllocatorConfig {
            text: String::new(),
            max_split_size: usize::MAX,
            max_non_split_rounding_size: LARGE_SEGMENT,
            roundup_power2_divisions: [0; ROUNDUP_INTERVALS],
            garbage_collection_threshold: 0.0,
            expandable_segments: false,
        }
    }
}

const MIB: usize = 1 << 20;

impl AllocatorConfig {
    /// Reads `text` over these settings (PyTorch's `parseArgs`: each
    /// `key:value` changes its setting, the rest stay). Returns what the
    /// settings cudash does not model are, for a warning; an unknown key or
    /// a bad value is an error, as in PyTorch.
    pub fn parse(&mut self, text: &str) -> Result<Vec<String>, String> {
        let mut ignored = Vec::new();
        for item in split_top_level(text) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (key, value) = item.split_once(':').ok_or_else(|| {
                format!("Error parsing CachingAllocator settings, expected ':' after '{item}'")
            })?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "max_split_size_mb" => self.max_split_size = over_a_large_segment(key, value)?,
                "max_non_split_rounding_mb" => {
                    self.max_non_split_rounding_size = over_a_large_segment(key, value)?
                }
                "roundup_power2_divisions" => self.roundup_power2_divisions = divisions(value)?,
                "garbage_collection_threshold" => {
                    let t: f64 = value
                        .parse()
                        .map_err(|_| format!("garbage_collection_threshold: '{value}' is not a number"))?;
                    if t <= 0.0 {
                        return Err("garbage_collect_threshold too small, set it 0.0~1.0".into());
                    }
                    if t >= 1.0 {
                        return Err("garbage_collect_threshold too big, set it 0.0~1.0".into());
                    }
                    self.garbage_collection_threshold = t;
                }
                "expandable_segments" => {
                    self.expandable_segments = match value {
                        "True" => true,
                        "False" => false,
                        _ => {
                            return Err(format!(
                                "Expected a single True/False argument for expandable_segments, got '{value}'"
                            ))
                        }
                    };
                }
                "backend" => match value {
                    "native" => {}
                    "cudaMallocAsync" => ignored.push(format!("{key}:{value}")),
                    _ => {
                        return Err(format!(
                            "Unknown allocator backend, options are native and cudaMallocAsync, got '{value}'"
                        ))
                    }
                },
                "release_lock_on_cudamalloc"
                | "pinned_use_cuda_host_register"
                | "pinned_num_register_threads"
                | "pinned_use_background_threads"
                | "graph_capture_record_stream_reuse"
                // PyTorch 2.15's bounds on an expandable segment's address
                // space: cudash reserves its 1⅛ of the device and does not
                // run out of address space.
                | "expandable_segments_reserve"
                | "expandable_segments_reserve_by_class" => ignored.push(format!("{key}:{value}")),
                _ => return Err(format!("Unrecognized key '{key}' in CUDA allocator config.")),
            }
        }
        self.text = text.to_string();
        Ok(ignored)
    }

    /// `max_split_size` as `memory_stats()` and the snapshot give it: -1
    /// for none (PyTorch's `SIZE_MAX` read as a signed integer).
    pub fn max_split_size_stat(&self) -> i64 {
        i64::try_from(self.max_split_size).unwrap_or(-1)
    }

    /// Whether a block or segment of `size` bytes is one PyTorch counts
    /// as oversize (`max_split_size` or more).
    pub fn is_oversize(&self, size: usize) -> bool {
        size >= self.max_split_size
    }

    /// The divisions for a request of `size` bytes.
    fn divisions_for(&self, size: usize) -> usize {
        let log = size.max(1).ilog2() as i64;
        let index = (log - 20).clamp(0, ROUNDUP_INTERVALS as i64 - 1);
        self.roundup_power2_divisions[index as usize]
    }

    /// A request rounded as PyTorch's `round_size` rounds it: up to 512 B,
    /// or with `roundup_power2_divisions`, up to the next of the equal
    /// steps its power of two is divided into.
    pub fn round_size(&self, size: usize) -> usize {
        if size < MIN_BLOCK {
            return MIN_BLOCK;
        }
        let divisions = self.divisions_for(size);
        if divisions > 1 && size > MIN_BLOCK * divisions {
            return next_division(size, divisions);
        }
        size.div_ceil(MIN_BLOCK).saturating_mul(MIN_BLOCK)
    }
}

/// `size` rounded up to the next of `divisions` equal steps between its
/// power of two and the next (PyTorch's `roundup_power2_next_division`).
fn next_division(size: usize, divisions: usize) -> usize {
    if size.is_power_of_two() {
        return size;
    }
    let floor = 1usize << size.ilog2();
    let step = floor >> divisions.ilog2();
    if step == 0 {
        return floor << 1;
    }
    let down = size & !(step - 1);
    if down == size {
        size
    } else {
        down + step
    }
}

/// A size in MiB that must be more than a large segment's 20 MiB, in bytes.
fn over_a_large_segment(key: &str, value: &str) -> Result<usize, String> {
    let mb = number(key, value)?;
    let least = LARGE_SEGMENT / MIB;
    if mb <= least {
        return Err(format!(
            "CachingAllocator option {key} too small, must be > {least}"
        ));
    }
    Ok(mb.saturating_mul(MIB))
}

fn number(key: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{key}: '{value}' is not a whole number"))
}

/// `4` (every interval), or `[256:1,512:2,1024:4,>:8]` (the intervals of
/// requests of 256 MiB, 512 MiB, ...; the first value also for every
/// interval below it, `>` from the last one given on, that one included,
/// as PyTorch's parser does): each a power of two, or 0 for none.
fn divisions(value: &str) -> Result<[usize; ROUNDUP_INTERVALS], String> {
    let check = |d: usize| -> Result<usize, String> {
        match d == 0 || d.is_power_of_two() {
            true => Ok(d),
            false => Err(
                "For roundups, the divisions has to be power of 2 or 0 to disable roundup ".into(),
            ),
        }
    };
    let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) else {
        let d = check(number("roundup_power2_divisions", value)?)?;
        return Ok([d; ROUNDUP_INTERVALS]);
    };
    let mut out = [0; ROUNDUP_INTERVALS];
    let mut last = 0usize;
    let mut first = true;
    for pair in list.split(',') {
        let (at, d) = pair.split_once(':').ok_or_else(|| {
            format!("roundup_power2_divisions: expected SIZE:DIVISIONS, got '{pair}'")
        })?;
        let d = check(number("roundup_power2_divisions", d.trim())?)?;
        let at = at.trim();
        if at == ">" {
            out[last..].fill(d);
            continue;
        }
        let mb = number("roundup_power2_divisions", at)?;
        if !mb.is_power_of_two() {
            return Err("For roundups, the intervals have to be power of 2 ".into());
        }
        let index = (mb.ilog2() as usize).min(ROUNDUP_INTERVALS - 1);
        if first {
            out[..index].fill(d);
            first = false;
        }
        out[index] = d;
        // As PyTorch's: a `>` after it fills from this interval on.
        last = index;
    }
    Ok(out)
}

/// `a:1,b:[256:1,>:2],c:3` split at the commas outside brackets.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_as_pytorch_reads_them() {
        let mut c = AllocatorConfig::default();
        assert_eq!(c.max_split_size_stat(), -1);
        let ignored = c
            .parse("max_split_size_mb:128, roundup_power2_divisions:[256:1,512:2,>:4],expandable_segments:False")
            .unwrap();
        assert!(ignored.is_empty());
        assert_eq!(c.max_split_size, 128 << 20);
        assert_eq!(c.roundup_power2_divisions[..8], [1, 1, 1, 1, 1, 1, 1, 1]);
        // PyTorch's `>` fills from the last interval given (512 MiB) on.
        assert_eq!(c.roundup_power2_divisions[9..], [4; 7]);
        assert!(c
            .parse("max_split_size_mb:20")
            .unwrap_err()
            .contains("must be > 20"));
        assert!(c
            .parse("max_spilt_size_mb:200")
            .unwrap_err()
            .contains("Unrecognized key 'max_spilt_size_mb'"));
        assert!(c.parse("roundup_power2_divisions:3").is_err());
        assert!(c.parse("expandable_segments:True").unwrap().is_empty());
        assert!(c.expandable_segments);
        assert_eq!(c.parse("backend:cudaMallocAsync").unwrap().len(), 1);
        // The keys PyTorch 2.15's out-of-memory message names are read (and
        // said to have no effect), not refused as unknown.
        assert_eq!(
            c.parse("expandable_segments:True,expandable_segments_reserve:8")
                .unwrap(),
            ["expandable_segments_reserve:8"]
        );
    }

    #[test]
    fn sizes_round_up_to_a_division_of_their_power_of_two() {
        let mut c = AllocatorConfig::default();
        assert_eq!(c.round_size(1), 512);
        assert_eq!(c.round_size(1_200_000), 1_200_128);
        c.parse("roundup_power2_divisions:4").unwrap();
        // 1.2 MB lies between 1 MiB and 2 MiB: steps of 256 KiB.
        assert_eq!(c.round_size(1_200_000), (1 << 20) + (256 << 10));
        assert_eq!(c.round_size(1 << 20), 1 << 20);
        assert_eq!(c.round_size(1000), 1024);
        // Small requests (under 512 B times the divisions) round to 512 B.
        assert_eq!(c.round_size(1500), 1536);
    }
}
