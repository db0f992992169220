//! Python's modules of files: `pathlib` (a path wherever a str path goes:
//! `open`, `os.path`, `shutil`), `gzip.open` for `pickle` (the gzipped
//! MNIST pickle of PyTorch's "What is torch.nn really?", NumPy arrays
//! read with `encoding="latin-1"`), and `shutil`'s copies, moves and
//! removals: every line of tests/fixtures/python_files/paths_and_gzip.py
//! as Python 3.11 with NumPy printed it (paths_and_gzip.out).

mod common;

#[test]
fn paths_gzip_pickles_and_shutil_print_what_python_printed() {
    let src = include_str!("fixtures/python_files/paths_and_gzip.py");
    let want: Vec<&str> = include_str!("fixtures/python_files/paths_and_gzip.out")
        .lines()
        .collect();
    let got = common::script_lines_on(0, "paths_and_gzip", src);
    assert_eq!(got, want);
}

#[test]
fn a_gzip_file_python_wrote_reads_and_a_bad_one_says_so() {
    let dir = std::env::temp_dir().join(format!("cudash-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // `gzip.open(p, "wt").write("a\nb\n")` in Python (mtime 0).
    let gz: &[u8] = &[
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x4b, 0xe4, 0x4a, 0xe2, 0x02,
        0x00, 0x97, 0x2a, 0x57, 0x18, 0x04, 0x00, 0x00, 0x00,
    ];
    std::fs::write(dir.join("t.gz"), gz).unwrap();
    std::fs::write(dir.join("plain.pkl"), b"not gzip").unwrap();
    let src = format!(
        "import gzip, pickle\n\
         with gzip.open(\"{0}/t.gz\", \"rt\") as f:\n    print(f.read().split())\n\
         try:\n    pickle.load(gzip.open(\"{0}/plain.pkl\"))\nexcept Exception as e:\n    print('Not a gzipped file' in str(e))\n",
        dir.display()
    );
    let lines = common::script_lines_on(0, "gz_read", &src);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(lines, ["['a', 'b']", "True"]);
}
