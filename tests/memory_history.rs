//! The allocator's history: `record_memory_history`, `mem history` and
//! `dump_snapshot`, whose pickle Python's own `pickle` loads and checks
//! (`memory_snapshot_check.py`: PyTorch's keys, blocks tiling segments, the
//! sums against `memory_allocated()`/`memory_reserved()`, the trace pairing
//! up, and only the opcodes pytorch.org/memory_viz reads).

mod common;

use common::{err_in, ok_in, sim_session};
use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("cudash-snapshot-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn python() -> String {
    std::env::var("CUDASH_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Runs the checker on `path` with the session's own figures.
fn check(s: &mut cudash::session::Session, path: &std::path::Path, devices: u32) -> String {
    let figure = |s: &mut cudash::session::Session, f: &str, d: u32| -> u64 {
        ok_in(s, &format!("{f}({d})")).trim().parse().unwrap()
    };
    let allocated: Vec<u64> = (0..devices)
        .map(|d| figure(s, "memory_allocated", d))
        .collect();
    let reserved: Vec<u64> = (0..devices)
        .map(|d| figure(s, "memory_reserved", d))
        .collect();
    let expected = format!(
        "{{\"devices\": {devices}, \"allocated\": {allocated:?}, \"reserved\": {reserved:?}}}"
    );
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/memory_snapshot_check.py"
    );
    let out = Command::new(python())
        .args([script, path.to_str().unwrap(), &expected])
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the snapshot check failed:\n{text}");
    text
}

#[test]
fn python_reads_the_snapshot_as_pytorch_s() {
    let mut s = sim_session(2, 1 << 30);
    let path = dir().join("run.pickle");
    ok_in(
        &mut s,
        "x = randn(1000, device=cuda:0)\n\
         W = randn(512, 512, device=cuda:0)\n\
         h = W @ W\n\
         big = zeros(4000000, device=cuda:0)\n\
         del big\n\
         y = ones(3, 5, device=cuda:1)\n\
         stream s { wait default; z = x * 2 }\n\
         x.record_stream(s)\n\
         del x\n\
         t = ones(100, device=cuda:0)\n\
         del t\n\
         empty_cache()",
    );
    // An out-of-memory error is recorded too, and the session goes on.
    err_in(&mut s, "huge = zeros(300000000000, device=cuda:1)");
    ok_in(&mut s, &format!("dump_snapshot(\"{}\")", path.display()));
    let out = check(&mut s, &path, 2);
    assert!(out.starts_with("ok:"), "{out}");
    let bytes = std::fs::read(&path).unwrap();
    // The trace names the statements; the out-of-memory event has the device's free bytes.
    let text = String::from_utf8_lossy(&bytes);
    for word in [
        "cell 1",
        "matmul",
        "oom",
        "device_free",
        "free_requested",
        "segment_free",
    ] {
        assert!(text.contains(word), "no {word} in the snapshot");
    }
}

#[test]
fn a_block_held_for_another_stream_is_pending_free_until_its_work_is_done() {
    let mut s = sim_session(1, 1 << 30);
    let path = dir().join("pending.pickle");
    ok_in(
        &mut s,
        "x = randn(100000, device=cuda)\n\
         stream s { wait default; y = x * 2 }\n\
         x.record_stream(s)\n\
         del x",
    );
    ok_in(&mut s, &format!("dump_snapshot(\"{}\")", path.display()));
    check(&mut s, &path, 1);
    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    assert!(
        text.contains("active_pending_free"),
        "the block waits for s"
    );
    ok_in(&mut s, "sync");
    let out = ok_in(&mut s, "mem history");
    assert!(out.contains("now 391.0 KiB allocated"), "{out}");
}

#[test]
fn frames_name_the_cell_line_and_op_and_a_call_s_statement() {
    let mut s = sim_session(1, 1 << 30);
    ok_in(&mut s, "fn make(n) {\n  return ones(n, device=cuda)\n}");
    ok_in(&mut s, "a = 1\nw = make(100000)");
    let out = ok_in(&mut s, "mem history");
    assert!(
        out.contains(
            "peak allocated 391.0 KiB at event 2: cell 2, line 2: `w = make(100000)` (ones)"
        ),
        "{out}"
    );
}

#[test]
fn the_ring_keeps_the_newest_events() {
    let mut s = sim_session(1, 1 << 30);
    ok_in(&mut s, "record_memory_history(max_entries=10)");
    ok_in(&mut s, "for i in 0..100 { x = ones(1000, device=cuda) }");
    let out = ok_in(&mut s, "mem history");
    // A segment, then 100 allocs and 99 frees (each free requested and completed).
    assert!(
        out.contains("events 290 to 299, the 289 before them dropped"),
        "{out}"
    );
    ok_in(
        &mut s,
        "record_memory_history(enabled=false)\ny = ones(10, device=cuda)",
    );
    assert!(ok_in(&mut s, "mem history").contains("events 290 to 299"));
}

#[test]
fn bad_input_is_a_clear_error_and_the_session_goes_on() {
    let mut s = sim_session(1, 64 << 20);
    let d = dir().join("bad");
    std::fs::create_dir_all(&d).unwrap();
    let (class, msg) = err_in(&mut s, &format!("dump_snapshot(\"{}\")", d.display()));
    assert_eq!(class, "IOError");
    assert!(msg.contains("directory"), "{msg}");
    // A parent that is a file: nothing is left behind.
    let file = d.join("plain");
    std::fs::write(&file, "x").unwrap();
    let (class, _) = err_in(
        &mut s,
        &format!("dump_snapshot(\"{}/run.pickle\")", file.display()),
    );
    assert_eq!(class, "IOError");
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
    assert_eq!(left.len(), 1, "only the plain file is there");
    for (src, class, words) in [
        (
            "record_memory_history(max_entries=0)",
            "ValueError",
            "at least 1, not 0",
        ),
        (
            "record_memory_history(max_entries=-5)",
            "ValueError",
            "at least 1, not -5",
        ),
        (
            "record_memory_history(enabled=3)",
            "TypeError",
            "true, false or none",
        ),
        ("dump_snapshot(3)", "TypeError", "a string"),
        ("mem history cpu", "ValueError", "keeps no history"),
    ] {
        let (c, m) = err_in(&mut s, src);
        assert_eq!(c, class, "{src}: {m}");
        assert!(m.contains(words), "{src}: {m}");
    }
    // Nothing recorded yet on a fresh device; recording off says how to turn it on.
    assert!(ok_in(&mut s, "mem history").contains("no events recorded"));
    ok_in(&mut s, "record_memory_history(enabled=none)");
    assert!(ok_in(&mut s, "mem history").contains("recording is off"));
    ok_in(&mut s, "record_memory_history()");
    // Out of memory while recording: the event is kept and the chart still draws.
    err_in(&mut s, "x = zeros(100000000, device=cuda)");
    let out = ok_in(&mut s, "mem history");
    assert!(
        out.contains("event 1: nothing was allocated or reserved"),
        "{out}"
    );
    assert!(
        out.contains("✗ out of memory at event 1: asked for 381.5 MiB with 64.0 MiB free"),
        "{out}"
    );
    // A snapshot of a device with no segments.
    let path = dir().join("empty.pickle");
    let shown = ok_in(&mut s, &format!("dump_snapshot(\"{}\")", path.display()));
    assert!(shown.contains("0 segments, 1 event"), "{shown}");
    check(&mut s, &path, 1);
}

#[test]
fn without_devices_the_history_builtins_say_why() {
    let mut s = common::cpu_session();
    for src in [
        "dump_snapshot(\"x.pickle\")",
        "record_memory_history()",
        "mem history",
    ] {
        let (_, msg) = err_in(&mut s, src);
        assert!(msg.contains("needs a CUDA device"), "{src}: {msg}");
    }
}

/// `mem history` draws what was kept for backward as its own band (▓):
/// ten 1 MiB `exp` results only the graph keeps, freed node by node as
/// backward runs them, so the band falls one step per node, not at once
/// at the end (issue 66).
#[test]
fn what_is_kept_for_backward_is_its_own_band_and_falls_node_by_node() {
    let mut s = common::session();
    let before = ok_in(
        &mut s,
        "record_memory_history(enabled=true)\nx = randn(256, 1024, device=cuda)\n\
         W = randn(1024, 1024, device=cuda, requires_grad=true)\nh = x @ W\n\
         for i in 0..10 { h = h.exp() }\nloss = h.sum()\ndel h\nmem history",
    );
    // The graph keeps the ten results (`x` and `W` are the session's).
    assert!(before.contains("at most 10.0 MiB"), "{before}");
    let after = ok_in(&mut s, "loss.backward()\nmem history");
    assert!(after.contains("at most 10.0 MiB"), "{after}");
    // Each ▓ row ends where backward freed its share: the higher rows end
    // first (a staircase), rather than all at one column.
    let ends: Vec<usize> = after
        .lines()
        .filter(|l| l.contains('┤'))
        .filter_map(|l| {
            l.chars()
                .collect::<Vec<_>>()
                .iter()
                .rposition(|&c| c == '▓')
        })
        .collect();
    assert!(ends.len() >= 2, "{after}");
    assert!(ends.windows(2).all(|w| w[0] < w[1]), "{ends:?}\n{after}");
}
