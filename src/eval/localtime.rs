//! Python's `time.localtime(secs=None)` and `time.strftime(format, t=None)`
//! through the C library, as CPython computes them: a `struct_time` is a
//! tuple of nine ints (year, month, day, hour, minute, second, weekday
//! with Monday 0, day of the year from 1, daylight saving flag).

/// The local time of `secs` since the epoch, as Python's nine fields.
pub fn localtime(secs: f64) -> [i64; 9] {
    let t = secs.floor() as libc::time_t;
    // SAFETY: `tm` is plain data that `localtime_r` fills; both pointers
    // live across the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    unsafe { libc::localtime_r(&t, &mut tm) };
    [
        i64::from(tm.tm_year) + 1900,
        i64::from(tm.tm_mon) + 1,
        i64::from(tm.tm_mday),
        i64::from(tm.tm_hour),
        i64::from(tm.tm_min),
        i64::from(tm.tm_sec),
        (i64::from(tm.tm_wday) + 6) % 7,
        i64::from(tm.tm_yday) + 1,
        i64::from(tm.tm_isdst),
    ]
}

/// `format` written with the fields of `t` (C's `strftime`); None for a
/// format that does not fit 4 KiB written out, or holds a NUL.
pub fn strftime(format: &str, t: &[i64; 9]) -> Option<String> {
    let c_format = std::ffi::CString::new(format).ok()?;
    // SAFETY: plain data, filled field by field.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = (t[0] - 1900) as libc::c_int;
    tm.tm_mon = (t[1] - 1) as libc::c_int;
    tm.tm_mday = t[2] as libc::c_int;
    tm.tm_hour = t[3] as libc::c_int;
    tm.tm_min = t[4] as libc::c_int;
    tm.tm_sec = t[5] as libc::c_int;
    tm.tm_wday = ((t[6] + 1) % 7) as libc::c_int;
    tm.tm_yday = (t[7] - 1) as libc::c_int;
    tm.tm_isdst = t[8] as libc::c_int;
    if format.is_empty() {
        return Some(String::new());
    }
    let mut buf = vec![0u8; 4096];
    // SAFETY: `buf` holds `buf.len()` bytes; `strftime` writes at most that
    // many, NUL included, and returns how many it wrote before the NUL.
    let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), buf.len(), c_format.as_ptr(), &tm) };
    if n == 0 {
        return None;
    }
    buf.truncate(n);
    String::from_utf8(buf).ok()
}
