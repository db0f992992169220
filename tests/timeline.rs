//! `profile`'s timeline: the Chrome trace file against the Trace Event
//! Format, and what the text timeline shows of overlap and host waits.

mod common;

use std::collections::{HashMap, HashSet};

use common::{ok_in, sim_session};
use serde_json::Value;

fn trace_path(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("cudash-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

/// The number after `label` in the profile table (`host syncs   5`).
fn counted(out: &str, label: &str) -> usize {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` in:\n{out}"));
    line.trim_start()[label.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn num(e: &Value, key: &str) -> f64 {
    e[key]
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number in {e}"))
}

#[test]
fn the_trace_file_follows_the_trace_event_format() {
    let mut s = sim_session(2, 1 << 30);
    let path = trace_path("run.json");
    ok_in(
        &mut s,
        "x = randn(512, 512, device=cuda)\nh = randn(1024, 1024)\npin h\nb = randn(256, 256, device=cuda:1)",
    );
    let out = ok_in(
        &mut s,
        &format!(
            "profile \"{path}\" {{\n\
             stream side {{ y = h.to(cuda, non_blocking=true) }}\n\
             z = x @ x\n\
             c = b @ b\n\
             wait side\n\
             for i in 0..3 {{ l = (z[0] + y[0, :512]).sum().item() }}\n\
             }}"
        ),
    );
    assert!(out.contains(&format!("trace written to {path}")), "{out}");
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(trace["displayTimeUnit"], "ns");
    let events = trace["traceEvents"]
        .as_array()
        .expect("a traceEvents array");

    let mut processes = HashSet::new();
    let mut threads = HashMap::new();
    let mut used = HashSet::new();
    let mut spans: HashMap<(u64, u64), Vec<(f64, f64)>> = HashMap::new();
    let (mut kernels, mut instants, mut copies, mut launches) = (0, 0, Vec::new(), 0);
    for e in events {
        let pid = e["pid"].as_u64().expect("every event has a pid");
        match e["ph"].as_str().unwrap() {
            "M" => match e["name"].as_str().unwrap() {
                "process_name" => {
                    processes.insert(pid);
                }
                "thread_name" => {
                    let tid = e["tid"].as_u64().unwrap();
                    threads.insert((pid, tid), e["args"]["name"].as_str().unwrap().to_string());
                }
                "process_sort_index" => {}
                other => panic!("unexpected metadata {other}"),
            },
            "X" => {
                let tid = e["tid"].as_u64().unwrap();
                let (ts, dur) = (num(e, "ts"), num(e, "dur"));
                assert!(ts >= 0.0 && dur >= 0.0, "{e}");
                assert!(e["name"].is_string() && e["args"]["op"].is_string(), "{e}");
                used.insert((pid, tid));
                spans.entry((pid, tid)).or_default().push((ts, ts + dur));
                match e["cat"].as_str().unwrap() {
                    "kernel" => kernels += 1,
                    "copy" => copies.push(e.clone()),
                    "sync" => assert_eq!(pid, 0, "host waits are on the host: {e}"),
                    "launch" => {
                        assert_eq!(pid, 0, "launches are on the host: {e}");
                        launches += 1;
                    }
                    // Work queued before the profile, on a device's stream.
                    "before" => {
                        assert_ne!(pid, 0, "earlier work is on a device: {e}");
                        assert_eq!(ts, 0.0, "earlier work is drawn from the start: {e}");
                    }
                    other => panic!("unexpected category {other}"),
                }
            }
            "i" => {
                assert_eq!(e["s"], "t", "{e}");
                assert!(num(e, "ts") >= 0.0);
                used.insert((pid, e["tid"].as_u64().unwrap()));
                instants += 1;
            }
            other => panic!("unexpected phase {other} in {e}"),
        }
    }
    // Every track used is named, and so is its process.
    for key in &used {
        assert!(
            threads.contains_key(key),
            "track {key:?} has no thread_name"
        );
        assert!(processes.contains(&key.0), "process {} has no name", key.0);
    }
    assert_eq!(threads[&(1, 0)], "cuda:0 default");
    assert_eq!(threads[&(2, 0)], "cuda:1 default");
    // A stream runs one item at a time.
    for ((pid, tid), mut v) in spans {
        if pid == 0 {
            continue;
        }
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in v.windows(2) {
            assert!(
                w[1].0 >= w[0].1 - 1e-3,
                "items overlap on {pid}/{tid}: {w:?}"
            );
        }
    }
    // The file counts what the table counts.
    assert_eq!(instants, counted(&out, "host syncs"));
    assert_eq!(kernels, counted(&out, "kernels"));
    assert_eq!(
        copies.len(),
        counted(&out, "copies H2D") + counted(&out, "copies D2H") + counted(&out, "copies D2D")
    );
    // The host launched each kernel and copy: one launch each on its track.
    assert_eq!(launches, kernels + copies.len());
    // The pinned copy on the side stream overlaps the matmul on default.
    let side = threads
        .iter()
        .find(|(_, n)| n.as_str() == "cuda:0 side")
        .map(|(k, _)| *k)
        .expect("a side-stream track");
    let h2d = copies
        .iter()
        .find(|e| e["name"] == "H2D copy")
        .expect("the H2D copy");
    assert_eq!(
        (h2d["pid"].as_u64().unwrap(), h2d["tid"].as_u64().unwrap()),
        side
    );
    let matmul = events
        .iter()
        .find(|e| e["name"] == "matmul" && e["pid"] == 1)
        .unwrap();
    let (c0, c1) = (num(h2d, "ts"), num(h2d, "ts") + num(h2d, "dur"));
    let (m0, m1) = (num(matmul, "ts"), num(matmul, "ts") + num(matmul, "dur"));
    assert!(
        m0 < c1 && c0 < m1,
        "copy {c0}..{c1} and matmul {m0}..{m1} overlap"
    );
    assert_eq!(matmul["args"]["detail"], "f32[512,512]");
}

#[test]
fn the_text_timeline_shows_overlap_and_host_waits() {
    let mut s = sim_session(1, 1 << 30);
    ok_in(
        &mut s,
        "x = randn(512, 512, device=cuda)\nh = randn(1024, 1024)\npin h",
    );
    let out = ok_in(
        &mut s,
        "profile { stream side { y = h.to(cuda, non_blocking=true) }\nz = x @ x }",
    );
    let lane = |name: &str| -> String {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no lane {name} in:\n{out}"))
            .to_string()
    };
    let (default, side) = (lane("cuda:0 default"), lane("cuda:0 side"));
    // The kernel and the copy share columns: they run at the same time.
    let bar = |l: &str| -> Vec<char> { l.split('│').nth(1).unwrap().chars().collect() };
    let both = bar(&default)
        .iter()
        .zip(bar(&side))
        .filter(|(k, c)| **k != ' ' && *c != ' ')
        .count();
    assert!(both > 0, "{out}");
    assert!(!lane("host").contains('░'), "no host waits:\n{out}");
    // Reading a result makes the host wait.
    let out = ok_in(&mut s, "profile { v = z.sum().item() }");
    assert!(out.contains('░') && out.contains("host syncs   1"), "{out}");
}

/// A device value an expression statement shows inside `profile { }` is
/// shown after the profile: reading it is not the block's work (no sync,
/// no copy measured); a value the program reads itself (`.item()`) is.
#[test]
fn a_value_shown_in_a_profile_is_read_after_it() {
    let mut s = sim_session(1, 1 << 30);
    ok_in(&mut s, "x = randn(256, 256, device=cuda)");
    let out = ok_in(&mut s, "profile {\n  y = x @ x\n  y.sum()\n}");
    assert_eq!(counted(&out, "host syncs"), 0, "{out}");
    assert_eq!(counted(&out, "copies D2H"), 0, "{out}");
    let (table, value) = out.split_at(out.find("f32[] @cuda:0").expect("the value shown"));
    assert!(
        table.contains("profile") && !value.contains("profile"),
        "{out}"
    );
    let out = ok_in(&mut s, "profile { v = (x @ x).sum().item() }");
    assert_eq!(counted(&out, "host syncs"), 1, "{out}");
}

#[test]
fn a_long_block_keeps_its_timeline_small() {
    let mut s = sim_session(1, 1 << 30);
    let path = trace_path("long.json");
    ok_in(&mut s, "w = randn(16, device=cuda)");
    let out = ok_in(
        &mut s,
        &format!("profile \"{path}\" {{ for i in 0..20000 {{ y = w * 2 }} }}"),
    );
    // The text stays one row per lane, however many items.
    let timeline = out.split("timeline").nth(1).unwrap();
    let timeline = timeline.split("trace written").next().unwrap();
    assert!(timeline.lines().count() < 10, "{out}");
    assert!(timeline.lines().all(|l| l.chars().count() <= 80), "{out}");
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let kernels = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "kernel")
        .count();
    assert_eq!(kernels, 20000);
}

#[test]
fn the_timeline_fills_the_width_it_is_given() {
    let mut s = sim_session(1, 1 << 30);
    s.set_width(120);
    ok_in(&mut s, "w = randn(64, device=cuda)");
    let out = ok_in(
        &mut s,
        "profile { for i in 0..3 { y = (w * 2).sum().item() } }",
    );
    let lane = out.lines().find(|l| l.contains("cuda:0 default")).unwrap();
    assert_eq!(lane.chars().count(), 120, "{out}");
}
