//! A JPEG scan's entropy-coded data: the bit reader (with 0xFF00 stuffing
//! and markers), Huffman tables, and the four ways a block's coefficients
//! arrive — sequential (baseline), and progressive's DC first/refine and
//! AC first/refine passes with their end-of-band runs (ITU T.81, G.1.2).

/// Zigzag position → natural (row-major) position, with libjpeg's 16
/// extra entries so a corrupt run past 63 lands on the last coefficient.
pub const NATURAL: [usize; 80] = {
    let zz: [usize; 64] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27,
        20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ];
    let mut out = [63usize; 80];
    let mut i = 0;
    while i < 64 {
        out[i] = zz[i];
        i += 1;
    }
    out
};

pub struct Bits<'a> {
    data: &'a [u8],
    pub pos: usize,
    acc: u64,
    count: u32,
    at_marker: bool,
    /// Bits were asked for past the end of the file.
    pub truncated: bool,
}

impl<'a> Bits<'a> {
    pub fn new(data: &'a [u8], pos: usize) -> Bits<'a> {
        Bits {
            data,
            pos,
            acc: 0,
            count: 0,
            at_marker: false,
            truncated: false,
        }
    }

    fn fill(&mut self) {
        while self.count <= 56 {
            let byte = if self.at_marker {
                0
            } else if self.pos >= self.data.len() {
                self.truncated = true;
                self.at_marker = true;
                0
            } else if self.data[self.pos] == 0xFF {
                match self.data.get(self.pos + 1) {
                    Some(0) => {
                        self.pos += 2;
                        0xFF
                    }
                    _ => {
                        // A marker ends the data; libjpeg reads zeros past it.
                        self.at_marker = true;
                        0
                    }
                }
            } else {
                self.pos += 1;
                self.data[self.pos - 1]
            };
            self.acc |= (byte as u64) << (56 - self.count);
            self.count += 8;
        }
    }

    pub fn bits(&mut self, n: u32) -> i32 {
        if n == 0 {
            return 0;
        }
        if self.count < n {
            self.fill();
        }
        let v = (self.acc >> (64 - n)) as i32;
        self.acc <<= n;
        self.count -= n;
        v
    }

    pub fn bit(&mut self) -> bool {
        self.bits(1) == 1
    }

    /// A restart: the buffered bits dropped and the RSTn marker passed.
    pub fn restart(&mut self) -> Result<(), String> {
        self.acc = 0;
        self.count = 0;
        self.at_marker = false;
        match self.data.get(self.pos..self.pos + 2) {
            Some([0xFF, m]) if (0xD0..=0xD7).contains(m) => {
                self.pos += 2;
                Ok(())
            }
            _ if self.pos >= self.data.len() => {
                self.truncated = true;
                Ok(())
            }
            _ => Err("broken JPEG: a restart marker is missing".into()),
        }
    }

    /// The value of `s` magnitude bits (T.81's EXTEND).
    pub fn receive_extend(&mut self, s: u32) -> i32 {
        if s == 0 {
            return 0;
        }
        let v = self.bits(s);
        if v < 1 << (s - 1) {
            v - (1 << s) + 1
        } else {
            v
        }
    }
}

const LOOKUP_BITS: u32 = 9;

/// A Huffman table: a 9-bit lookup for short codes, the canonical
/// `maxcode`/`valptr` walk for the rest.
#[derive(Clone)]
pub struct Huffman {
    lookup: Vec<u16>,
    maxcode: [i32; 18],
    valptr: [i32; 17],
    mincode: [i32; 17],
    values: Vec<u8>,
}

impl Huffman {
    pub fn new(counts: &[u8; 16], values: &[u8]) -> Result<Huffman, String> {
        let mut h = Huffman {
            lookup: vec![0; 1 << LOOKUP_BITS],
            maxcode: [-1; 18],
            valptr: [0; 17],
            mincode: [0; 17],
            values: values.to_vec(),
        };
        let mut code = 0i32;
        let mut k = 0usize;
        for len in 1..=16usize {
            let n = counts[len - 1] as usize;
            h.valptr[len] = k as i32;
            h.mincode[len] = code;
            for _ in 0..n {
                if code >= 1 << len || k >= values.len() {
                    return Err("broken JPEG: a bad Huffman table".into());
                }
                if len as u32 <= LOOKUP_BITS {
                    let shift = LOOKUP_BITS - len as u32;
                    for fill in 0..1 << shift {
                        h.lookup[((code as usize) << shift) | fill] =
                            ((len as u16) << 8) | values[k] as u16;
                    }
                }
                code += 1;
                k += 1;
            }
            if n > 0 {
                h.maxcode[len] = code - 1;
            }
            code <<= 1;
        }
        h.maxcode[17] = i32::MAX;
        Ok(h)
    }

