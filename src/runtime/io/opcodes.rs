//! The opcodes `torch.save`'s pickles are written with (protocol 2):
//! shared by `pickle.rs` and `numpy_pickle.rs`.

pub(super) fn global(out: &mut Vec<u8>, module: &str, name: &str) {
    out.push(b'c');
    out.extend(format!("{module}\n{name}\n").as_bytes());
}

pub(super) fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'X');
    out.extend((s.len() as u32).to_le_bytes());
    out.extend(s.as_bytes());
}

pub(super) fn int(out: &mut Vec<u8>, v: i64) {
    match i32::try_from(v) {
        Ok(v) => {
            out.push(b'J');
            out.extend(v.to_le_bytes());
        }
        Err(_) => {
            out.extend([0x8a, 8]);
            out.extend(v.to_le_bytes());
        }
    }
}

pub(super) fn ints_tuple(out: &mut Vec<u8>, vs: impl IntoIterator<Item = i64>) {
    out.push(b'(');
    vs.into_iter().for_each(|v| int(out, v));
    out.push(b't');
}
