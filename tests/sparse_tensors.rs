//! Sparse COO tensors (`torch.sparse_coo_tensor`, `x.to_sparse()`), as
//! PyTorch's graph examples use them: each program's lines are what
//! PyTorch 2.15 printed for it, on the cpu; on simulated GPUs and on `emu`
//! the tensors keep their device and allocator blocks. Also NumPy's tables
//! of strings (`np.genfromtxt`, `np.unique`) and `requests.get` of an
//! archive, the examples' other reach.

mod common;

use common::{script_lines_on, script_streams};

/// PyTorch's sparse COO tensors: properties, products with their
/// gradients, sums, coalescing, conversions and errors (each line as
/// PyTorch printed it).
#[test]
fn sparse_tensors_as_pytorch() {
    let out = script_lines_on(
        0,
        "sparse",
        r#"import torch
i = torch.tensor([[0, 1, 1], [2, 0, 2]])
s = torch.sparse_coo_tensor(i, torch.tensor([3., 4., 5.]), (2, 3), check_invariants=True)
print(s.layout, torch.ones(2).layout, s.layout == torch.sparse_coo, s.is_sparse, s._nnz(), s.is_coalesced())
print(s.shape, s.size(1), s.dtype, s.device, s.dim(), s.sparse_dim(), s.dense_dim(), type(s), isinstance(s, torch.Tensor), torch.is_tensor(s))
print(s.to_dense().tolist(), s.requires_grad, s.grad_fn, s.type())
d = torch.ones(3, 2)
print((s @ d).tolist(), torch.mm(s, d).tolist(), torch.spmm(s, d).tolist(), torch.sparse.mm(s, d).tolist(), s.mm(d).tolist())
print((torch.eye(2) + torch.sparse_coo_tensor([[0, 1], [1, 0]], [1, 1], (2, 2), check_invariants=True)).tolist())
w = torch.ones(3, 2, requires_grad=True)
out = torch.mm(s, w)
print(out.grad_fn.name(), torch.sparse.mm(s, w).grad_fn.name(), (torch.ones(2, 3, requires_grad=True) + s).grad_fn.name())
out.sum().backward()
print(w.grad.tolist())
x = torch.arange(8.).reshape(4, 2).requires_grad_()
y = x @ s
print(y.tolist(), y.grad_fn.name())
y.pow(2).sum().backward()
print(x.grad.tolist())
print(s.t().to_dense().tolist(), s.t().is_coalesced(), s.t().shape)
print(torch.sum(s).item(), torch.sum(s, dim=1).to_dense().tolist(), torch.sparse.sum(s, dim=0).to_dense().tolist(), s.sum(1).is_sparse)
print((s * 2)._values().tolist(), (2 * s)._values().tolist(), (-s)._values().tolist(), (s / 2)._values().tolist())
print((s + s).to_dense().tolist(), (s + s)._nnz(), (s - s).to_dense().tolist())
c = s.coalesce()
print(c.indices().tolist(), c.values().tolist(), c.is_coalesced())
dup = torch.sparse_coo_tensor(torch.tensor([[1, 0, 1]]), torch.tensor([1., 2., 3.]), (3,), check_invariants=True)
print(dup.coalesce().indices().tolist(), dup.coalesce().values().tolist(), dup.to_dense().tolist(), dup._nnz())
e = torch.diag(torch.tensor([1.5, 0., 2.])).to_sparse()
print(e.indices().tolist(), e.values().tolist(), e.is_coalesced(), torch.zeros(2, 3).to_sparse()._nnz())
print(s.double().dtype, s.to(torch.float64).dtype, s.long()._values().tolist(), (s * torch.full((2, 3), 2.))._values().tolist())
print(torch.sparse_coo_tensor([[0, 2], [1, 0]], [7, 8], check_invariants=True).shape)
for f in [lambda: s + torch.ones(2, 3), lambda: s.values(), lambda: s.indices(),
          lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1., 2., 3.]), (3,), check_invariants=True),
          lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1., 2.]), (2,), check_invariants=True),
          lambda: torch.sparse_coo_tensor(torch.tensor([[0, 5]]), torch.tensor([1., 2.]), (3,), check_invariants=True),
          lambda: s.nbytes]:
    try:
        f()
    except RuntimeError as err:
        print("RuntimeError:", err)
