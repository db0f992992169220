//! A small pickle writer: protocol 4, and only the opcodes that
//! pytorch.org/memory_viz's JavaScript unpickler reads (and Python's, of
//! course): containers built with EMPTY_DICT/EMPTY_LIST, MARK and
//! SETITEMS/APPENDS (in batches of 1,000, as Python's pickler writes them,
//! so no list is spread into one huge call), TUPLE2, BININT1/BININT2/BININT
//! and LONG1 of at most 8 bytes, SHORT_BINUNICODE/BINUNICODE, BINFLOAT, NONE,
//! NEWTRUE/NEWFALSE, and strings memoized (MEMOIZE, BINGET, LONG_BINGET) so
//! that a key written 100,000 times takes two bytes after the first.
//! serde-pickle writes protocol 3 and memoizes nothing; this is the format
//! PyTorch's own snapshots use, in 150 lines.

use std::collections::HashMap;

pub const PROTO: u8 = 0x80;
pub const STOP: u8 = b'.';
pub const MARK: u8 = b'(';
pub const EMPTY_DICT: u8 = b'}';
pub const EMPTY_LIST: u8 = b']';
pub const SETITEMS: u8 = b'u';
pub const APPENDS: u8 = b'e';
pub const TUPLE2: u8 = 0x86;
pub const BININT1: u8 = b'K';
pub const BININT2: u8 = b'M';
pub const BININT: u8 = b'J';
pub const LONG1: u8 = 0x8a;
pub const SHORT_BINUNICODE: u8 = 0x8c;
pub const BINUNICODE: u8 = b'X';
pub const BINFLOAT: u8 = b'G';
pub const NONE: u8 = b'N';
pub const NEWTRUE: u8 = 0x88;
pub const NEWFALSE: u8 = 0x89;
pub const MEMOIZE: u8 = 0x94;
pub const BINGET: u8 = b'h';
pub const LONG_BINGET: u8 = b'j';

/// Items per SETITEMS or APPENDS, as Python's pickler batches them.
const BATCH: usize = 1000;

/// An open dict or list: its closing opcode and the items since its last MARK.
struct Open {
    close: u8,
    items: usize,
}

/// Writes one pickled value, built from nested `begin_*`/`end` calls.
pub struct Pickler {
    out: Vec<u8>,
    memo: HashMap<String, u32>,
    open: Vec<Open>,
}

impl Default for Pickler {
    fn default() -> Self {
        Pickler::new()
    }
}

impl Pickler {
    pub fn new() -> Pickler {
        Pickler {
            out: vec![PROTO, 4],
            memo: HashMap::new(),
            open: Vec::new(),
        }
    }

    /// The pickle, once every container is closed.
    pub fn finish(mut self) -> Vec<u8> {
        debug_assert!(self.open.is_empty(), "a container was left open");
        self.out.push(STOP);
        self.out
    }

    /// A value was written into the innermost container: a dict counts its
    /// keys and values, two per item.
    fn item(&mut self) {
        let Some(o) = self.open.last_mut() else {
            return;
        };
        o.items += 1;
        let per = match o.close {
            SETITEMS => 2 * BATCH,
            _ => BATCH,
        };
        if o.items == per {
            o.items = 0;
            let close = o.close;
            self.out.extend_from_slice(&[close, MARK]);
        }
    }

    pub fn begin_dict(&mut self) {
        self.out.extend_from_slice(&[EMPTY_DICT, MARK]);
        self.open.push(Open {
            close: SETITEMS,
            items: 0,
        });
    }

    pub fn begin_list(&mut self) {
        self.out.extend_from_slice(&[EMPTY_LIST, MARK]);
        self.open.push(Open {
            close: APPENDS,
            items: 0,
        });
    }

    /// Closes the innermost dict or list.
    pub fn end(&mut self) {
        if let Some(o) = self.open.pop() {
            self.out.push(o.close);
            self.item();
        }
    }

    /// A key of the dict being written.
    pub fn key(&mut self, k: &str) {
        self.str(k);
    }

    pub fn none(&mut self) {
        self.out.push(NONE);
        self.item();
    }

    pub fn bool(&mut self, b: bool) {
        self.out.push(if b { NEWTRUE } else { NEWFALSE });
        self.item();
    }

