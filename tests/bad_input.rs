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
    ("1 < 2 < 3", "SyntaxError"),
    ("stream { }", "SyntaxError"),
    ("time 3", "SyntaxError"),
    ("x = 1\u{0}", "SyntaxError"),
    ("x = 1\u{1b}[31m", "SyntaxError"),
    ("}", "SyntaxError"),
    // names
    ("randm(2)", "NameError"),
    ("nope + 1", "NameError"),
    ("del nope", "NameError"),
    ("help nonsense", "NameError"),
    ("ones(2).nope", "AttributeError"),
    ("ones(2).resahpe(2)", "AttributeError"),
    ("cpu.index", "AttributeError"),
    // arguments
    ("zeros(2, dtyp=f16)", "TypeError"),
    ("exp(ones(2), 3)", "TypeError"),
    ("full([2])", "TypeError"),
    ("zeros(2, dtype=cpu)", "TypeError"),
    ("zeros(\"2\")", "TypeError"),
    ("ones(2).to(3)", "TypeError"),
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
    ("ones(2).sum(dim=2)", "ValueError"),
    ("ones(2)[::0]", "ValueError"),
    ("ones(2)[::-1]", "ValueError"),
    ("zeros(-1)", "ValueError"),
    ("zeros(1e20)", "ValueError"),
    ("zeros(4294967296, 4294967296, 4294967296)", "ValueError"),
    ("zeros(1000000, 1000000)", "ValueError"),
    ("arange(0, 10, 0)", "ValueError"),
    ("arange(1e300)", "ValueError"),
    ("ones(3).item()", "ValueError"),
    ("1 / 0", "ValueError"),
    ("9223372036854775807 + 1", "ValueError"),
    ("-9223372036854775807 - 2", "ValueError"),
    ("2 ** 64", "ValueError"),
    ("time 0 { }", "ValueError"),
    ("memory_stats()[\"nope\"]", "ValueError"),
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
];

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
