//! Entry points for the fuzz targets (`fuzz/`, run by `scripts/fuzz`) and for
//! the regression tests that replay what they found (`tests/fuzz_regressions.rs`).
//! Each takes arbitrary bytes and panics only on a bug: a panic inside
//! cudash, or an invariant broken afterwards.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::session::{Config, Session};

/// A fuzz target: arbitrary bytes in, a panic only on a bug.
pub type Target = fn(&[u8]);

/// Every target, by name, as `scripts/fuzz` and the regression test know them.
pub const TARGETS: &[(&str, Target)] = &[
    ("parse", parse),
    ("execute", execute),
    ("npy", npy),
    ("safetensors", safetensors),
    ("torch_save", torch_save),
    ("kernel_message", kernel_message),
    ("zmtp", zmtp),
];

/// The lexer and parser, and the REPL's completeness check, on any text.
pub fn parse(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(diags) = crate::lang::parse(src) {
        assert!(!diags.is_empty(), "a failed parse must say why");
        for d in &diags {
            assert!(
                d.span.start <= d.span.end && d.span.end <= src.len(),
                "span {:?} outside a source of {} bytes",
                d.span,
                src.len()
            );
            let _ = crate::diag::render(d, "fuzz", src, false);
        }
    }
    let _ = crate::lang::completeness(src);
}

/// A whole cell through `Session::execute` on two small simulated devices.
/// A cell may not run for more than a second (it is interrupted, as a user
/// would) and the variable it cannot touch keeps its value.
pub fn execute(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    crate::runtime::host::limit(1 << 30);
    let mut s = Session::new(Config {
        sim_devices: 2,
        sim_memory: 256 << 20,
        ..Config::default()
    })
    .expect("the simulator always starts");
    assert!(s.execute("untouchable_ = arange(3)").error.is_none());
    let _watch = Watchdog::arm(s.interrupt_handle(), Duration::from_secs(1));
    let _ = s.execute(src);
    drop(_watch);
    if !src.contains("untouchable_") {
        assert_eq!(
            s.execute("untouchable_").plain_text(),
            "[0, 1, 2]  i64[3] @cpu"
        );
    }
    if let Err(e) = s.check_invariants() {
        panic!("allocator invariant broken: {e}");
    }
}

/// The `.npy` reader; a tensor it accepts has as many bytes as its shape says.
pub fn npy(data: &[u8]) {
    if let Ok(t) = crate::runtime::io::parse_npy(data) {
        assert_eq!(t.numel(), t.shape().iter().product::<usize>());
    }
}

/// The `.safetensors` reader.
pub fn safetensors(data: &[u8]) {
    if let Ok(ts) = crate::runtime::io::parse_safetensors(data) {
        for (_, t) in ts {
            assert_eq!(t.numel(), t.shape().iter().product::<usize>());
        }
    }
}

/// The reader of `torch.save`'s files (its zip archive and restricted
/// pickle, read in full: NumPy's arrays and Python 2's strings too); a
/// tensor or array it accepts has as many elements as its shape says, and
/// what it reads writes back and reads again the same.
pub fn torch_save(data: &[u8]) {
    use crate::runtime::io::{parse_torch, torch_bytes, Pickled, Py2Strings, Unpickler};
    fn tensors(p: &Pickled, out: &mut Vec<Vec<u8>>) {
        match p {
            Pickled::Tensor(t) => {
                assert_eq!(t.tensor.numel(), t.tensor.shape().iter().product::<usize>());
                out.push(t.tensor.contiguous_buffer().to_le_bytes());
            }
            Pickled::Array(a) => {
                assert_eq!(a.tensor.numel(), a.tensor.shape().iter().product::<usize>());
                out.push(a.tensor.contiguous_buffer().to_le_bytes());
            }
            Pickled::List(items) | Pickled::Tuple(items) => {
                items.iter().for_each(|i| tensors(i, out))
            }
            Pickled::Dict(pairs) | Pickled::OrderedDict(pairs) => {
                pairs.iter().for_each(|(k, v)| {
                    tensors(k, out);
                    tensors(v, out);
                })
            }
            Pickled::Object(o) => {
                o.args.iter().for_each(|a| tensors(a, out));
                if let Some(state) = &o.state {
                    tensors(state, out);
                }
            }
            _ => {}
        }
    }
    let how = Unpickler::Full(Py2Strings::Latin1);
    if let Ok(v) = parse_torch(data, how) {
        let mut first = Vec::new();
        tensors(&v, &mut first);
        if let Ok(bytes) = torch_bytes(&v, "fuzz") {
            let again = parse_torch(&bytes, how).expect("what cudash writes, it reads");
            let mut second = Vec::new();
            tensors(&again, &mut second);
            assert_eq!(first, second, "a round trip changed a tensor");
        }
    }
}

/// The kernel's message decoder: frames split at each 0xF7 byte, checked
/// unsigned or with a key (the first byte decides), as they come off a socket.
pub fn kernel_message(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let mut frames = rest.split(|&b| b == 0xF7);
    let mut msg = zeromq::ZmqMessage::from(frames.next().unwrap_or_default().to_vec());
    for f in frames {
        msg.push_back(f.to_vec().into());
    }
    let key = if first & 1 == 0 { "" } else { "fuzz-key" };
    let _ = crate::kernel::wire::decode_frames(msg, &crate::kernel::wire::mac(key));
}

/// The guard's ZMTP scanner, fed in the chunks the first bytes choose.
pub fn zmtp(data: &[u8]) {
    let Some((&chunk, rest)) = data.split_first() else {
        return;
    };
    let mut scanner = crate::kernel::guard::Scanner::default();
    for part in rest.chunks(usize::from(chunk).max(1)) {
        if scanner.feed(part).is_err() {
            return;
        }
    }
}

/// Sets a session's interrupt flag when a cell runs past its time: one thread
/// for the whole process, told of each cell's deadline.
struct Watchdog;

static DEADLINE_MS: AtomicU64 = AtomicU64::new(u64::MAX);
static FLAG: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);

/// Milliseconds since the watchdog started; the first call starts it.
fn now_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = EPOCH.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(20));
            if now_ms() > DEADLINE_MS.load(Ordering::Relaxed) {
                if let Some(f) = FLAG.lock().unwrap().as_ref() {
                    f.store(true, Ordering::Relaxed);
                }
            }
        });
        Instant::now()
    });
    epoch.elapsed().as_millis() as u64
}

impl Watchdog {
    fn arm(flag: Arc<AtomicBool>, limit: Duration) -> Watchdog {
        *FLAG.lock().unwrap() = Some(flag);
        DEADLINE_MS.store(now_ms() + limit.as_millis() as u64, Ordering::Relaxed);
        Watchdog
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        DEADLINE_MS.store(u64::MAX, Ordering::Relaxed);
        *FLAG.lock().unwrap() = None;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_watchdog_interrupts_a_runaway_cell() {
        let start = std::time::Instant::now();
        super::execute(b"for i in 0..1000000000000 { y = i }");
        assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    }
}
