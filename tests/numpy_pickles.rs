//! NumPy arrays in pickles (tests/fixtures/numpy_pickle, written by
//! scripts/numpy_fixtures.py with Python and NumPy): read by `pickle.load`
//! at protocols 2, 4 and 5 and by `torch.load(weights_only=False)` as
//! Python gives them, refused by PyTorch's safe load as PyTorch refuses
//! them, written back so that Python reads them; Python 2's strings read
//! as `encoding=` says; and CIFAR-10 (a small one in the real one's
//! layout and format) through torchvision's `CIFAR10`, its `.tar.gz`
//! unpacked, each line as torchvision 0.29 printed it for the same files.

mod common;

use std::path::PathBuf;

fn fixtures() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/numpy_pickle")
        .display()
        .to_string()
}

/// What Python 3.11 and NumPy 2 printed of each fixture's arrays (a line
/// per protocol; `|` for a newline of a repr).
const ARRAYS: &str = "f64=array([[0.        , 0.14285714, 0.28571429],|       [0.42857143, 0.57142857, 0.71428571]]) f32=array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32) f16=array([ 5.00e-01, -2.00e+00,  6.55e+04], dtype=float16) u8=array([250, 251, 252, 253, 254, 255], dtype=uint8) i64=array([           -3, 1099511627776]) i32=array([[-1,  7]], dtype=int32) bool=array([ True, False]) fortran=array([[0, 1, 2],|       [3, 4, 5]]) u16=array([    1, 65535], dtype=uint16) empty=array([], shape=(0, 3), dtype=float32) zero_d=array(3.) scalar=2.5 labels=[1, 2, 3] name='x'";

#[test]
fn arrays_python_pickled_read_as_python_gives_them_at_every_protocol() {
    let src = format!(
        "import pickle\nimport numpy as np\n\
         for proto in (2, 4, 5):\n\
         \x20   with open(f\"{}/arrays_protocol{{proto}}.pkl\", \"rb\") as f:\n\
         \x20       d = pickle.load(f)\n\
         \x20   # NumPy keeps a big-endian dtype at protocol 5; cudash's arrays are native.\n\
         \x20   print(d['big_endian'].tolist(), d['fortran'][1].tolist())\n\
         \x20   d['scalar'] = float(d['scalar'])\n\
         \x20   print(\" \".join(f\"{{k}}={{v!r}}\" for k, v in d.items() if k != 'big_endian').replace(\"\\n\", \"|\"))\n",
        fixtures()
    );
    let lines = common::script_lines_on(0, "np_pickles", &src);
    assert_eq!(lines.len(), 6, "{lines:?}");
    for pair in lines.chunks(2) {
        assert_eq!(pair[0], "[1.5, 2.5] [3, 4, 5]");
        assert_eq!(pair[1], ARRAYS);
    }
}

#[test]
fn torch_load_refuses_an_array_unless_weights_only_is_false() {
    let src = format!(
        "import torch\nimport numpy as np\n\
         x = torch.load(\"{0}/array.pt\", weights_only=False)\n\
         print(type(x).__name__, x.dtype, x.shape, np.allclose(x, np.sin(np.arange(4.0))))\n\
         try:\n\
         \x20   torch.load(\"{0}/array.pt\")\n\
         except Exception as e:\n\
         \x20   print(str(e))\n",
        fixtures()
    );
    let lines = common::script_lines_on(0, "np_torch_load", &src);
    assert_eq!(lines[0], "ndarray float64 (4,) True");
    assert!(
        lines[1].contains("Unsupported global: GLOBAL numpy._core.multiarray._reconstruct was not an allowed global by default")
            && lines[1].contains("weights_only=False"),
        "{}",
        lines[1]
    );
}