"#,
    );
    assert_eq!(
        out,
        [
            r#"torch.sparse_coo torch.strided True True 3 False"#,
            r#"torch.Size([2, 3]) 3 torch.float32 cpu 2 2 0 <class 'torch.Tensor'> True True"#,
            r#"[[0.0, 0.0, 3.0], [4.0, 0.0, 5.0]] False None torch.sparse.FloatTensor"#,
            r#"[[3.0, 3.0], [9.0, 9.0]] [[3.0, 3.0], [9.0, 9.0]] [[3.0, 3.0], [9.0, 9.0]] [[3.0, 3.0], [9.0, 9.0]] [[3.0, 3.0], [9.0, 9.0]]"#,
            r#"[[1.0, 1.0], [1.0, 1.0]]"#,
            r#"MmBackward0 SparseAddmmBackward0 AddBackward0"#,
            r#"[[4.0, 4.0], [0.0, 0.0], [8.0, 8.0]]"#,
            r#"[[4.0, 0.0, 5.0], [12.0, 0.0, 21.0], [20.0, 0.0, 37.0], [28.0, 0.0, 53.0]] MmBackward0"#,
            r#"[[30.0, 82.0], [126.0, 306.0], [222.0, 530.0], [318.0, 754.0]]"#,
            r#"[[0.0, 4.0], [0.0, 0.0], [3.0, 5.0]] False torch.Size([3, 2])"#,
            r#"12.0 [3.0, 9.0] [4.0, 0.0, 8.0] True"#,
            r#"[6.0, 8.0, 10.0] [6.0, 8.0, 10.0] [-3.0, -4.0, -5.0] [1.5, 2.0, 2.5]"#,
            r#"[[0.0, 0.0, 6.0], [8.0, 0.0, 10.0]] 3 [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"#,
            r#"[[0, 1, 1], [2, 0, 2]] [3.0, 4.0, 5.0] True"#,
            r#"[[0, 1]] [2.0, 4.0] [2.0, 4.0, 0.0] 3"#,
            r#"[[0, 2], [0, 2]] [1.5, 2.0] True 0"#,
            r#"torch.float64 torch.float64 [3, 4, 5] [6.0, 8.0, 10.0]"#,
            r#"torch.Size([3, 2])"#,
            r#"RuntimeError: add(sparse, dense) is not supported. Use add(dense, sparse) instead."#,
            r#"RuntimeError: Cannot get values on an uncoalesced tensor, please call .coalesce() first"#,
            r#"RuntimeError: Cannot get indices on an uncoalesced tensor, please call .coalesce() first"#,
            r#"RuntimeError: indices and values must have same nnz, but got nnz from indices: 2, nnz from values: 3"#,
            r#"RuntimeError: 'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 1, sparse_dim = 2, dense_dim = 0"#,
            r#"RuntimeError: size is inconsistent with indices: for dim 0, size is 3 but found index 5"#,
            r#"RuntimeError: nbytes is not defined for sparse tensors.  If you want the size of the constituent tensors, add the nbytes of the indices and values.  If you want the size of the  equivalent dense tensor, multiply numel() by element_size()"#,
        ]
    );
}

/// What a Python program prints of a sparse tensor: PyTorch's repr, its
/// indices and values as tensors, then its size, nnz and layout (PyTorch
/// 2.15's lines for this program). PyTorch's warning about unchecked
/// invariants comes once a session, as `TORCH_WARN_ONCE` gives it.
#[test]
fn a_sparse_tensor_shows_its_indices_values_and_tag() {
    let (out, err, ok) = script_streams(
        "sparse_show",
        "import torch
s = torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))
print(s)
t = torch.sparse_coo_tensor([[1, 0]], [1, 2], (4,))
print(t)
print(torch.zeros(2, 2).to_sparse())
",
    );
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "tensor(indices=tensor([[0, 1, 1],
                       [2, 0, 2]]),
       values=tensor([3., 4., 5.]),
       size=(2, 3), nnz=3, layout=torch.sparse_coo)
tensor(indices=tensor([[1, 0]]),
       values=tensor([1, 2]),
       size=(4,), nnz=2, layout=torch.sparse_coo)
tensor(indices=tensor([], size=(2, 0)),
       values=tensor([], size=(0,)),
       size=(2, 2), nnz=0, layout=torch.sparse_coo)
"
    );
    // A cell of cudash's language shows the values and the tag.
    let cell = common::ok("sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))");
    assert!(cell.ends_with("f32[2,3] @cpu sparse_coo nnz=3"), "{cell}");
    let warning = "UserWarning: Sparse invariant checks are implicitly disabled.";
    assert_eq!(err.matches(warning).count(), 1, "{err}");
}