    pub fn int(&mut self, v: i64) {
        match v {
            0..=0xff => self.out.extend_from_slice(&[BININT1, v as u8]),
            0x100..=0xffff => {
                self.out.push(BININT2);
                self.out.extend_from_slice(&(v as u16).to_le_bytes());
            }
            _ if i32::try_from(v).is_ok() => {
                self.out.push(BININT);
                self.out.extend_from_slice(&(v as i32).to_le_bytes());
            }
            _ => {
                // Two's complement, little-endian, as few bytes as keep the sign.
                let bytes = v.to_le_bytes();
                let mut n = 8;
                while n > 1 {
                    let (top, next) = (bytes[n - 1], bytes[n - 2]);
                    let redundant = (top == 0 && next < 0x80) || (top == 0xff && next >= 0x80);
                    if !redundant {
                        break;
                    }
                    n -= 1;
                }
                self.out.extend_from_slice(&[LONG1, n as u8]);
                self.out.extend_from_slice(&bytes[..n]);
            }
        }
        self.item();
    }

    /// An unsigned figure (a size, an address) as Python's int; past
    /// `i64::MAX` it saturates (no device has that much).
    pub fn uint(&mut self, v: u64) {
        self.int(i64::try_from(v).unwrap_or(i64::MAX));
    }

    pub fn float(&mut self, x: f64) {
        self.out.push(BINFLOAT);
        self.out.extend_from_slice(&x.to_be_bytes());
        self.item();
    }

    /// A string, written once and fetched from the memo after.
    pub fn str(&mut self, s: &str) {
        if let Some(&id) = self.memo.get(s) {
            match u8::try_from(id) {
                Ok(b) => self.out.extend_from_slice(&[BINGET, b]),
                Err(_) => {
                    self.out.push(LONG_BINGET);
                    self.out.extend_from_slice(&id.to_le_bytes());
                }
            }
        } else {
            match u8::try_from(s.len()) {
                Ok(n) => self.out.extend_from_slice(&[SHORT_BINUNICODE, n]),
                Err(_) => {
                    self.out.push(BINUNICODE);
                    self.out
                        .extend_from_slice(&(s.len().min(u32::MAX as usize) as u32).to_le_bytes());
                }
            }
            self.out.extend_from_slice(s.as_bytes());
            self.out.push(MEMOIZE);
            let id = self.memo.len() as u32;
            self.memo.insert(s.to_string(), id);
        }
        self.item();
    }

    /// `(a, b)`: two ints.
    pub fn tuple2(&mut self, a: i64, b: i64) {
        // The two ints are parts of the tuple, not items of the container.
        let open = self.open.pop();
        self.int(a);
        self.int(b);
        if let Some(o) = open {
            self.open.push(o);
        }
        self.out.push(TUPLE2);
        self.item();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_take_the_shortest_opcode() {
        let mut p = Pickler::new();
        p.begin_list();
        for v in [0, 255, 256, 65535, 65536, -1, 1 << 40, -(1 << 40), i64::MAX] {
            p.int(v);
        }
        p.end();
        let b = p.finish();
        assert_eq!(&b[..4], &[PROTO, 4, EMPTY_LIST, MARK]);
        assert_eq!(&b[4..8], &[BININT1, 0, BININT1, 255]);
        assert_eq!(&b[8..14], &[BININT2, 0, 1, BININT2, 0xff, 0xff]);
        assert_eq!(&b[14..19], &[BININT, 0, 0, 1, 0]);
        assert_eq!(&b[19..24], &[BININT, 0xff, 0xff, 0xff, 0xff]);
        // 2^40 needs 6 bytes (the top one 0 keeps it positive).
        assert_eq!(&b[24..32], &[LONG1, 6, 0, 0, 0, 0, 0, 1]);
        assert_eq!(&b[32..40], &[LONG1, 6, 0, 0, 0, 0, 0, 0xff]);
        assert_eq!(&b[40..42], &[LONG1, 8]);
        assert_eq!(&b[b.len() - 2..], &[APPENDS, STOP]);
    }

    #[test]
    fn a_repeated_string_is_fetched_from_the_memo() {
        let mut p = Pickler::new();
        p.begin_list();
        p.str("action");
        p.str("action");
        p.end();
        let b = p.finish();
        assert_eq!(
            &b[4..],
            &[
                SHORT_BINUNICODE,
                6,
                b'a',
                b'c',
                b't',
                b'i',
                b'o',
                b'n',
                MEMOIZE,
                BINGET,
                0,
                APPENDS,
                STOP
            ]
        );
    }

    #[test]
    fn long_lists_are_appended_in_batches() {
        let mut p = Pickler::new();
        p.begin_list();
        for _ in 0..2500 {
            p.none();
        }
        p.end();
        let b = p.finish();
        assert_eq!(b.iter().filter(|&&c| c == APPENDS).count(), 3);
        assert_eq!(b.iter().filter(|&&c| c == MARK).count(), 3);
    }
}