#[test]
fn arrays_cudash_pickles_and_saves_read_back_the_same() {
    let src = "import pickle\nimport torch\nimport numpy as np\n\
        a = {'x': np.arange(6, dtype=np.float32).reshape(2, 3).T, 'u': np.array([7, 65535], dtype=np.uint16),\n\
        \x20    'b': np.zeros(3, dtype=bool), 'i': np.array([[1, -2]]), 'e': np.zeros((0, 2))}\n\
        with open('a.pkl', 'wb') as f:\n\
        \x20   pickle.dump(a, f)\n\
        with open('a.pkl', 'rb') as f:\n\
        \x20   b = pickle.load(f)\n\
        torch.save({'arr': a['x'], 't': torch.ones(2)}, 'a.pt')\n\
        c = torch.load('a.pt', weights_only=False)\n\
        for k in a:\n\
        \x20   print(k, b[k].dtype, b[k].shape, np.array_equal(a[k], b[k]))\n\
        print(repr(c['arr']), c['t'].tolist())\n";
    let lines = common::script_lines_on(0, "np_round_trip", src);
    assert_eq!(
        lines,
        [
            "x float32 (3, 2) True",
            "u uint16 (2,) True",
            "b bool (3,) True",
            "i int64 (1, 2) True",
            "e float64 (0, 2) True",
            "array([[0., 3.],",
            "       [1., 4.],",
            "       [2., 5.]], dtype=float32) [1.0, 1.0]",
        ]
    );
}