    pub fn decode(&self, b: &mut Bits) -> Result<u8, String> {
        if b.count < 16 {
            b.fill();
        }
        let look = (b.acc >> (64 - LOOKUP_BITS)) as usize;
        let entry = self.lookup[look];
        if entry != 0 {
            let len = (entry >> 8) as u32;
            b.acc <<= len;
            b.count -= len;
            return Ok(entry as u8);
        }
        for len in LOOKUP_BITS as usize + 1..=16 {
            let code = (b.acc >> (64 - len)) as i32;
            if code <= self.maxcode[len] {
                b.acc <<= len;
                b.count -= len as u32;
                let i = self.valptr[len] + code - self.mincode[len];
                return self
                    .values
                    .get(i as usize)
                    .copied()
                    .ok_or_else(|| "broken JPEG: a bad Huffman code".to_string());
            }
        }
        Err("broken JPEG: a bad Huffman code".into())
    }
}

/// A coefficient as libjpeg keeps it (`JCOEF`, 16 bits: a corrupt file's
/// huge values wrap, as there).
fn coef16(v: i32) -> i32 {
    v as i16 as i32
}

/// A DC difference's magnitude category (at most 16 bits in any file).
fn dc_category(dc: &Huffman, b: &mut Bits) -> Result<u32, String> {
    match dc.decode(b)? as u32 {
        t @ 0..=16 => Ok(t),
        _ => Err("broken JPEG: a bad DC difference".into()),
    }
}

/// A sequential (baseline) block: the DC difference, then the AC runs.
pub fn block_sequential(
    b: &mut Bits,
    dc: &Huffman,
    ac: &Huffman,
    pred: &mut i32,
    coef: &mut [i32; 64],
) -> Result<(), String> {
    let t = dc_category(dc, b)?;
    *pred = pred.wrapping_add(b.receive_extend(t));
    coef[0] = coef16(*pred);
    let mut k = 1;
    while k < 64 {
        let rs = ac.decode(b)?;
        let (r, s) = ((rs >> 4) as usize, (rs & 15) as u32);
        if s != 0 {
            k += r;
            coef[NATURAL[k]] = b.receive_extend(s);
            k += 1;
        } else if r == 15 {
            k += 16;
        } else {
            break;
        }
    }
    Ok(())
}

/// Progressive DC, first pass: the difference, shifted by `al`.
pub fn dc_first(
    b: &mut Bits,
    dc: &Huffman,
    pred: &mut i32,
    coef: &mut [i32; 64],
    al: u32,
) -> Result<(), String> {
    let t = dc_category(dc, b)?;
    *pred = pred.wrapping_add(b.receive_extend(t));
    coef[0] = coef16(pred.wrapping_shl(al));
    Ok(())
}

/// Progressive DC, refinement: one more bit.
pub fn dc_refine(b: &mut Bits, coef: &mut [i32; 64], al: u32) {
    if b.bit() {
        coef[0] = coef16(coef[0] | 1 << al);
    }
}

/// Progressive AC, first pass over band `ss..=se`.
pub fn ac_first(
    b: &mut Bits,
    ac: &Huffman,
    eobrun: &mut u32,
    coef: &mut [i32; 64],
    (ss, se, al): (usize, usize, u32),
) -> Result<(), String> {
    if *eobrun > 0 {
        *eobrun -= 1;
        return Ok(());
    }
    let mut k = ss;
    while k <= se {
        let rs = ac.decode(b)?;
        let (r, s) = ((rs >> 4) as usize, (rs & 15) as u32);
        if s != 0 {
            k += r;
            coef[NATURAL[k]] = coef16(b.receive_extend(s).wrapping_shl(al));
        } else if r == 15 {
            k += 15;
        } else {
            *eobrun = 1 << r;
            if r > 0 {
                *eobrun += b.bits(r as u32) as u32;
            }
            *eobrun -= 1;
            break;
        }
        k += 1;
    }
    Ok(())
}

/// Progressive AC, refinement over band `ss..=se`: a correction bit for
/// each coefficient already nonzero, new ±1 coefficients in the zero runs.
pub fn ac_refine(
    b: &mut Bits,
    ac: &Huffman,
    eobrun: &mut u32,
    coef: &mut [i32; 64],
    (ss, se, al): (usize, usize, u32),
) -> Result<(), String> {
    let p1 = 1i32.wrapping_shl(al);
    let m1 = (-1i32).wrapping_shl(al);
    let refine = |c: &mut i32, b: &mut Bits| {
        if b.bit() && *c & p1 == 0 {
            *c = coef16(*c + if *c >= 0 { p1 } else { m1 });
        }
    };
    let mut k = ss;
    if *eobrun == 0 {
        while k <= se {
            let rs = ac.decode(b)?;
            let (mut r, s) = ((rs >> 4) as i32, (rs & 15) as u32);
            let mut value = 0;
            if s != 0 {
                if s != 1 {
                    return Err("broken JPEG: a bad refinement value".into());
                }
                value = if b.bit() { p1 } else { m1 };
            } else if r != 15 {
                *eobrun = 1 << r;
                if r > 0 {
                    *eobrun += b.bits(r as u32) as u32;
                }
                break;
            }
            while k <= se {
                let c = &mut coef[NATURAL[k]];
                if *c != 0 {
                    refine(c, b);
                } else {
                    r -= 1;
                    if r < 0 {
                        break;
                    }
                }
                k += 1;
            }
            if value != 0 {
                coef[NATURAL[k]] = value;
            }
            k += 1;
        }
    }
    if *eobrun > 0 {
        while k <= se {
            let c = &mut coef[NATURAL[k]];
            if *c != 0 {
                refine(c, b);
            }
            k += 1;
        }
        *eobrun -= 1;
    }
    Ok(())
}
