//! The `cudash` binary: `run` transcripts, `--check`, exit codes, piped REPL input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn cudash(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

fn golden(name: &str) -> String {
    format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str, contents: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("cudash-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p.display().to_string()
}

#[test]
fn golden_transcripts_match() {
    golden_transcripts_match_on(&[]);
}

/// The CUDA backend's code path (`--backend emu`) gives the simulator's transcripts.
#[test]
fn golden_transcripts_match_on_emu() {
    golden_transcripts_match_on(&["--backend", "emu"]);
}

fn golden_transcripts_match_on(backend: &[&str]) {
    for entry in std::fs::read_dir(golden("")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cudash") {
            // A first line `# args: --sim-devices 4` gives the options the transcript was made with.
            let src = std::fs::read_to_string(&path).unwrap();
            let extra: Vec<&str> = src
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("# args:"))
                .map(|a| a.split_whitespace().collect())
                .unwrap_or_default();
            let mut args = vec!["run", path.to_str().unwrap(), "--check", "--keep-going"];
            args.extend(extra);
            args.extend(backend);
            let o = cudash(&args);
            assert!(o.status.success(), "{}:\n{}", path.display(), text(&o));
        }
    }
}

#[test]
fn run_prints_a_transcript_and_stops_at_the_first_error() {
    let f = temp("stop.cudash", b"a = 1\na\nb = nope\nc = 3\n");
    let o = cudash(&["run", &f, "--no-color"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(
        out.starts_with(">>> a = 1\n>>> a\n1\n>>> b = nope\nNameError: name 'nope' is not defined"),
        "{out}"
    );
    assert!(!out.contains("c = 3"), "{out}");
    // --keep-going runs the rest, and still fails, as `make -k` does.
    let o = cudash(&["run", &f, "--no-color", "--keep-going"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains(">>> c = 3"));
}

#[test]
fn check_fails_on_a_changed_transcript() {
    let f = temp("changed.cudash", b"x = [1., 2.]\nx * 3\n");
    std::fs::write(
        format!("{f}.out"),
        ">>> x = [1., 2.]\n>>> x * 3\n[3., 7.]  f32[2] @cpu\n",
    )
    .unwrap();
    let o = cudash(&["run", &f, "--check"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(
        out.contains("- [3., 7.]  f32[2] @cpu") && out.contains("+ [3., 6.]  f32[2] @cpu"),
        "{out}"
    );
    // --save writes the expected file; --check then passes.
    assert!(cudash(&["run", &f, "--save"]).status.success());
    assert!(cudash(&["run", &f, "--check"]).status.success());
}

#[test]
fn timings_are_ignored_by_check() {
    let f = temp("timed.cudash", b"x = ones(4, 4)\ntime 3 { y = x @ x }\n");
    assert!(cudash(&["run", &f, "--save"]).status.success());
    let saved = std::fs::read_to_string(format!("{f}.out")).unwrap();
    assert!(saved.contains("per iteration"), "{saved}");
    assert!(cudash(&["run", &f, "--check"]).status.success());
}

#[test]
fn empty_script_runs() {
    let f = temp("empty.cudash", b"");
    let o = cudash(&["run", &f]);
    assert!(o.status.success());
    assert_eq!(text(&o), "");
}

#[test]
fn unreadable_and_invalid_files_are_clear_errors() {
    let o = cudash(&["run", "/nonexistent/lesson.cudash"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("cannot read `/nonexistent/lesson.cudash`"));
    let f = temp("latin1.cudash", b"x = 1\n\xff\xfe\n");
    let o = cudash(&["run", &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("not valid UTF-8"), "{}", text(&o));
}

#[test]
fn ctrl_c_stops_a_script_at_the_running_statement() {
    let f = temp(
        "endless.cudash",
        b"x = 1\nfor i in 0..1000000000 { y = i }\nnever = 2\n",
    );
    let child = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["run", &f, "--no-color", "--keep-going"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(130), "{t}");
    assert!(
        t.contains("stopped here") && t.contains("cudash: interrupted"),
        "{t}"
    );
    assert!(!t.contains("never"), "{t}");
}

#[test]
fn piped_input_runs_without_prompts() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"x = [1., 2.]\nfor i in 0..2 {\n  x = x * 2\n}\nx\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "[4., 8.]  f32[2] @cpu\n"
    );
}

/// Piped input is a file, as `python < file` reads it: a blank line inside
/// a Python block goes on while the next line is still indented.
#[test]
fn piped_python_keeps_blank_lines_inside_blocks() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"def f(a):\n    b = a + 1\n\n    return b\n\nprint(f(2))\n\
              for i in 0..2:\n    print(i)\n\nprint('done')\n",
        )
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "3\n0\n1\ndone\n");
}

#[test]
fn unavailable_backends_fail_clearly() {
    let o = cudash(&["--backend", "cuda", "devices"]);
    assert_eq!(o.status.code(), Some(2));
    let out = text(&o);
    assert!(
        out.contains("--backend cuda:") && out.contains("use --backend sim"),
        "{out}"
    );
    assert!(!out.contains("panicked"), "{out}");
    let o = cudash(&["--backend", "tpu", "devices"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("use auto, sim, cuda or emu"),
        "{}",
        text(&o)
    );
    // emu compiles the kernels for the host on first use: with no compiler
    // (and nothing cached) it cannot start, and says why.
    let cache = std::env::temp_dir().join(format!("cudash-no-cxx-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--backend", "emu", "devices"])
        .env("CXX", "/nonexistent/c++")
        .env("CUDASH_KERNEL_CACHE", &cache)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let out = text(&o);
    assert!(
        out.contains("--backend emu cannot start") && out.contains("install g++ or clang++"),
        "{out}"
    );
    let o = cudash(&["--backend", "emu", "devices"]);
    assert!(
        text(&o).contains("backend: emu") && text(&o).contains("NVIDIA H100 (emulated, 16.0 GiB)"),
        "{}",
        text(&o)
    );
    let o = cudash(&["--backend", "sim", "devices"]);
    assert!(
        text(&o).contains("chosen with --backend sim"),
        "{}",
        text(&o)
    );
    // CUDASH_BACKEND stands in for `auto` (a front end Jupyter starts takes
    // no flags); an explicit --backend wins, and a bad value is refused.
    let with_env = |value: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cudash"))
            .args(args)
            .env("CUDASH_BACKEND", value)
            .output()
            .unwrap()
    };
    let o = with_env("emu", &["devices"]);
    assert!(
        text(&o).contains("backend: emu") && text(&o).contains("chosen with CUDASH_BACKEND=emu"),
        "{}",
        text(&o)
    );
    let o = with_env("emu", &["--backend", "sim", "devices"]);
    assert!(text(&o).contains("backend: sim"), "{}", text(&o));
    let o = with_env("tpu", &["devices"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("CUDASH_BACKEND=tpu: unknown backend"),
        "{}",
        text(&o)
    );
    // A script run fails the same way, before running anything.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/allocator.cudash");
    let o = cudash(&["--backend", "cuda", "run", script]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("--backend cuda:"), "{}", text(&o));
    let o = cudash(&["devices"]);
    assert!(o.status.success());
    let out = text(&o);
    assert!(
        out.starts_with("backend: sim") && out.contains("cuda:1") && !out.contains("cuda:2"),
        "{out}"
    );
    let o = cudash(&["--sim-devices", "3", "--sim-memory", "1GiB", "devices"]);
    let out = text(&o);
    assert!(
        out.contains("cuda:2") && out.contains("0 B / 1.0 GiB"),
        "{out}"
    );
    let o = cudash(&["--sim-devices", "0", "devices"]);
    assert!(text(&o).starts_with("backend: cpu"), "{}", text(&o));
    let o = cudash(&["--sim-memory", "lots", "devices"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("not a size"), "{}", text(&o));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let f = temp(
        "long.cudash",
        format!("x = arange(3)\n{}", "x\n".repeat(20_000)).as_bytes(),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["run", &f])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
}

#[test]
fn kernel_install_writes_a_kernelspec() {
    let dir = std::env::temp_dir().join(format!("cudash-kernelspec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let prefix = dir.join("prefix");
    let o = cudash(&[
        "--sim-devices",
        "4",
        "kernel",
        "install",
        "--prefix",
        prefix.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let spec_dir = prefix.join("share/jupyter/kernels/cudash");
    assert!(
        text(&o).contains(spec_dir.to_str().unwrap()),
        "{}",
        text(&o)
    );
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(spec_dir.join("kernel.json")).unwrap())
            .unwrap();
    let argv: Vec<&str> = spec["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(std::path::Path::new(argv[0]).is_absolute(), "{argv:?}");
    assert_eq!(
        argv[1..],
        ["--sim-devices", "4", "kernel", "-f", "{connection_file}"]
    );
    assert_eq!(spec["interrupt_mode"], "message");
    assert_eq!(spec["language"], "cudash");
    for logo in ["logo-32x32.png", "logo-64x64.png", "logo-svg.svg"] {
        let bytes = std::fs::read(spec_dir.join(logo)).unwrap();
        assert!(bytes.len() > 100, "{logo}");
    }
    // --user goes where Jupyter looks: $JUPYTER_DATA_DIR/kernels when set.
    let data = dir.join("data");
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["kernel", "install", "--user"])
        .env("JUPYTER_DATA_DIR", &data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(data.join("kernels/cudash/kernel.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kernel_without_a_connection_file_fails_clearly() {
    let o = cudash(&["kernel"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("connection file"), "{}", text(&o));
    let o = cudash(&["kernel", "-f", "/nonexistent/kernel-1.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("cannot create the connection file /nonexistent/kernel-1.json"),
        "{}",
        text(&o)
    );
    let bad = temp("not-a-connection.json", b"{\"ip\": 1}");
    let o = cudash(&["kernel", "-f", &bad]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("is not a Jupyter connection file"),
        "{}",
        text(&o)
    );
}

fn notebook(name: &str) -> String {
    format!("{}/notebooks/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A notebook with `cells` as (kind, source, tags), no outputs saved.
fn write_notebook(name: &str, cells: &[(&str, &str, &[&str])]) -> String {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|(kind, src, tags)| {
            let mut c = serde_json::json!({
                "cell_type": kind, "metadata": {"tags": tags}, "source": src,
            });
            if *kind == "code" {
                c["outputs"] = serde_json::json!([]);
                c["execution_count"] = serde_json::Value::Null;
            }
            c
        })
        .collect();
    let nb =
        serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    temp(name, nb.to_string().as_bytes())
}

#[test]
fn every_lesson_matches_its_saved_outputs() {
    every_lesson_matches_on(&[]);
}

/// Every lesson on the CUDA backend's code path shows what the simulator showed.
#[test]
fn every_lesson_matches_its_saved_outputs_on_emu() {
    every_lesson_matches_on(&["--backend", "emu"]);
}

fn every_lesson_matches_on(backend: &[&str]) {
    let dir = format!("{}/notebooks", env!("CARGO_MANIFEST_DIR"));
    let mut lessons: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ipynb"))
        .collect();
    lessons.sort();
    assert!(
        lessons.len() >= 8,
        "the tour and seven lessons: {lessons:?}"
    );
    for p in lessons {
        let mut args = vec!["run", p.to_str().unwrap(), "--check"];
        args.extend(backend);
        let o = cudash(&args);
        assert!(o.status.success(), "{}:\n{}", p.display(), text(&o));
        assert!(text(&o).starts_with("ok: "), "{}", text(&o));
    }
}

#[test]
fn check_shows_the_cell_whose_outputs_changed() {
    let original = std::fs::read_to_string(notebook("01-devices-and-placement.ipynb")).unwrap();
    let tampered = original.replacen("[4., 6.]  f32[2] @cuda:0", "[4., 7.]  f32[2] @cuda:0", 1);
    assert_ne!(original, tampered, "the lesson shows z");
    let f = temp("tampered.ipynb", tampered.as_bytes());
    let o = cudash(&["run", &f, "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("shows other outputs than saved:\n    z\n"),
        "{out}"
    );
    assert!(
        out.contains("  - [4., 7.]  f32[2] @cuda:0\n  + [4., 6.]  f32[2] @cuda:0"),
        "{out}"
    );
}

#[test]
fn save_writes_outputs_that_check_then_accepts() {
    let f = write_notebook(
        "fresh.ipynb",
        &[
            ("markdown", "# A lesson", &[]),
            ("code", "x = ones(2, device=cuda:1)\nprint(\"hi\")\nx", &[]),
            ("code", "x + nope", &["raises-exception"]),
            ("code", "", &[]),
            ("code", "mem cuda:1", &[]),
        ],
    );
    let o = cudash(&["run", &f, "--check"]);
    assert_eq!(o.status.code(), Some(1), "nothing saved yet: {}", text(&o));
    let o = cudash(&["run", &f, "--save"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("wrote the outputs of 3 cells"),
        "{}",
        text(&o)
    );
    let nb: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let cells = nb["cells"].as_array().unwrap();
    let outs = &cells[1]["outputs"];
    assert_eq!(outs[0]["output_type"], "stream");
    assert_eq!(outs[0]["text"], serde_json::json!(["hi\n"]));
    assert_eq!(outs[1]["output_type"], "execute_result");
    assert_eq!(outs[1]["execution_count"], 1);
    assert!(
        outs[1]["data"]["text/html"].is_array(),
        "HTML as Jupyter shows it"
    );
    assert_eq!(cells[2]["outputs"][0]["ename"], "NameError");
    assert_eq!(
        cells[3]["execution_count"],
        serde_json::Value::Null,
        "blank cells do not run"
    );
    assert_eq!(cells[4]["outputs"][0]["output_type"], "display_data");
    assert_eq!(cells[4]["execution_count"], 3);
    let o = cudash(&["run", &f, "--check"]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn error_tags_must_be_honest() {
    let f = write_notebook(
        "tags.ipynb",
        &[
            ("code", "x = 1", &["raises-exception"]),
            ("code", "y = nope", &[]),
        ],
    );
    let o = cudash(&["run", &f, "--save"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("cell 1 is tagged `raises-exception` but runs without error"),
        "{out}"
    );
    assert!(
        out.contains("cell 2 fails but is not tagged `raises-exception`"),
        "{out}"
    );
    assert!(out.contains("NameError"), "{out}");
}

#[test]
fn run_gives_a_notebook_transcript() {
    let f = write_notebook(
        "transcript.ipynb",
        &[
            ("markdown", "Narration is not code.", &[]),
            ("code", "a = 2\na * 3", &[]),
            ("code", "a + nope", &["raises-exception"]),
            ("code", "zeros?", &[]),
            ("code", "b = nope", &[]),
            ("code", "print(\"never\")", &[]),
        ],
    );
    let o = cudash(&["--no-color", "run", &f]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.starts_with(">>> a = 2\n>>> a * 3\n6\n>>> a + nope\nNameError"),
        "{out}"
    );
    assert!(
        out.contains("[ cell 3:1:5 ]"),
        "errors name their cell: {out}"
    );
    assert!(
        out.contains(">>> zeros?\nzeros(*size"),
        "help queries show help: {out}"
    );
    assert!(out.contains("stopped at cell 5"), "{out}");
    assert!(!out.contains("never"), "{out}");
    let o = cudash(&["--no-color", "run", &f, "--keep-going"]);
    assert!(
        o.status.code() == Some(1) && text(&o).contains("never"),
        "{}",
        text(&o)
    );
}

#[test]
fn files_that_are_not_notebooks_are_clear_errors() {
    for (name, body, says) in [
        ("broken.ipynb", "{\"cells\": [", "bad JSON at line 1"),
        (
            "old.ipynb",
            "{\"nbformat\": 3, \"worksheets\": []}",
            "nbformat 3",
        ),
        (
            "odd.ipynb",
            "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"slide\"}]}",
            "unknown cell_type `slide`",
        ),
    ] {
        let f = temp(name, body.as_bytes());
        for args in [
            vec!["run", &f],
            vec!["run", &f, "--check"],
            vec!["present", &f],
        ] {
            let o = cudash(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
        }
    }
}

#[test]
fn present_reads_keys_as_lines_without_a_terminal() {
    let f = temp(
        "steps.cudash",
        b"# Steps\n# one at a time\n\nx = 1\nprint(\"first\")\n\n# Then:\nprint(\"second\")\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--no-color", "present", &f])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Run, run, back, rerun, quit.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"\n\nb\nr\nq\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let expected = [
        "steps.cudash · 2 cells to run",
        "Steps one at a time",
        "── cell 1/2 ─",
        ">>> x = 1\n>>> print(\"first\")\nfirst\n",
        "Then:",
        "── cell 2/2 ─",
        ">>> print(\"second\")\nsecond\n",
        // back: cell 2 shown again with its narration
        "Then:",
        "── cell 2/2 ─",
        // rerun: the last cell that ran
        "── cell 2/2 ─",
        ">>> print(\"second\")\nsecond\n",
    ];
    let mut rest = out.as_str();
    for piece in expected {
        let at = rest
            .find(piece)
            .unwrap_or_else(|| panic!("`{piece}` not found in order in:\n{out}"));
        rest = &rest[at + piece.len()..];
    }
}

/// `cudash cuda` reports what it finds and exits 0, GPU or not.
#[test]
fn cuda_reports_the_machine() {
    let o = cudash(&["cuda"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    for line in [
        "driver ",
        "NVRTC ",
        "cuBLAS ",
        "NCCL ",
        "kernels  910 in 74 compile units",
        "backend ",
    ] {
        assert!(t.contains(line), "no `{line}` in:\n{t}");
    }
    let o = cudash(&["cuda", "--compile", "h100"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("try sm_90 for an H100"), "{}", text(&o));
}

/// `--compile sm_90` fills the kernel cache without a GPU (when NVRTC is on
/// the loader path, as scripts/test arranges).
#[test]
fn cuda_compile_fills_the_kernel_cache() {
    if !cudash::runtime::cuda::nvrtc::present() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs NVRTC (scripts/test installs it)"
        );
        eprintln!("SKIPPED: NVRTC is not on the loader path");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cudash-cli-kcache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["cuda", "--compile", "sm_90"])
        .env("CUDASH_KERNEL_CACHE", &dir)
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("compiled 74 of 74 units for sm_90"), "{t}");
    let cubins = std::fs::read_dir(&dir).unwrap().filter(|e| {
        e.as_ref()
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "cubin")
    });
    assert_eq!(cubins.count(), 74);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Simulated devices honour CUDA_VISIBLE_DEVICES as the driver does for real ones.
#[test]
fn cuda_visible_devices_selects_simulated_devices() {
    let f = temp(
        "visible.cudash",
        b"device_count()\nx = ones(2, device=cuda:1)\n",
    );
    let run = |visible: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
            .args(["run", &f, "--no-color", "--sim-devices", "4"])
            .env("CUDA_VISIBLE_DEVICES", visible)
            .output()
            .unwrap();
        text(&o)
    };
    let two = run("1,3");
    assert!(two.contains(">>> device_count()\n2\n"), "{two}");
    let one = run("2,9,0");
    assert!(one.contains(">>> device_count()\n1\n"), "{one}");
    assert!(one.contains("cuda:1 does not exist"), "{one}");
    let none = run("");
    assert!(
        none.contains("CUDA_VISIBLE_DEVICES hides every device"),
        "{none}"
    );
}

/// Colour follows no-color.org and the output: an empty NO_COLOR leaves it
/// on, a set one turns it off, and `run` writes no escapes into a pipe.
#[test]
fn colour_only_reaches_a_terminal() {
    let f = temp("colour.cudash", b"x = nope\n");
    for no_color in [None, Some(""), Some("1")] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cudash"));
        c.args(["run", &f]);
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        let o = c.output().unwrap();
        assert!(
            !text(&o).contains('\x1b'),
            "escapes in a pipe (NO_COLOR={no_color:?}): {}",
            text(&o)
        );
    }
}

/// `cudash launch` runs a script in several ranks as torchrun does: each
/// rank's `os.environ` holds its RANK, LOCAL_RANK and WORLD_SIZE (so
/// `init_process_group("nccl")` needs no arguments), and what they print
/// comes on stdout. A rank that raises ends the run with torchrun's
/// summary naming it, its error's report, and exit status 1; the others,
/// waiting in a collective, stop instead of hanging.
#[test]
fn launch_runs_a_script_in_ranks_as_torchrun() {
    let script = temp(
        "launched.py",
        b"import os
import torch
import torch.distributed as dist

local_rank = int(os.environ[\"LOCAL_RANK\"])
torch.cuda.set_device(local_rank)
dist.init_process_group(\"nccl\")
t = torch.ones(2, device=\"cuda\") * (local_rank + 1)
dist.all_reduce(t)
print(f\"rank {dist.get_rank()} of {os.environ['WORLD_SIZE']}: {t.tolist()}\")
os.environ[\"MINE\"] = str(local_rank)
print(f\"rank {local_rank} sees MINE={os.environ['MINE']}\")
if local_rank == 1:
    raise ValueError(\"rank 1 gives up\")
dist.all_reduce(t)
",
    );
    let o = cudash(&[
        "launch",
        "--nproc-per-node",
        "3",
        "--sim-devices",
        "3",
        &script,
    ]);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    for r in 0..3 {
        assert!(out.contains(&format!("rank {r} of 3: [6.0, 6.0]")), "{out}");
        // Each rank's environment is its own, as each process's is.
        assert!(out.contains(&format!("rank {r} sees MINE={r}")), "{out}");
    }
    assert!(
        err.starts_with("ChildFailedError: ")
            && err.contains("Root Cause (first observed failure): rank 1 (local_rank: 1)")
            && err.contains("ValueError: rank 1 gives up")
            && err.contains("launched.py:14"),
        "{err}"
    );

    // One node only; a bad count is refused before anything runs.
    let o = cudash(&["launch", "--nnodes", "2", &script]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("TCP store, which is not built"),
        "{}",
        text(&o)
    );
    let o = cudash(&["launch", "--nproc_per_node", "0", &script]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("give a number of ranks"), "{}", text(&o));
}

/// A script in the style of PyTorch's DDP example (`examples/distributed/
/// ddp/example.py`), run as torchrun runs it: the backend asked of the
/// device (`get_default_backend_for_device`), the device set by
/// `torch.accelerator.set_device_index`, `dist.get_backend()`, a DDP step.
#[test]
fn launch_runs_the_ddp_examples_spelling() {
    let script = temp(
        "ddp_style.py",
        b"import os
import sys
import tempfile
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ[\"RANK\"])
acc = torch.accelerator.current_accelerator()
backend = torch.distributed.get_default_backend_for_device(acc)
torch.accelerator.set_device_index(rank)
dist.init_process_group(backend=backend)
print(f\"rank {dist.get_rank()} backend={dist.get_backend()} device={torch.accelerator.current_device_index()} {torch.cuda.current_device()} {sys.platform} {os.path.isdir(tempfile.gettempdir())}\")
torch.manual_seed(0)
model = nn.Linear(4, 2).to(rank)
ddp = DDP(model, device_ids=[rank])
loss = ddp(torch.randn(8, 4)).sum()
loss.backward()
print(f\"rank {rank} grad {model.weight.grad.sum().item():.4f}\")
dist.destroy_process_group()
",
    );
    let o = cudash(&[
        "launch",
        "--nproc-per-node",
        "2",
        "--sim-devices",
        "2",
        &script,
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    for r in 0..2 {
        assert!(
            out.contains(&format!("rank {r} backend=nccl device={r} {r} linux True")),
            "{out}"
        );
    }
    // DDP averages the ranks' gradients: both ranks hold the same.
    let grads: Vec<&str> = out.lines().filter(|l| l.contains(" grad ")).collect();
    assert_eq!(grads.len(), 2, "{out}");
    assert_eq!(
        grads[0].split(" grad ").nth(1),
        grads[1].split(" grad ").nth(1),
        "{out}"
    );
}
