//! Device memory for ops' temporaries (`runtime/scratch.rs`), kept for
//! stream-ordered reuse outside the caching allocator: checked on `emu`'s
//! device memory.

use std::sync::Arc;

use cudash::runtime::cuda::emu::Emu;
use cudash::runtime::driver::{Driver, StreamHandle};
use cudash::runtime::scratch::Scratch;

fn scratch() -> (Scratch, Arc<Emu>) {
    let emu = Arc::new(Emu::new(1, 64 << 20, "test", (9, 0)));
    (Scratch::new(emu.clone(), 0), emu)
}

fn used(emu: &Emu) -> usize {
    let (free, total) = emu.mem_info(0).unwrap();
    total - free
}

#[test]
fn a_temporary_is_reused_only_by_the_stream_that_used_it() {
    let (mut s, emu) = scratch();
    let (a, b) = (StreamHandle::default_of(0), emu.stream_create(0).unwrap());
    let (p, size) = s.take(100, a).unwrap();
    assert_eq!(size, 512);
    s.give_back(p, size, a);
    let (q, _) = s.take(300, b).unwrap();
    assert_ne!(q, p, "stream b must not get a's temporary");
    let (r, _) = s.take(400, a).unwrap();
    assert_eq!(r, p, "stream a gets it back");
    assert_eq!(s.kept(), 0);
}

#[test]
fn a_full_device_frees_the_kept_temporaries_first() {
    let (mut s, emu) = scratch();
    let a = StreamHandle::default_of(0);
    let (p, size) = s.take(40 << 20, a).unwrap();
    s.give_back(p, size, a);
    let before = used(&emu);
    let (q, size) = s.take(30 << 20, a).unwrap();
    assert_eq!(size, 30 << 20);
    assert!(
        used(&emu) <= before,
        "the 40 MiB temporary was freed for it"
    );
    s.give_back(q, size, a);
    s.release();
    assert_eq!(used(&emu), 0);
}
