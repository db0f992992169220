//! The bad-input catalogue: each line is something a user might type. Every one
//! gets a diagnostic of the expected class whose span lies inside the source,
//! and the session goes on with its variables intact.

mod common;

use cudash::session::Session;

const CATALOGUE: &[(&str, &str)] = &[
    // syntax
    ("x = 1 +* 2", "SyntaxError"),
    ("x = )", "SyntaxError"),
    ("x = (1 + 2", "SyntaxError"),
    ("x = [1, 2)", "SyntaxError"),
    ("x = 1 2", "SyntaxError"),
    ("zeros(2,, 3)", "SyntaxError"),
    ("1 = x", "SyntaxError"),
    ("ones(2) = 3", "SyntaxError"),
    ("x = \"open", "SyntaxError"),
    ("x = 'open", "SyntaxError"),
    ("x = 1 $ 2", "SyntaxError"),
    ("x = 1 ` 2", "SyntaxError"),
    ("x = 99999999999999999999", "SyntaxError"),
    ("for in 0..3 { }", "SyntaxError"),
    ("for i 0..3 { }", "SyntaxError"),
    ("for i in 0..3", "SyntaxError"),
    ("with { }", "SyntaxError"),
    ("del", "SyntaxError"),
    ("del 3", "SyntaxError"),
    ("pin 3", "SyntaxError"),
    ("x[] = 1", "SyntaxError"),
    ("x.", "SyntaxError"),
    ("x.(1)", "SyntaxError"),
    ("1 < < 3", "SyntaxError"),
    ("stream { }", "SyntaxError"),
    ("time 3", "SyntaxError"),
    ("x = 1\u{0}", "SyntaxError"),
    ("x = 1\u{1b}[31m", "SyntaxError"),
    ("}", "SyntaxError"),
    ("x = 1.2.3", "SyntaxError"),
    ("x = 1e", "SyntaxError"),
    ("x = [[[[1", "SyntaxError"),
    ("for i in 0..3 { for j in 0..3 {", "SyntaxError"),
    ("with device(0)", "SyntaxError"),
    ("x\u{200b} = 1", "SyntaxError"),
    ("x = \u{202e}1", "SyntaxError"),
    ("\u{feff}x = 1", "SyntaxError"),
    ("x = -9223372036854775808", "SyntaxError"),
    ("ones(2).to(cuda:99999999999)", "SyntaxError"),
    // names
    ("randm(2)", "NameError"),
    ("nope + 1", "NameError"),
    ("del nope", "NameError"),
    ("help nonsense", "NameError"),
    ("ones(2).nope", "AttributeError"),
    ("ones(2).resahpe(2)", "AttributeError"),
    ("cpu.indx", "AttributeError"),
    // arguments
    ("zeros(2, dtyp=f16)", "TypeError"),
    ("exp(ones(2), 3)", "TypeError"),
    ("full([2])", "TypeError"),
    ("zeros(2, dtype=cpu)", "TypeError"),
    ("zeros(\"2\")", "TypeError"),
    // An int is a CUDA device, as PyTorch reads it: this session has two.
    ("ones(2).to(3)", "DeviceError"),
    ("ones(2).to(true)", "TypeError"),
    ("ones(2).sum(dim=1.5)", "TypeError"),
    ("ones(2).reshape(\"a\")", "TypeError"),
    ("3(4)", "TypeError"),
    ("\"a\" + 1", "TypeError"),
    ("cpu + 1", "TypeError"),
    ("-\"a\"", "TypeError"),
    ("ones(2)[\"a\"]", "TypeError"),
    ("for i in 3 { }", "TypeError"),
    ("zeros(dtype=f16, 2)", "ValueError"),
    // shapes and dtypes
    ("ones(2, 3) + ones(4)", "ShapeError"),
    ("ones(2, 3) @ ones(2, 3)", "ShapeError"),
    ("[[1, 2], [3]]", "ShapeError"),
    ("arange(6).reshape(4, -1)", "ShapeError"),
    ("arange(6).reshape(-1, -1)", "ShapeError"),
    ("cat([ones(2, 2), ones(3, 3)])", "ShapeError"),
    ("stack([ones(2), ones(3)])", "ShapeError"),
    ("x = zeros(2, 3); x[0] = [1, 2]", "ShapeError"),
    ("ones(2)[0, 0]", "ShapeError"),
    ("ones(0).max()", "ShapeError"),
    ("[1, 2].mean()", "DTypeError"),
    ("[2, 3] ** -1", "DTypeError"),
    ("[true] - [true]", "DTypeError"),
    ("-[true]", "DTypeError"),
    ("randn(2, dtype=i64)", "DTypeError"),
    ("[true] @ [true]", "DTypeError"),
    // indices and values
    ("ones(2, 3)[0, 3]", "IndexError"),
    ("ones(2)[-3]", "IndexError"),
    ("[cpu, cpu][2]", "IndexError"),
    ("ones(2).sum(dim=2)", "IndexError"),
    ("ones(2)[::0]", "ValueError"),
    ("ones(2)[::-1]", "ValueError"),
    ("zeros(-1)", "ValueError"),
    ("zeros(1e20)", "ValueError"),
    ("zeros(4294967296, 4294967296, 4294967296)", "ValueError"),
    ("zeros(1000000, 1000000)", "OutOfMemoryError"),
    ("zeros(2**40)", "OutOfMemoryError"),
    ("randn(2**36)", "OutOfMemoryError"),
    ("arange(2**36)", "OutOfMemoryError"),
    ("full([2**62, 4], 1)", "ValueError"),
    ("arange(9223372036854775807)", "ValueError"),
    ("ones(2)[9223372036854775807]", "IndexError"),
    ("zeros(2, 3).reshape(9223372036854775807, 0)", "ShapeError"),
    ("eye(-1)", "ValueError"),
    ("randn(2, 3).sum(dim=-4)", "IndexError"),
    ("cat([])", "ValueError"),
    ("stack([])", "ValueError"),
    ("scatter(ones(4), [])", "ValueError"),
    ("gather([], cuda:0)", "ValueError"),
    ("9223372036854775807 * 2", "ValueError"),
    ("-(-9223372036854775807 - 1)", "ValueError"),
    ("arange(0, 10, 0)", "ValueError"),
    ("arange(1e300)", "ValueError"),
    ("ones(3).item()", "ValueError"),
    ("1 / 0", "ZeroDivisionError"),
    ("9223372036854775807 + 1", "ValueError"),
    ("-9223372036854775807 - 2", "ValueError"),
    ("2 ** 64", "ValueError"),
    ("time 0 { }", "ValueError"),
    ("memory_stats()[\"nope\"]", "KeyError"),
    // devices and memory
    ("ones(2).to(cuda:7)", "DeviceError"),
    ("with device(9) { }", "DeviceError"),
    ("device(-1)", "ValueError"),
    (
        "ones(2, device=cuda:0) + ones(2, device=cuda:1)",
        "DeviceError",
    ),
    ("ones(2, device=cuda:0) + ones(2)", "DeviceError"),
    ("zeros(5 * 2**30, device=cuda)", "OutOfMemoryError"),
    ("q = 1; stream q { }", "ValueError"),
    ("wait 3", "TypeError"),
    ("sync 3", "TypeError"),
    ("event().elapsed(event())", "ValueError"),
    ("event().elapsed(3)", "TypeError"),
    (
        "a = event().record(); b = event().record(); a.elapsed(b)",
        "ValueError",
    ),
    ("default.pending(1)", "ValueError"),
    ("default.nope", "AttributeError"),
    ("stream(3)", "TypeError"),
    ("ones(2).record_stream(1)", "TypeError"),
    (
        "ones(2, device=cuda:1).record_stream(default)",
        "ValueError",
    ),
    ("with cpu { }", "ValueError"),
    ("g = ones(2, device=cuda); pin g", "ValueError"),
    // files
    ("load(\"/nonexistent/x.npy\")", "IOError"),
    ("load(\"/etc/hostname.npy\")", "IOError"),
    ("save(ones(2), \"/nonexistent/dir/x.npy\")", "IOError"),
    ("load(\"/etc/passwd\")", "ValueError"),
    ("load(3)", "TypeError"),
    ("load(\"\")", "IOError"),
    ("load(\"/\")", "IOError"),
    ("save(ones(2), \"/proc/x.npy\")", "IOError"),
    // bytes and shifts: sizes past what cudash makes, before the host is asked
    ("b = bytes(10 ** 12)", "MemoryError"),
    ("b = b\"ab\" * 10 ** 12", "MemoryError"),
    ("b = (1).to_bytes(10 ** 12, \"big\")", "MemoryError"),
    ("b = b\"\\xff\".decode()", "UnicodeDecodeError"),
    ("b = b\"a\" + \"b\"", "TypeError"),
    ("b = b\"\\xg1\"", "SyntaxError"),
    ("b = b\"é\"", "SyntaxError"),
    ("n = 1 << 64", "ValueError"),
    ("n = 1 << -1", "ValueError"),
    ("x = ones(2) << 1", "NotImplementedError"),
    // memory formats: a rank the format does not fit, preserve where a layout is asked
    (
        "import torch; x = empty(2, 3, memory_format=torch.channels_last)",
        "RuntimeError",
    ),
    (
        "import torch; x = ones(2, 3).to(memory_format=torch.channels_last_3d)",
        "RuntimeError",
    ),
    (
        "import torch; x = ones(1, 2, 3, 4).contiguous(memory_format=torch.preserve_format)",
        "RuntimeError",
    ),
    (
        "import torch; x = empty(10 ** 10, 10 ** 10, 1, 1, memory_format=torch.channels_last)",
        "ValueError",
    ),
    ("x = ones(2).is_contiguous(memory_format=3)", "TypeError"),
];