#[test]
fn python_2_strings_read_as_the_encoding_says() {
    let src = format!(
        "import pickle\n\
         path = \"{}/cifar-10-batches-py/data_batch_1\"\n\
         for enc in ('latin1', 'ASCII', 'bytes'):\n\
         \x20   try:\n\
         \x20       with open(path, 'rb') as f:\n\
         \x20           d = pickle.load(f, encoding=enc)\n\
         \x20       print(enc, sorted(d), d['batch_label'], d['data'].dtype, d['data'].shape)\n\
         \x20   except Exception as e:\n\
         \x20       print(enc, str(e).split(': ', 1)[1][:60])\n",
        fixtures()
    );
    let lines = common::script_lines_on(0, "np_py2", &src);
    assert_eq!(
        lines[0],
        "latin1 ['batch_label', 'data', 'filenames', 'labels'] training batch 1 of 5 uint8 (2, 3072)"
    );
    assert!(
        lines[1].starts_with("ASCII UnicodeDecodeError: 'ascii' codec can't decode byte"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("bytes the file holds bytes"),
        "{}",
        lines[2]
    );
}

/// An instance of the program's class, as Python's pickle reads one: the
/// class must be defined (pickle keeps its name, not its code), and
/// nothing of it runs (no `__init__`); its attributes are the file's.
#[test]
fn a_pickle_of_a_class_needs_the_class_and_runs_none_of_it() {
    // `pickle.dumps(Net())` of a class `Net` in `__main__` whose instance
    // has `n = 3`, protocol 2 (written here: cudash has no bytes literals).
    let dir = std::env::temp_dir().join(format!("cudash-np-class-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("obj.pkl");
    std::fs::write(
        &file,
        b"\x80\x02c__main__\nNet\nq\x00)\x81q\x01}q\x02X\x01\x00\x00\x00nq\x03K\x03sb.",
    )
    .unwrap();
    let load = format!(
        "import pickle\nwith open(\"{}\", 'rb') as f:\n    obj = pickle.load(f)\nprint(type(obj).__name__, obj.n)\n",
        file.display()
    );
    let (out, err, ok) = common::script_streams("np_class", &load);
    assert!(!ok && out.is_empty());
    assert!(
        err.contains("Can't get attribute 'Net' on <module '__main__'>"),
        "{err}"
    );
    let defined =
        format!("class Net:\n    def __init__(self):\n        raise RuntimeError('ran')\n{load}");
    let (out, err, ok) = common::script_streams("np_class", &defined);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(ok, "{err}");
    assert_eq!(out, "Net 3\n");
}

/// What torchvision 0.29 printed for the same files (its `Tiny(CIFAR10)`
/// without MD5s: the fixture's pictures are not CIFAR-10's), tensors as
/// lists.
#[test]
fn cifar10_unpacks_its_download_and_gives_torchvisions_samples() {
    let root = std::env::temp_dir().join(format!("cudash-cifar-root-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::copy(
        format!("{}/cifar-10-python.tar.gz", fixtures()),
        root.join("cifar-10-python.tar.gz"),
    )
    .unwrap();
    let src = format!(
        "import torch\nimport torchvision.transforms as transforms\nfrom torchvision.datasets import CIFAR10\n\
         root = \"{}\"\n\
         class Tiny(CIFAR10):\n\
         \x20   train_list = [[f'data_batch_{{i}}', None] for i in range(1, 6)]\n\
         \x20   test_list = [['test_batch', None]]\n\
         \x20   meta = {{'filename': 'batches.meta', 'key': 'label_names', 'md5': None}}\n\
         \x20   tgz_md5 = None\n\
         train = Tiny(root, train=True, download=True, transform=transforms.ToTensor())\n\
         norm = transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))\n\
         test = Tiny(root, train=False, transform=transforms.Compose([transforms.ToTensor(), norm]))\n\
         print(len(train), len(test), train.classes, train.class_to_idx['cat'])\n\
         print(train.data.shape, train.data.dtype, train.targets)\n\
         x, y = train[3]\n\
         print(x.shape, x.dtype, y, x[0, 0, :4].tolist(), x.sum().item())\n\
         img, _ = Tiny(root, train=False)[1]\n\
         print(type(img).__name__, img.size, img.mode)\n\
         for xb, yb in torch.utils.data.DataLoader(test, batch_size=2):\n\
         \x20   print(xb.shape, yb.tolist(), xb.mean().item())\n",
        root.display()
    );
    let lines = common::script_lines_on(0, "cifar", &src);
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(
        lines,
        [
            "10 2 ['airplane', 'automobile', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck'] 3",
            "(10, 32, 32, 3) uint8 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]",
            "torch.Size([3, 32, 32]) torch.float32 3 [0.1411764770746231, 0.16862745583057404, 0.19607843458652496, 0.2235294133424759] 1536.0001220703125",
            "Image (32, 32) RGB",
            "torch.Size([2, 3, 32, 32]) [0, 1] 1.1253480813877559e-08",
        ]
    );
}

/// Python and NumPy read what cudash pickles: `pickle.dump`'s file, and the
/// pickle inside `torch.save`'s archive (read with `zipfile`: an array
/// needs no storage). `scripts/test` provides a Python with NumPy in
/// `CUDASH_TEST_PYTHON`; a plain `cargo test` without it says so and skips.
#[test]
fn python_reads_the_arrays_cudash_pickles() {
    let Some(python) = std::env::var_os("CUDASH_TEST_PYTHON") else {
        eprintln!(
            "skipped: set CUDASH_TEST_PYTHON to a Python with NumPy (bash scripts/test does)"
        );
        return;
    };
    let dir = std::env::temp_dir().join(format!("cudash-np-to-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = format!(
        "import pickle\nimport torch\nimport numpy as np\n\
         a = {{'f32': np.arange(6, dtype=np.float32).reshape(2, 3).T / 3, 'u16': np.array([7, 65535], dtype=np.uint16),\n\
         \x20    'u8': np.arange(253, 256, dtype=np.uint8), 'b': np.array([True, False]), 'i': np.array([[1, -2]]),\n\
         \x20    'f16': np.array([0.5, -1.0], dtype=np.float16), 'e': np.zeros((0, 2)), 'n': 3}}\n\
         with open(\"{0}/a.pkl\", 'wb') as f:\n\
         \x20   pickle.dump(a, f)\n\
         torch.save(a, \"{0}/a.pt\")\n",
        dir.display()
    );
    common::script_lines_on(0, "np_to_python", &src);
    let check = format!(
        "import pickle, zipfile\nimport numpy as np\n\
         a = pickle.load(open('{0}/a.pkl', 'rb'))\n\
         b = pickle.loads(zipfile.ZipFile('{0}/a.pt').read('a/data.pkl'))\n\
         for d in (a, b):\n\
         \x20   print(' '.join(f'{{k}}={{v.dtype}}{{v.shape}}:{{v.tolist()}}' if k != 'n' else f'n={{v}}' for k, v in d.items()))\n",
        dir.display()
    );
    let out = std::process::Command::new(python)
        .args(["-c", &check])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = "f32=float32(3, 2):[[0.0, 1.0], [0.3333333432674408, 1.3333333730697632], [0.6666666865348816, 1.6666666269302368]] u16=uint16(2,):[7, 65535] u8=uint8(3,):[253, 254, 255] b=bool(2,):[True, False] i=int64(1, 2):[[1, -2]] f16=float16(2,):[0.5, -1.0] e=float64(0, 2):[] n=3";
    assert_eq!(stdout.lines().collect::<Vec<_>>(), [want, want]);
}
