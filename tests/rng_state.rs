//! Where the generators are, saved and put back as checkpointing code does:
//! `torch.get_rng_state()` is PyTorch's own bytes (fixtures written by
//! PyTorch 2.15, `tests/fixtures/rng_state/make_states.py`), a state
//! PyTorch saved puts cudash's generator where PyTorch's was, and Python's
//! `random.getstate()` is CPython's tuple (lines as CPython 3.11 printed).

use std::path::Path;

mod common;

/// What `cudash script` printed, what it wrote on stderr, and its status.
fn script(name: &str, src: &str, devices: u32) -> (String, String, bool) {
    common::script_streams_on(devices, name, src)
}

#[test]
fn the_cpu_state_is_pytorchs_bytes_both_ways() {
    let states = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rng_state/states.pt");
    let src = format!(
        "import torch
d = torch.load({states:?})
torch.manual_seed(42)
torch.rand(5)
torch.randn(3)
print('same bytes:', torch.equal(torch.get_rng_state(), d['state']))
torch.manual_seed(0)
torch.set_rng_state(d['state'])
print('rand:', torch.equal(torch.rand(4), d['after_rand']))
print('randn:', torch.equal(torch.randn(3), d['after_randn']))
print('fresh:', torch.equal(torch.Generator().manual_seed(5).get_state(), d['fresh']))
g = torch.Generator()
print('returns itself:', g.set_state(d['g_state']) is g)
print('generator:', torch.equal(torch.randperm(10, generator=g), d['g_next']))
torch.manual_seed(3)
for _ in range(700):
    torch.randint(0, 10, (1,))
print('twisted bytes:', torch.equal(torch.random.get_rng_state(), d['twisted']))
torch.manual_seed(1)
torch.random.set_rng_state(d['twisted'])
print('twisted next:', torch.equal(torch.randint(0, 1000, (5,)), d['twisted_next']))
s = torch.get_rng_state()
print(s.dtype, s.shape, s.device)
"
    );
    let (out, err, ok) = script("cpu", &src, 0);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "same bytes: True
rand: True
randn: True
fresh: True
returns itself: True
generator: True
twisted bytes: True
twisted next: True
torch.uint8 torch.Size([5056]) cpu
"
    );
}

/// Each CUDA device's generator saved and put back, alone and all at
/// once; a state that is not one is PyTorch's error.
#[test]
fn cuda_states_put_each_device_back() {
    let (out, err, ok) = script(
        "cuda",
        "import torch
torch.manual_seed(0)
s1 = torch.cuda.get_rng_state('cuda:1')
a = torch.rand(3, device='cuda:1')
b = torch.rand(3, device='cuda:0')
torch.cuda.set_rng_state(s1, 'cuda:1')
print(torch.equal(torch.rand(3, device='cuda:1'), a))
every = torch.cuda.get_rng_state_all()
print(len(every), every[0].shape, every[0].dtype)
x = torch.randn(4, device='cuda')
torch.cuda.set_rng_state_all(every)
print(torch.equal(torch.randn(4, device='cuda'), x))
for bad in [torch.zeros(3), torch.zeros(5, dtype=torch.uint8)]:
    try:
        torch.set_rng_state(bad)
    except (TypeError, RuntimeError) as e:
        print(type(e).__name__, e)
",
        2,
    );
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "True
2 torch.Size([16]) torch.uint8
True
TypeError RNG state must be a torch.ByteTensor
RuntimeError Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 5
"
    );
}

#[test]
fn python_random_state_is_cpythons_tuple() {
    let (out, err, ok) = script(
        "python",
        "import random
random.seed(5)
for _ in range(3):
    random.random()
s = random.getstate()
print(s[0], len(s[1]), s[1][0], s[1][623], s[1][624], s[2])
a = [random.randint(0, 100) for _ in range(5)]
random.setstate(s)
print(a == [random.randint(0, 100) for _ in range(5)])
random.seed(9)
fresh = random.getstate()
print(fresh[1][624], fresh[1][0], fresh[1][1])
for _ in range(700):
    random.random()
print(random.getstate()[1][624])
random.setstate(fresh)
print(random.random())
try:
    random.setstate((3, (1, 2), None))
except ValueError as e:
    print('ValueError', e)
",
        0,
    );
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "3 625 800844005 2402479847 6 None
True
624 2147483648 2776161509
152
0.46300735781502145
ValueError state vector is the wrong size
"
    );
}
