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
        out.starts_with(">>> a = 1\n>>> a\n1\n>>> b = nope\nNameError: unknown name `nope`"),
        "{out}"
    );
    assert!(!out.contains("c = 3"), "{out}");
    let o = cudash(&["run", &f, "--no-color", "--keep-going"]);
    assert_eq!(o.status.code(), Some(0));
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
        text(&o).contains("cannot read the connection file /nonexistent/kernel-1.json"),
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