/// On a GPU (simulated and `emu`) a sparse tensor's indices and values
/// are two blocks of the device's allocator (512 bytes each, as PyTorch's
/// rounding gives), its products and sums stay there, and their
/// gradients reach the dense operand there.
#[test]
fn sparse_tensors_stay_on_their_gpu() {
    let src = r#"import torch
i = torch.tensor([[0, 1, 1], [2, 0, 2]])
before = torch.cuda.memory_allocated()
s = torch.sparse_coo_tensor(i, torch.tensor([3., 4., 5.]), (2, 3), device='cuda', check_invariants=True)
print(s.device, s._indices().device, s._values().device, torch.cuda.memory_allocated() - before)
w = torch.ones(3, 2, device='cuda', requires_grad=True)
y = s @ w
print(y.device, y.grad_fn.name(), y.tolist())
y.sum().backward()
print(w.grad.device, w.grad.tolist())
a = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1., 1.], (2, 2), check_invariants=True).cuda()
d = torch.eye(2, device='cuda') + a
print(d.device, d.tolist(), a.device)
c = s.coalesce()
print(c.is_coalesced(), c.indices().device, c.values().tolist(), c.to('cpu').device, s.cpu()._values().device)
x = torch.tensor([[0., 2.], [3., 0.]], device='cuda').to_sparse()
print(x.device, x.indices().tolist(), x.values().tolist(), (x @ torch.eye(2, device='cuda')).tolist())
try:
    s @ torch.ones(3, 2)
except RuntimeError as e:
    print("RuntimeError:", e)
"#;
    let want = [
        r#"cuda:0 cuda:0 cuda:0 1024"#,
        r#"cuda:0 MmBackward0 [[3.0, 3.0], [9.0, 9.0]]"#,
        r#"cuda:0 [[4.0, 4.0], [0.0, 0.0], [8.0, 8.0]]"#,
        r#"cuda:0 [[1.0, 1.0], [1.0, 1.0]] cuda:0"#,
        r#"True cuda:0 [3.0, 4.0, 5.0] cpu cpu"#,
        r#"cuda:0 [[0, 1], [1, 0]] [2.0, 3.0] [[0.0, 2.0], [3.0, 0.0]]"#,
        r#"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"#,
    ];
    assert_eq!(script_lines_on(2, "sparse_gpu", src), want);
    assert_eq!(common::script_lines_on_emu("sparse_emu", src), want);
}

/// NumPy's tables as the graph examples read Cora (`np.genfromtxt` with
/// `dtype=str`, string arrays sliced and converted, `np.unique` with
/// `return_inverse`), each line as NumPy 2 printed it. (NumPy's elements
/// are `np.str_`, shown `np.str_('a')` in a list; cudash's are `str`.)
#[test]
fn numpy_string_tables_as_numpy() {
    let out = script_lines_on(
        0,
        "np_strings",
        r#"import numpy as np
with open('cora.content', 'w') as f:
    f.write('31336\t0\t1\t0\tNeural_Networks\n1061127\t1\t0\t0\tRule_Learning\n# a comment\n\n1106406\t0\t0\t1\tNeural_Networks\n')
with open('cora.cites', 'w') as f:
    f.write('31336\t1061127\n1106406\t31336\n')
c = np.genfromtxt('cora.content', dtype=np.dtype(str))
print(repr(np.dtype(str)), c.dtype, c.shape, c.ndim)
print(repr(c[:2, :3]))
print(c[0, 0], c[0, -1], c[:, -1].tolist())
classes, labels = np.unique(c[:, -1], return_inverse=True)
print(repr(classes), repr(labels), labels.dtype)
print(repr(c[:, 1:-1].astype(np.int32)), repr(c[:, 0].astype(np.int64)), c[:, 1:-1].astype(np.float32).sum())
x = np.genfromtxt('cora.cites', dtype=np.int32)
print(x.dtype, x.shape, repr(x), [[int(e[0]), int(e[1])] for e in x])
print(repr(np.loadtxt('cora.cites')), repr(np.loadtxt('cora.cites', usecols=1, dtype=int)))
print(np.unique(np.array([3, 1, 3, 2]), return_inverse=True), np.unique(np.array([3, 1, 3, 2]), return_counts=True, return_index=True))
a = np.array(['a', 'bb', 'a'])
print(repr(a), a.dtype, (a == 'a').tolist(), (a != 'a').sum(), repr(np.array([1, 22]).astype(str)))
print(repr(np.array([['x', 'yy'], ['zzz', 'w']]).T), len(a), [str(v) for v in a])
"#,
    );
    assert_eq!(
        out,
        [
            r#"dtype('<U') <U15 (3, 5) 2"#,
            r#"array([['31336', '0', '1'],"#,
            r#"       ['1061127', '1', '0']], dtype='<U15')"#,
            r#"31336 Neural_Networks ['Neural_Networks', 'Rule_Learning', 'Neural_Networks']"#,
            r#"array(['Neural_Networks', 'Rule_Learning'], dtype='<U15') array([0, 1, 0]) int64"#,
            r#"array([[0, 1, 0],"#,
            r#"       [1, 0, 0],"#,
            r#"       [0, 0, 1]], dtype=int32) array([  31336, 1061127, 1106406]) 3.0"#,
            r#"int32 (2, 2) array([[  31336, 1061127],"#,
            r#"       [1106406,   31336]], dtype=int32) [[31336, 1061127], [1106406, 31336]]"#,
            r#"array([[  31336., 1061127.],"#,
            r#"       [1106406.,   31336.]]) array([1061127,   31336])"#,
            r#"(array([1, 2, 3]), array([2, 0, 2, 1])) (array([1, 2, 3]), array([1, 3, 0]), array([1, 1, 2]))"#,
            r#"array(['a', 'bb', 'a'], dtype='<U2') <U2 [True, False, True] 1 array(['1', '22'], dtype='<U21')"#,
            r#"array([['x', 'zzz'],"#,
            r#"       ['yy', 'w']], dtype='<U3') 3 ['a', 'bb', 'a']"#,
        ]
    );
}

