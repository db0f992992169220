//! Streams, events, hazards and the time model on simulated devices.

mod common;

use cudash::eval::Output;
use cudash::session::{Config, Session};

fn warnings(o: &cudash::session::Outcome) -> Vec<String> {
    o.outputs
        .iter()
        .filter_map(|x| match x {
            Output::Warning(w) => Some(w.clone()),
            _ => None,
        })
        .collect()
}

fn value(s: &mut Session, src: &str) -> String {
    let o = s.execute(src);
    assert!(o.error.is_none(), "{src}: {:?}", o.error);
    o.plain_text()
}

const RACE: &str = "A = empty(100, 100, device=cuda:0).normal_(0., 1.)\nstream s { B = A.sum() }";

#[test]
fn the_classic_race_warns_and_reads_the_old_bytes() {
    let mut s = common::session();
    let o = s.execute(RACE);
    assert!(o.error.is_none());
    let w = warnings(&o);
    assert_eq!(w.len(), 1, "{w:?}");
    for part in ["`A`", "stream `s`", "`default`", "`wait default`"] {
        assert!(w[0].contains(part), "{part} missing from: {}", w[0]);
    }
    // (`wait s` first: the host's own read of B is the next test's race.)
    assert_eq!(
        value(&mut s, "wait s\nB.item()"),
        "0.0",
        "empty() left zeros; normal_ had not run for s"
    );
    assert_eq!(value(&mut s, "A.sum() == 0"), "false  bool[] @cuda:0");
}

#[test]
fn waiting_for_the_default_stream_fixes_the_race() {
    let mut s = common::session();
    let o = s.execute(
        "A = empty(100, 100, device=cuda:0).normal_(0., 1.)\nstream s {\n  wait default\n  B = A.sum()\n}\nwait s\nB",
    );
    assert!(o.error.is_none());
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(value(&mut s, "B == A.sum()"), "true  bool[] @cuda:0");
    // A sync fixes it too.
    let o = s.execute("C = randn(10, device=cuda:0)\nsync\nstream s { D = C * 2 }\nsync\n(D == C * 2).sum().item()");
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(o.plain_text(), "10");
}

/// A host read (display, `.item()`, `print`, a blocking `.to(cpu)`) copies
/// on the current stream and waits for that stream only, as PyTorch's
/// `.item()` does: what a side stream may still be writing is a race.
#[test]
fn host_reads_wait_for_the_current_stream_only() {
    let mut s = common::session();
    value(
        &mut s,
        "x = ones(1000, device=cuda:0)\nsync\nstream s { y = x * 2 }",
    );
    let o = s.execute("y[0].item()");
    let w = warnings(&o);
    assert_eq!(w.len(), 1, "{w:?}");
    for part in ["on the host", "`default`", "`s`", "`sync s`", "`wait s`"] {
        assert!(w[0].contains(part), "{part} missing from: {}", w[0]);
    }
    assert_eq!(
        value(&mut s, "s.pending"),
        "1",
        "the host did not wait for s"
    );
    assert_eq!(value(&mut s, "default.pending"), "0");
    for read in ["print(y)", "y.to(cpu)", "y"] {
        let o = s.execute(read);
        assert_eq!(warnings(&o).len(), 1, "{read}: {:?}", warnings(&o));
        assert!(
            matches!(o.outputs.first(), Some(Output::Warning(_))),
            "{read}: the warning comes before what was read: {:?}",
            o.outputs
        );
    }
    // On s itself the copy is ordered after the write; after a sync of s
    // nothing is pending.
    let o = s.execute("with s { t = y.sum().item() }\nt");
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(o.plain_text(), "2000.0");
    value(&mut s, "s.sync()");
    let o = s.execute("y[0].item()");
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(o.plain_text(), "2.0");
}

#[test]
fn a_racy_script_prints_the_same_every_run() {
    let script = "seed(3)\nA = randn(64, 64, device=cuda:0)\nA.fill_(2)\nstream s { B = A.sum()\n C = A * 3 }\nB\nC.sum()\nh = C.to(cpu, non_blocking=true)\nh.sum()\ndel C\ntime 5 { D = A @ A }\nmem map";
    let run = || common::session().execute(script).plain_text();
    let first = run();
    assert!(first.contains("warning"), "{first}");
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
}

