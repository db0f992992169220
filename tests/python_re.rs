//! Python's `re` (stdlib/re.py over python_re.rs): every line of
//! tests/fixtures/python_re/re_cases.py as CPython 3.11 printed it
//! (re_cases.out, written by `python3 re_cases.py`): findall's three
//! shapes, Python 3.7's rule for empty matches, split with groups,
//! Match's API, sub's templates and functions, flags, look-around,
//! back-references, Unicode positions, `$` before a final newline, and
//! `re.error`. And the third-party `regex`'s `\p{L}` classes, as minGPT's
//! GPT-2 tokenizer uses them.

mod common;

#[test]
fn every_case_prints_what_cpython_printed() {
    let src = include_str!("fixtures/python_re/re_cases.py");
    let want = include_str!("fixtures/python_re/re_cases.out");
    let got = common::script_lines_on(0, "re_cases", src);
    let want: Vec<&str> = want.lines().collect();
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
}

#[test]
fn the_gpt2_pattern_splits_text_as_the_regex_module_does() {
    // As `regex` 2026.x printed it for the same text.
    let src = "import regex as re\n\
        pat = re.compile(r\"\"\"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+\"\"\")\n\
        print(re.findall(pat, \"Hello world's 123 tökens!!  ok  \\n\"))\n";
    assert_eq!(
        common::script_lines_on(0, "re_gpt2", src),
        ["['Hello', ' world', \"'s\", ' 123', ' tökens', '!!', ' ', ' ok', '  \\n']"]
    );
}

#[test]
fn a_pattern_that_does_not_compile_is_re_error_and_the_program_goes_on() {
    let src = "import re\n\
        try:\n    re.compile('a(?P<x>b')\nexcept re.error as e:\n    print(type(e).__name__, isinstance(e, Exception))\n\
        print(re.sub('b', 'c', 'abc'))\n";
    assert_eq!(
        common::script_lines_on(0, "re_error", src),
        ["error True", "acc"]
    );
}