/// A small HTTP server on this machine answering GETs from `files` (path
/// and body), 404 for any other path, until the test ends.
fn serve(files: Vec<(&'static str, Vec<u8>)>) -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // The headers, up to the blank line.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let path = path.split('?').next().unwrap_or(path);
            let (status, body) = match files.iter().find(|(p, _)| *p == path) {
                Some((_, body)) => ("200 OK", body.clone()),
                None => ("404 Not Found", b"not here".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    port
}

/// `requests.get` as the GCN example downloads Cora: the body of a
/// `.tgz` fetched over http and read by `tarfile.open(fileobj=r.raw,
/// mode="r:gz")`; `r.json()`, `r.text`; a 404 is a response whose
/// `raise_for_status()` raises; other schemes are requests' errors. Each
/// line as Python's requests 2 printed it against the same server.
#[test]
fn requests_fetches_an_archive_as_the_gcn_example_does() {
    let dir = std::env::temp_dir().join(format!("cudash-requests-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cora")).unwrap();
    std::fs::write(dir.join("cora/cora.cites"), "1\t2\n").unwrap();
    std::fs::write(dir.join("cora/cora.content"), "x\n").unwrap();
    let tar = std::process::Command::new("tar")
        .args(["czf", "cora.tgz", "cora"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(tar.success());
    let tgz = std::fs::read(dir.join("cora.tgz")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let port = serve(vec![
        ("/cora.tgz", tgz),
        ("/hello.json", b"{\"a\": 3}\n".to_vec()),
    ]);
    let src = format!(
        r#"import os, tarfile, requests
url = 'http://127.0.0.1:{port}'
r = requests.get(url + '/cora.tgz', stream=True)
print(r.status_code, r.ok, r)
with requests.get(url + '/cora.tgz', stream=True) as tgz_file:
    with tarfile.open(fileobj=tgz_file.raw, mode='r:gz') as tgz_object:
        tgz_object.extractall()
print(sorted(os.listdir('cora')), open('cora/cora.cites').read().split())
print(requests.get(url + '/hello.json').json()['a'], requests.get(url + '/hello.json', params={{'q': 1}}).text.strip())
m = requests.get(url + '/missing')
print(m.status_code, m.ok, m.reason)
try:
    m.raise_for_status()
except requests.HTTPError as e:
    print(type(e).__name__, str(e).replace(url, 'URL'))
for u in ['file:///tmp/x', 'example.org/a']:
    try:
        requests.get(u)
    except requests.exceptions.RequestException as e:
        print(type(e).__name__, e)
"#
    );
    assert_eq!(
        script_lines_on(0, "fetch", &src),
        [
            "200 True <Response [200]>",
            "['cora.cites', 'cora.content'] ['1', '2']",
            "3 {\"a\": 3}",
            "404 False Not Found",
            "HTTPError 404 Client Error: Not Found for url: URL/missing",
            "InvalidSchema No connection adapters were found for 'file:///tmp/x'",
            "MissingSchema Invalid URL 'example.org/a': No scheme supplied. Perhaps you meant https://example.org/a?",
        ]
    );
}

/// An op cudash has no sparse kernel for is PyTorch's class of error for
/// a missing backend kernel, saying which op, with `.to_dense()` as help;
/// the program can catch it and go on.
#[test]
fn what_has_no_sparse_kernel_names_to_dense() {
    let (out, err, ok) = script_streams(
        "no_kernel",
        "import torch
s = torch.eye(2).to_sparse()
try:
    s.relu()
except NotImplementedError as e:
    print(type(e).__name__, e)
print(torch.exp(s))
",
    );
    assert!(!ok);
    assert_eq!(
        out,
        "NotImplementedError `.relu()` of a sparse tensor (layout=torch.sparse_coo) is not there in cudash\n"
    );
    assert!(
        err.contains("NotImplementedError: `torch.exp` of a sparse tensor")
            && err.contains("make it dense first: `x.to_dense()`"),
        "{err}"
    );
}
