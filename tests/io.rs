//! `save` and `load`: round trips, files NumPy reads, and corrupt files.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("cudash-io-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn path(name: &str) -> String {
    dir().join(name).display().to_string()
}

#[test]
fn round_trips_keep_dtype_shape_and_values() {
    for ext in ["npy", "safetensors"] {
        for dt in ["bool", "u8", "i32", "i64", "f16", "f32", "f64", "bf16"] {
            if ext == "npy" && dt == "bf16" {
                continue;
            }
            let p = path(&format!("rt-{dt}.{ext}"));
            let src = format!(
                "seed(1)\nx = (randn(3, 4) * 10).to({dt})\nsave(x, \"{p}\")\ny = load(\"{p}\")\n[(y == x).sum().item() == 12, y.dtype == x.dtype, y.shape == x.shape]"
            );
            assert_eq!(
                common::ok(&src),
                "[true, true, true]  bool[3] @cpu",
                "{ext} {dt}"
            );
        }
    }
}

#[test]
fn load_onto_a_device_and_save_from_one() {
    let p = path("dev.npy");
    let out = common::ok(&format!("x = arange(6, device=cuda:1).reshape(2, 3)\nsave(x, \"{p}\")\nload(\"{p}\", device=cuda:0)"));
    assert_eq!(out, "[[0, 1, 2],\n [3, 4, 5]]\ni64[2,3] @cuda:0");
    let p = path("t.npy");
    assert_eq!(
        common::ok(&format!(
            "save(arange(4).reshape(2, 2).T, \"{p}\")\nload(\"{p}\")"
        )),
        "[[0, 2],\n [1, 3]]\ni64[2,2] @cpu"
    );
}

#[test]
fn bad_files_are_clear_errors() {
    let bad = path("bad.npy");
    std::fs::write(
        &bad,
        b"\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'shape': (4,)}  \n\x00\x00",
    )
    .unwrap();
    let (class, msg) = common::err(&format!("load(\"{bad}\")"));
    assert_eq!(class, "IOError");
    assert!(
        msg.contains("fortran_order") || msg.contains("bytes"),
        "{msg}"
    );
    let junk = path("junk.npy");
    std::fs::write(&junk, b"hello").unwrap();
    let (_, msg) = common::err(&format!("load(\"{junk}\")"));
    assert!(msg.contains("not a .npy file"), "{msg}");
    let short = path("short.npy");
    let full = path("full.npy");
    common::ok(&format!("save(ones(100), \"{full}\")"));
    let bytes = std::fs::read(&full).unwrap();
    std::fs::write(&short, &bytes[..bytes.len() - 10]).unwrap();
    let (_, msg) = common::err(&format!("load(\"{short}\")"));
    assert!(msg.contains("needs 400"), "{msg}");
    let st = path("junk.safetensors");
    std::fs::write(&st, b"\xff\xff\xff\xff\xff\xff\xff\xff{").unwrap();
    let (_, msg) = common::err(&format!("load(\"{st}\")"));
    assert!(msg.contains("not a valid .safetensors file"), "{msg}");
    let (_, msg) = common::err("load(\"/nonexistent/x.npy\")");
    assert!(msg.contains("cannot read `/nonexistent/x.npy`"), "{msg}");
    let (_, msg) = common::err(&format!("save(ones(2), \"{}\")", path("x.txt")));
    assert!(msg.contains("cannot tell the format"), "{msg}");
    let (_, msg) = common::err(&format!("save(ones(2, dtype=bf16), \"{}\")", path("b.npy")));
    assert!(msg.contains("no bf16"), "{msg}");
}

/// NumPy itself reads what cudash writes. `scripts/test` provides a Python with
/// NumPy in `CUDASH_TEST_PYTHON`; a plain `cargo test` without it says so and skips.
#[test]
fn numpy_reads_our_npy_files() {
    let Some(python) = std::env::var_os("CUDASH_TEST_PYTHON") else {
        eprintln!(
            "skipped: set CUDASH_TEST_PYTHON to a Python with NumPy (bash scripts/test does)"
        );
        return;
    };
    let cases = [
        (
            "f32",
            "arange(12).to(f32).reshape(3, 4) / 4",
            "float32",
            "(3, 4)",
            "sum=16.5",
        ),
        ("f16", "arange(6).to(f16) / 2", "float16", "(6,)", "sum=7.5"),
        (
            "f64",
            "linspace(0, 1, 5).to(f64)",
            "float64",
            "(5,)",
            "sum=2.5",
        ),
        (
            "i64",
            "arange(10).reshape(2, 5).T",
            "int64",
            "(5, 2)",
            "sum=45.0",
        ),
        (
            "i32",
            "tensor([[1, -2, 3]], dtype=i32)",
            "int32",
            "(1, 3)",
            "sum=2.0",
        ),
        ("bool", "arange(4) > 1", "bool", "(4,)", "sum=2.0"),
        (
            "u8",
            "tensor([1, 2, 255]).to(u8)",
            "uint8",
            "(3,)",
            "sum=258.0",
        ),
        ("scalar", "tensor(7.)", "float32", "()", "sum=7.0"),
    ];
    for (name, expr, dtype, shape, sum) in cases {
        let p = path(&format!("np-{name}.npy"));
        common::ok(&format!("save({expr}, \"{p}\")"));
        let out = Command::new(&python)
            .args([
                "-c",
                "import sys, numpy as np; a = np.load(sys.argv[1]); print(a.dtype, a.shape, 'sum=%s' % float(a.sum()))",
                &p,
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(
            out.status.success(),
            "numpy failed on {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(text, format!("{dtype} {shape} {sum}"), "{name}");
    }
    // And cudash reads what NumPy writes, including Fortran order.
    let p = path("from-numpy.npy");
    let st = Command::new(&python)
        .args(["-c", "import sys, numpy as np; np.save(sys.argv[1], np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))", &p])
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(
        common::ok(&format!("load(\"{p}\")")),
        "[[0., 1., 2.],\n [3., 4., 5.]]\nf64[2,3] @cpu"
    );
}
