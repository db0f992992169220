//! `torch.get_rng_state()`'s bytes: PyTorch's `CPUGeneratorImplState` as
//! x86-64 lays it out (5056 bytes, little-endian), so a state saved by
//! either side sets the other's generator to the same place.
//!
//! | offset | field |
//! |---|---|
//! | 0 | the initial seed (u64) |
//! | 8, 12 | `left`, `seeded` (i32) |
//! | 16 | `next` (u64) |
//! | 24 | the 624 state words, each in a u64 |
//! | 5016, 5024, 5032 | `normal_x`, `normal_y` (the kept normal number), `normal_rho` (f64) |
//! | 5040 | `normal_is_valid` (i32) |
//! | 5048 | the kept float normal number (f32), 5052 whether it is kept (bool) |

use super::mt19937::{Mt19937, Place};

/// `sizeof(CPUGeneratorImplState)`.
pub const SIZE: usize = 5056;

const STATE: usize = 24;
const NORMAL_Y: usize = 5024;
const NORMAL_VALID: usize = 5040;

/// The bytes of a generator at `engine`'s place, started from `seed`,
/// keeping `next_normal` (the second number of a Box–Muller pair).
pub fn to_bytes(seed: u64, engine: &Mt19937, next_normal: Option<f64>) -> Vec<u8> {
    let place = engine.place();
    let mut out = vec![0u8; SIZE];
    let mut put = |at: usize, bytes: &[u8]| out[at..at + bytes.len()].copy_from_slice(bytes);
    put(0, &seed.to_le_bytes());
    put(8, &(place.left as i32).to_le_bytes());
    put(12, &1i32.to_le_bytes());
    put(16, &u64::from(place.next).to_le_bytes());
    for (k, word) in place.state.iter().enumerate() {
        put(STATE + 8 * k, &u64::from(*word).to_le_bytes());
    }
    if let Some(z) = next_normal {
        put(NORMAL_Y, &z.to_le_bytes());
        put(NORMAL_VALID, &1i32.to_le_bytes());
    }
    out
}

/// What `to_bytes` wrote (or PyTorch's `get_state`): the seed, the
/// engine, and the kept normal number; PyTorch's messages when the bytes
/// are not a state.
pub fn from_bytes(bytes: &[u8]) -> Result<(u64, Mt19937, Option<f64>), String> {
    if bytes.len() != SIZE {
        return Err(format!(
            "Expected a CPUGeneratorImplState of size {SIZE} but found the input RNG state size to be {}",
            bytes.len()
        ));
    }
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let i32_at = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let mut state = [0u32; 624];
    for (k, word) in state.iter_mut().enumerate() {
        // PyTorch copies each u64 into a u32 word.
        *word = u64_at(STATE + 8 * k) as u32;
    }
    let left = i32_at(8);
    let place = Place {
        state,
        left: u32::try_from(left).unwrap_or(0),
        next: u64_at(16) as u32,
    };
    let engine = Mt19937::at(&place)
        .filter(|_| i32_at(12) != 0)
        .ok_or("Invalid mt19937 state")?;
    let normal = (i32_at(NORMAL_VALID) != 0)
        .then(|| f64::from_le_bytes(bytes[NORMAL_Y..NORMAL_Y + 8].try_into().expect("8 bytes")));
    // A kept float normal number (at 5048, kept when byte 5052 is set) is
    // for `normal_distribution<float>`, which none of cudash's draws use
    // (PyTorch's cpu `normal_` draws in double, as cudash's): not read.
    Ok((u64_at(0), engine, normal))
}