/// Input that nests or runs on without end: bounded with a clear error, never
/// a stack overflow, and a long line's report shows a window, not the line.
fn pathological() -> Vec<(String, &'static str)> {
    vec![
        (
            format!("x = {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
            "SyntaxError",
        ),
        (format!("x = {}1", "- ".repeat(100_000)), "SyntaxError"),
        (
            format!("x = ones(2){}", ".T".repeat(100_000)),
            "SyntaxError",
        ),
        (format!("x = 1{}", " + 1".repeat(100_000)), "SyntaxError"),
        (
            format!("{}{}", "for i in 0..1 {".repeat(1000), "}".repeat(1000)),
            "SyntaxError",
        ),
        (
            format!("{}{}", "{".repeat(100_000), "}".repeat(100_000)),
            "SyntaxError",
        ),
        (format!("x = [{}$]", "1, ".repeat(100_000)), "SyntaxError"),
        (format!("x = [{}nope]", "1, ".repeat(100_000)), "NameError"),
        (format!("x = \"{}", "a".repeat(1 << 20)), "SyntaxError"),
    ]
}

#[test]
fn deep_and_long_input_is_bounded_and_reported_briefly() {
    let mut s: Session = common::session();
    assert!(s.execute("keep = arange(4)").error.is_none());
    for (src, class) in pathological() {
        let o = s.execute(&src);
        let e = o
            .error
            .unwrap_or_else(|| panic!("{}… should fail", &src[..40]));
        assert_eq!(e.ename, class, "{}…: {}", &src[..40], e.evalue);
        assert!(
            e.report.len() < 4000,
            "{}…: a report of {} bytes",
            &src[..40],
            e.report.len()
        );
        assert_eq!(s.execute("keep").plain_text(), "[0, 1, 2, 3]  i64[4] @cpu");
    }
}

/// Files that claim to be `.npy` or `.safetensors` but are broken in every way
/// a download or a disk can break them.
#[test]
fn corrupt_files_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("cudash-corrupt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let npy = |header: &str, data: &[u8]| {
        let mut h = header.to_string();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend((h.len() as u16).to_le_bytes());
        b.extend(h.as_bytes());
        b.extend(data);
        b
    };
    let st = |header: &str, data: &[u8]| {
        let mut b = (header.len() as u64).to_le_bytes().to_vec();
        b.extend(header.as_bytes());
        b.extend(data);
        b
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty.npy", vec![]),
        ("magic.npy", b"\x93NUMPZ\x01\x00\x10\x00".to_vec()),
        ("version.npy", b"\x93NUMPY\x09\x00\x10\x00".to_vec()),
        ("cut.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr'".to_vec()),
        ("binary.npy", npy("\u{1}\u{2}", &[])),
        (
            "nodescr.npy",
            npy("{'fortran_order': False, 'shape': (2,), }", &[0; 8]),
        ),
        (
            "dtype.npy",
            npy(
                "{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }",
                &[0; 32],
            ),
        ),
        (
            "bigendian.npy",
            npy(
                "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                &[0; 8],
            ),
        ),
        (
            "shape.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }",
                &[0; 8],
            ),
        ),
        (
            "short.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                &[0; 8],
            ),
        ),
        (
            "huge.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                &[0; 8],
            ),
        ),
        (
            "overflow.npy",
            npy(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775807, 4), }",
                &[],
            ),
        ),
        ("empty.safetensors", vec![]),
        ("short.safetensors", vec![1, 2, 3]),
        ("hugeheader.safetensors", u64::MAX.to_le_bytes().to_vec()),
        ("notjson.safetensors", st("{nope", &[])),
        (
            "offsets.safetensors",
            st(
                r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
                &[0; 4],
            ),
        ),
        (
            "badshape.safetensors",
            st(
                r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
                &[0; 8],
            ),
        ),
        (
            "dtype.safetensors",
            st(
                r#"{"a":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}}"#,
                &[0; 8],
            ),
        ),
        (
            "overflow.safetensors",
            st(
                r#"{"a":{"dtype":"F32","shape":[4611686018427387904,8],"data_offsets":[0,8]}}"#,
                &[0; 8],
            ),
        ),
        (
            "random.safetensors",
            (0..4096u32)
                .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect(),
        ),
    ];
    let mut s: Session = common::session();
    assert!(s.execute("keep = arange(4)").error.is_none());
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let o = s.execute(&format!("t = load(\"{}\")", path.display()));
        let e = o.error.unwrap_or_else(|| panic!("{name} should not load"));
        assert_eq!(e.ename, "IOError", "{name}: {}", e.evalue);
        assert!(
            e.evalue.contains(name),
            "{name}: the message names the file: {}",
            e.evalue
        );
        assert!(e.report.contains('╭'), "{name}: no span: {}", e.report);
        assert_eq!(s.execute("keep").plain_text(), "[0, 1, 2, 3]  i64[4] @cpu");
        assert!(s.execute("t").error.is_some(), "{name}: `t` must not exist");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_bad_input_gets_a_diagnostic_and_the_session_goes_on() {
    assert!(CATALOGUE.len() >= 50);
    let mut s: Session = common::session();
    assert!(s.execute("keep = arange(4); also = 7").error.is_none());
    for &(src, class) in CATALOGUE {
        let o = s.execute(src);
        let e = o
            .error
            .unwrap_or_else(|| panic!("`{src}` should fail with {class}"));
        assert_eq!(e.ename, class, "`{src}`: {}", e.report);
        assert!(
            e.report.contains('╭') || e.report.contains("Error"),
            "`{src}` has no report: {}",
            e.report
        );
        assert_eq!(
            s.execute("keep").plain_text(),
            "[0, 1, 2, 3]  i64[4] @cpu",
            "after `{src}`"
        );
        assert_eq!(s.execute("also").plain_text(), "7", "after `{src}`");
    }
}