#[test]
fn record_stream_defers_the_free_until_the_stream_is_done() {
    let mut s = common::session();
    let stat = |s: &mut Session, k: &str| -> i64 {
        value(s, &format!("memory_stats()[\"{k}.all.current\"]"))
            .parse()
            .unwrap()
    };
    value(
        &mut s,
        "x = randn(1000, device=cuda:0)\nstream s {\n wait default\n y = x * 2\n}",
    );
    let o = s.execute("x.record_stream(s)\ndel x");
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(
        stat(&mut s, "allocated_bytes"),
        4096,
        "x no longer counts as allocated"
    );
    assert_eq!(
        stat(&mut s, "active_bytes"),
        8192,
        "but its block is still in use"
    );
    assert!(value(&mut s, "mem map").contains("waiting"));
    // Not reusable on default while s may still read it.
    value(&mut s, "z = randn(1000, device=cuda:0)");
    assert_eq!(stat(&mut s, "active_bytes"), 12288);
    value(&mut s, "sync s");
    assert_eq!(
        stat(&mut s, "active_bytes"),
        8192,
        "the waiting block came back"
    );
    assert!(!value(&mut s, "mem map").contains("waiting"));
    assert_eq!(s.check_invariants(), Ok(()));
}

#[test]
fn freeing_a_block_another_stream_uses_warns_without_record_stream() {
    let mut s = common::session();
    value(
        &mut s,
        "x = randn(1000, device=cuda:0)\nstream s {\n wait default\n y = x * 2\n}",
    );
    let w = warnings(&s.execute("del x"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("`x.record_stream(s)`"), "{}", w[0]);
    // After a sync nothing is in flight: no warning.
    value(
        &mut s,
        "x = randn(1000, device=cuda:0)\nstream s {\n wait default\n y = x * 2\n}\nsync",
    );
    assert!(warnings(&s.execute("del x")).is_empty());
}

/// As PyTorch's `empty_cache` (its `synchronize_and_free_events`): the
/// blocks freed while another stream used them are waited for and come
/// back, so their segments go back to the device too; a block another
/// stream uses stays requested until then.
#[test]
fn empty_cache_waits_for_blocks_other_streams_use() {
    let mut s = common::session();
    let stat = |s: &mut Session, k: &str| -> i64 {
        value(s, &format!("memory_stats()[\"{k}\"]"))
            .parse()
            .unwrap()
    };
    value(
        &mut s,
        "x = zeros(8 * 2**20, device=cuda:0)\nstream s {\n wait default\n y = x.sum()\n}\nx.record_stream(s)\ndel x",
    );
    assert_eq!(stat(&mut s, "requested_bytes.all.current"), (32 << 20) + 4);
    assert_eq!(stat(&mut s, "allocated_bytes.all.current"), 512);
    let syncs = |s: &mut Session| value(s, "profile { empty_cache() }");
    let p = syncs(&mut s);
    // One wait for stream s, one for the device: the segment's cudaFree.
    assert!(
        p.lines()
            .any(|l| l.trim_start().starts_with("host syncs") && l.trim_end().ends_with('2')),
        "{p}"
    );
    assert_eq!(stat(&mut s, "num_sync_all_streams"), 1);
    assert_eq!(stat(&mut s, "active_bytes.large_pool.current"), 0);
    assert_eq!(stat(&mut s, "reserved_bytes.large_pool.current"), 0);
    assert!(!value(&mut s, "mem map").contains("waiting"));
    assert_eq!(s.check_invariants(), Ok(()));
}

/// `empty_cache()` gives segments back with `cudaFree`, which waits for
/// everything queued on the device: the host waits for a product still
/// running, and does not when there is nothing to give back.
#[test]
fn empty_cache_waits_for_the_device_when_it_frees_a_segment() {
    let mut s = common::session();
    let host_syncs = |p: &str| -> String {
        p.lines()
            .find_map(|l| l.trim_start().strip_prefix("host syncs"))
            .unwrap_or_else(|| panic!("no host syncs in {p}"))
            .trim()
            .to_string()
    };
    value(
        &mut s,
        "a = randn(4096, 4096, device=cuda:0)\nb = zeros(8 * 2**20, device=cuda:0)",
    );
    value(&mut s, "c = a @ a\ndel b");
    let p = value(&mut s, "profile { empty_cache() }");
    assert_eq!(host_syncs(&p), "1", "{p}");
    let p = value(&mut s, "d = a @ a\nprofile { empty_cache() }");
    assert_eq!(host_syncs(&p), "0", "nothing to give back: {p}");
}

/// With expandable segments, `empty_cache()` waits for a segment's stream
/// before unmapping its pages, as PyTorch's `unmapHandles` does: unmapping,
/// unlike `cudaFree`, does not wait for the GPU.
#[test]
fn empty_cache_waits_for_the_stream_of_pages_it_unmaps() {
    let mut s = common::session();
    value(
        &mut s,
        "set_allocator_settings(\"expandable_segments:True\")\nstream s {\n x = zeros(8 * 2**20, device=cuda:0)\n y = x.sum()\n}\ndel x",
    );
    let p = value(&mut s, "profile { empty_cache() }");
    assert!(
        p.lines()
            .any(|l| l.trim_start().starts_with("host syncs") && l.trim_end().ends_with('1')),
        "{p}"
    );
    let reserved = value(
        &mut s,
        "memory_stats()[\"reserved_bytes.large_pool.current\"]",
    );
    assert_eq!(reserved, "0");
    assert_eq!(s.check_invariants(), Ok(()));
}

#[test]
fn blocks_waiting_for_a_stream_come_back_before_an_out_of_memory_error() {
    let mut s = common::sim_session(1, 64 << 20);
    value(&mut s, "x = zeros(8 * 2**20, device=cuda)\nstream s {\n wait default\n y = x.sum()\n}\nx.record_stream(s)\ndel x");
    value(&mut s, "z = zeros(14 * 2**20, device=cuda)");
    assert_eq!(value(&mut s, "memory_stats()[\"num_ooms\"]"), "0");
}

#[test]
fn profile_counts_one_host_sync_per_item_in_a_loop() {
    let mut s = common::session();
    value(&mut s, "w = randn(64, device=cuda:0)");
    let count = |text: &str, key: &str| -> String {
        text.lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .trim_start()[key.len()..]
            .trim()
            .to_string()
    };
    let p = value(
        &mut s,
        "profile { for i in 0..7 { l = (w * w).sum().item() } }",
    );
    assert_eq!(count(&p, "host syncs"), "7");
    assert_eq!(count(&p, "kernels"), "14");
    assert_eq!(count(&p, "copies D2H"), "7 (28 B)");
    let p = value(&mut s, "profile { for i in 0..7 { l = (w * w).sum() } }");
    assert_eq!(count(&p, "host syncs"), "0");
    assert!(
        count(&p, "device time").contains("on cuda:0 stream `default`, modelled on NVIDIA H100")
    );
}

#[test]
fn time_reports_modelled_device_time_and_copy_bandwidth() {
    let mut s = common::session();
    let t = value(
        &mut s,
        "a = randn(256, 256, device=cuda:0)\ntime 10 { b = a @ a }",
    );
    assert!(
        t.contains("device time on cuda:0 stream `default`, modelled on NVIDIA H100"),
        "{t}"
    );
    let pageable = value(&mut s, "p = randn(1024, 1024)\ntime 3 { q = p.to(cuda:0) }");
    let pinned = value(
        &mut s,
        "pin p\ntime 3 { q = p.to(cuda:0, non_blocking=true) }",
    );
    let rate = |t: &str| -> f64 {
        let at = t.find("copies: ").expect("a bandwidth line") + 8;
        t[at..].split(' ').next().unwrap().parse().unwrap()
    };
    assert!(
        rate(&pinned) > 3.0 * rate(&pageable),
        "{pageable}\n{pinned}"
    );
}

/// The figure after `prefix` in `text`, in seconds (`80.000 µs` …).
fn seconds_after(text: &str, prefix: &str) -> f64 {
    let at = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no `{prefix}` in {text}"))
        + prefix.len();
    let mut words = text[at..].split_whitespace();
    let n: f64 = words.next().unwrap().parse().unwrap();
    let unit = match words.next().unwrap() {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" => 1e-6,
        "ns" => 1e-9,
        u => panic!("unit {u}"),
    };
    n * unit
}

#[test]
fn time_and_profile_report_the_same_device_time_for_the_same_work() {
    for work in [
        "for i in 0..10 { l = (w * w).sum() }",
        "for i in 0..10 { l = (w * w).sum().item() }",
        "for i in 0..3 { print((w * w).sum()) }",
    ] {
        // Two sessions in the same state, so the stream has the same backlog.
        let measure = |how: &str| {
            let mut s = common::session();
            value(
                &mut s,
                "w = randn(64, device=cuda:0)
sync",
            );
            value(&mut s, &format!("{how} {{ {work} }}"))
        };
        let p = measure("profile");
        let t = measure("time 1");
        let (pt, tt) = (
            seconds_after(&p, "device time  "),
            seconds_after(&t, "time: "),
        );
        assert!((pt - tt).abs() < 1e-9, "{work}:\n{p}\n{t}");
        let busy = seconds_after(&p, "device busy  ");
        assert!(
            busy < pt,
            "launch-bound: the device waits for the host\n{p}"
        );
    }
}

/// d2l's exercise: 1,000 small matrix products, logging the norm of the
/// state every step; printing it (a copy to the host and a host sync each
/// step) is slower than keeping the log on the device and reading it once.
#[test]
fn printing_every_step_is_slower_than_a_log_kept_on_the_device() {
    let mut s = common::session();
    let setup = "seed(2)\nA = randn(100, 100, device=cuda:0) * 0.1\nx = randn(100, 100, device=cuda:0)\nlog = zeros(1000, device=cuda:0)\nsync";
    value(&mut s, setup);
    let printed = value(
        &mut s,
        "time 1 { for i in 0..1000 { x = (A @ x).tanh(); print(sqrt((x * x).sum())) } }",
    );
    value(&mut s, setup);
    let kept = value(
        &mut s,
        "time 1 { for i in 0..1000 { x = (A @ x).tanh(); log[i] = sqrt((x * x).sum()) }\n l = log.cpu() }",
    );
    let last = |t: &str| t.lines().last().unwrap().to_string();
    let (p, k) = (
        seconds_after(&last(&printed), "time: "),
        seconds_after(&kept, "time: "),
    );
    assert!(p > 1.2 * k, "printing {p} s, kept on the device {k} s");
}

#[test]
fn time_covers_every_stream_and_device_its_block_touches() {
    let mut s = common::session();
    value(
        &mut s,
        "w = randn(1024, 1024, device=cuda:0)
v = randn(64, device=cuda:1)
side = stream()
sync",
    );
    // A big matmul on a side stream: timing only `default` would miss it.
    let t = value(&mut s, "time 1 { z = v * 2; with side { m = w @ w } }");
    assert!(
        t.contains("cuda:0 stream `side` and cuda:1 stream `default`"),
        "{t}"
    );
    let matmul = seconds_after(&value(&mut s, "time 1 { m = w @ w }"), "time: ");
    assert!(seconds_after(&t, "time: ") >= matmul, "{t}");
    assert_eq!(
        value(&mut s, "side.pending"),
        "0",
        "time waits for what it timed"
    );
}

#[test]
fn pinning_costs_host_time_and_a_cached_pinned_block_does_not() {
    let mut s = common::session();
    value(&mut s, "p = randn(1024, 1024)");
    let pageable = seconds_after(&value(&mut s, "time 1 { q = p.to(cuda:0) }"), "time: ");
    let first = value(
        &mut s,
        "time 1 { q = p.pin().to(cuda:0, non_blocking=true) }",
    );
    assert!(
        seconds_after(&first, "time: ") > pageable,
        "page-locking 4 MiB is slow: {first}"
    );
    let again = seconds_after(
        &value(
            &mut s,
            "time 1 { q = p.pin().to(cuda:0, non_blocking=true) }",
        ),
        "time: ",
    );
    assert!(
        again < pageable / 2.0,
        "the pinned block comes from the cache"
    );
    let pin = value(&mut s, "r = randn(1024, 1024)\ntime 1 { pin r }");
    assert!(pin.contains("host time: page-locking, modelled"), "{pin}");
    assert!(seconds_after(&pin, "time: ") > 1e-3, "{pin}");
}

#[test]
fn ops_on_empty_tensors_launch_and_allocate_nothing() {
    let mut s = common::session();
    let p = value(
        &mut s,
        "profile { e = zeros(0, 3, device=cuda:0); f = e * 2; g = e.to(cpu); h = g.to(cuda:0) }",
    );
    for (row, want) in [
        ("kernels", "0"),
        ("allocations", "0 (0 B)"),
        ("copies H2D", "0 (0 B)"),
        ("copies D2H", "0 (0 B)"),
    ] {
        let line = p.lines().find(|l| l.trim_start().starts_with(row)).unwrap();
        assert_eq!(line.trim_start()[row.len()..].trim(), want, "{p}");
    }
    assert_eq!(value(&mut s, "default.pending"), "0", "{p}");
}

#[test]
fn the_current_stream_is_restored_after_an_error() {
    let mut s = common::session();
    value(&mut s, "s = stream()");
    assert!(s
        .execute("with s { x = ones(2, device=cuda:0)\n y = nope }")
        .error
        .is_some());
    value(&mut s, "z = ones(2, device=cuda:0)");
    assert_eq!(value(&mut s, "default.pending"), "1", "z went to default");
    assert_eq!(value(&mut s, "s.pending"), "1", "x went to s");
}

#[test]
fn status_reports_memory_and_pending_work_per_stream() {
    let mut s = common::session();
    value(
        &mut s,
        "x = ones(1000, device=cuda:0)\nstream s { y = x + 1\n z = y + 1 }",
    );
    let st = s.status();
    let d0 = &st.devices[0];
    assert_eq!(d0.allocated, 3 * 4096);
    let pending: Vec<(String, u64)> = d0
        .streams
        .iter()
        .map(|s| (s.name.clone(), s.pending))
        .collect();
    assert_eq!(
        pending,
        vec![("default".to_string(), 1), ("s".to_string(), 2)]
    );
    assert!(st.devices[1].streams.is_empty());
    value(&mut s, "sync");
    assert!(s.status().devices[0].streams.is_empty());
}

#[test]
fn launch_blocking_completes_every_op() {
    let mut s = Session::new(Config {
        launch_blocking: true,
        ..Config::default()
    })
    .unwrap();
    let o = s.execute(RACE);
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(value(&mut s, "B == A.sum()"), "true  bool[] @cuda:0");
    assert_eq!(value(&mut s, "s.pending"), "0");
}

#[test]
fn events_order_streams_across_devices() {
    let mut s = common::session();
    let o = s.execute(
        "with device(1) {\n stream t {\n  a = randn(8, device=cuda)\n  e = event().record()\n }\n}\nwait e\nb = a.to(cuda:0)",
    );
    assert!(o.error.is_none(), "{:?}", o.error);
    let o = s.execute("sync e\nc = b.sum()");
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert_eq!(
        value(&mut s, "t.pending"),
        "0",
        "syncing e completed t's work up to e"
    );
}

#[test]
fn reset_waits_for_queued_work_and_forgets_quietly() {
    let mut s = common::session();
    value(
        &mut s,
        "x = randn(1000, device=cuda:0)\nstream s {\n wait default\n y = x * 2\n}",
    );
    s.reset();
    let o = s.execute("z = ones(2)");
    assert!(warnings(&o).is_empty(), "{:?}", warnings(&o));
    assert!(s
        .status()
        .devices
        .iter()
        .all(|d| d.allocated == 0 && d.streams.is_empty()));
}

#[test]
fn the_repl_status_line_shows_streams_with_pending_work() {
    let mut s = common::session();
    value(
        &mut s,
        "x = ones(1000, device=cuda:1)\nwith device(1) { stream s { y = x * 2 } }",
    );
    let line = cudash::repl::status_line(&s);
    assert!(line.starts_with("cuda:1  allocated 8.0 KiB"), "{line}");
    assert!(
        line.ends_with("· default 1 pending · s 1 pending"),
        "{line}"
    );
    value(&mut s, "sync all");
    assert!(!cudash::repl::status_line(&s).contains("pending"));
}

#[test]
fn a_race_inside_a_loop_warns_once_with_a_count() {
    let mut s = common::session();
    let o = s.execute(
        "A = ones(10, device=cuda:0)\nfor i in 0..5 {\n A.fill_(i)\n stream s { B = A.sum() }\n}",
    );
    let w = warnings(&o);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[1].contains("4 more times"), "{}", w[1]);
}
