//! With no CUDA devices (`--sim-devices 0`), statements that need a GPU parse
//! and behave honestly.

mod common;

fn err(src: &str) -> (String, String) {
    let o = common::cpu_session().execute(src);
    let e = o.error.unwrap_or_else(|| panic!("`{src}` should fail"));
    (e.ename, e.evalue)
}

fn ok(src: &str) -> String {
    let o = common::cpu_session().execute(src);
    assert!(o.error.is_none(), "{src}: {:?}", o.error);
    o.plain_text()
}

#[test]
fn cuda_devices_do_not_exist_on_cpu() {
    let (class, msg) = err("with device(0) { x = 1 }");
    assert_eq!(class, "DeviceError");
    assert!(msg.contains("cuda:0 does not exist"), "{msg}");
    let (_, msg) = err("ones(2).to(cuda:7)");
    assert!(msg.contains("cuda:7 does not exist"), "{msg}");
    let (_, msg) = err("ones(2, device=cuda)");
    assert!(msg.contains("no CUDA devices"), "{msg}");
    assert_eq!(ok("device_count()"), "0");
    assert_eq!(ok("devices()"), "[]");
}

#[test]
fn stream_memory_and_pinning_need_cuda() {
    for src in [
        "stream s { x = 1 }",
        "mem",
        "mem map",
        "x = ones(2); pin x",
        "ones(2).pin()",
        "event()",
    ] {
        let (class, msg) = err(src);
        assert_eq!(class, "DeviceError", "{src}");
        assert!(msg.contains("needs a CUDA device"), "{src}: {msg}");
    }
    let (class, msg) = err("memory_allocated()");
    assert_eq!(class, "DeviceError");
    assert!(msg.contains("no CUDA devices"), "{msg}");
}

#[test]
fn sync_on_cpu_is_a_no_op() {
    assert_eq!(ok("sync"), "");
    assert_eq!(ok("sync all"), "");
    assert_eq!(ok("sync cpu"), "");
}

#[test]
fn time_measures_wall_clock_on_cpu() {
    let out = ok("x = ones(8, 8)\ntime 5 { y = x @ x }");
    assert!(
        out.starts_with("time: ") && out.contains("per iteration (host wall clock, 5 iterations"),
        "{out}"
    );
}

#[test]
fn profile_counts_ops_and_allocations() {
    let out = ok("x = ones(4)\nprofile { for i in 0..3 { l = (x * 2).sum().item() } }");
    assert!(out.contains("ops          6"), "{out}");
    assert!(
        out.contains("allocations  0 (0 B)"),
        "host tensors use no device memory: {out}"
    );
    assert!(out.contains("host syncs   0"), "{out}");
}

#[test]
fn help_covers_builtins_methods_and_statements() {
    let all = ok("help");
    for group in [
        "tensors:",
        "devices:",
        "streams:",
        "memory:",
        "teaching and the language:",
    ] {
        assert!(all.contains(group), "{group} missing from:\n{all}");
    }
    assert!(ok("help randn")
        .contains("randn(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false, generator=none)"));
    assert!(ok("help .to").contains("x.to(target=none, non_blocking=false"));
    let both = ok("help sum");
    assert!(
        both.contains("sum(input, dim=none") && both.contains("x.sum(dim=none"),
        "{both}"
    );
    let (class, _) = err("help randm");
    assert_eq!(class, "NameError");
}

#[test]
fn every_cpu_example_in_the_help_runs() {
    let needs_cuda = [
        "device",
        "with",
        "stream",
        "wait",
        "pin",
        "pin_memory",
        "mem",
        "event",
        "empty_cache",
        "reset_peak",
        "set_per_process_memory_fraction",
        "memory_allocated",
        "max_memory_allocated",
        "memory_reserved",
        "memory_stats",
        "max_memory_reserved",
        "scatter",
        "gather",
        "replicate",
        "parallel_apply",
        "DataParallel",
        "all_reduce",
        "reduce_scatter",
        "all_gather",
        "broadcast",
        "cuda",
        "record_stream",
        "current_device",
        "set_device",
        "get_device_name",
        "sync",
        "query",
        "pending",
        "record",
        "elapsed",
        "time",
        "profile",
        "current_stream",
        "synchronize",
        "wait_stream",
        "record_event",
        "wait_event",
        "elapsed_time",
        "reset_peak_memory_stats",
        "reset_accumulated_memory_stats",
        "memory_summary",
        "record_memory_history",
        "dump_snapshot",
        "manual_seed_all",
        "data_ptr",
    ];
    for d in cudash::eval::docs::DOCS {
        if needs_cuda.contains(&d.name) {
            continue;
        }
        let o = common::cpu_session().execute(d.example);
        assert!(
            o.error.is_none(),
            "example of `{}` failed:\n{}",
            d.name,
            o.error.unwrap().report
        );
    }
}
