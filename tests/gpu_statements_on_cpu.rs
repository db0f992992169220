//! Statements that need a GPU parse and behave honestly on the cpu backend.

mod common;

#[test]
fn cuda_devices_do_not_exist_on_cpu() {
    let (class, msg) = common::err("with device(0) { x = 1 }");
    assert_eq!(class, "DeviceError");
    assert!(msg.contains("cuda:0 does not exist"), "{msg}");
    let (_, msg) = common::err("ones(2).to(cuda:7)");
    assert!(msg.contains("cuda:7 does not exist"), "{msg}");
    let (_, msg) = common::err("ones(2, device=cuda)");
    assert!(msg.contains("no CUDA devices"), "{msg}");
    shows!("device_count()" => "0");
    shows!("devices()" => "[]");
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
        "memory_allocated()",
    ] {
        let (class, msg) = common::err(src);
        assert_eq!(class, "DeviceError", "{src}");
        assert!(msg.contains("needs a CUDA device"), "{src}: {msg}");
    }
}

#[test]
fn sync_on_cpu_is_a_no_op() {
    shows!("sync" => "");
    shows!("sync all" => "");
    shows!("sync cpu" => "");
}

#[test]
fn time_measures_wall_clock_on_cpu() {
    let out = common::ok("x = ones(8, 8)\ntime 5 { y = x @ x }");
    assert!(
        out.starts_with("time: ")
            && out.contains("per iteration (wall clock on cpu, 5 iterations)"),
        "{out}"
    );
}

#[test]
fn profile_counts_ops_and_allocations() {
    let out = common::ok("x = ones(4)\nprofile { for i in 0..3 { l = (x * 2).sum().item() } }");
    assert!(out.contains("ops          6"), "{out}");
    assert!(out.contains("allocations  6 (60 B)"), "{out}");
    assert!(out.contains("host syncs   0"), "{out}");
}

#[test]
fn help_covers_builtins_methods_and_statements() {
    let all = common::ok("help");
    for group in [
        "tensors:",
        "devices:",
        "streams:",
        "memory:",
        "teaching and the language:",
    ] {
        assert!(all.contains(group), "{group} missing from:\n{all}");
    }
    assert!(common::ok("help randn").contains("randn(*size, dtype=f32, device=cpu)"));
    assert!(common::ok("help .to").contains("x.to(target, non_blocking=false)"));
    let both = common::ok("help sum");
    assert!(
        both.contains("sum(input, dim=none") && both.contains("x.sum(dim=none"),
        "{both}"
    );
    let (class, _) = common::err("help randm");
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
        "mem",
        "event",
        "empty_cache",
        "reset_peak",
        "memory_allocated",
        "max_memory_allocated",
        "memory_reserved",
        "memory_stats",
        "cuda",
        "record_stream",
        "current_device",
    ];
    for d in cudash::eval::docs::DOCS {
        if needs_cuda.contains(&d.name) {
            continue;
        }
        let o = common::session().execute(d.example);
        assert!(
            o.error.is_none(),
            "example of `{}` failed:\n{}",
            d.name,
            o.error.unwrap().report
        );
    }
}
