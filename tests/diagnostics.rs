//! What users see when something is wrong: every message pinned by a snapshot
//! (tests/snapshots/), with the source and a caret under the span.

mod common;

fn report(src: &str) -> String {
    let o = common::session().execute(src);
    let e = o.error.unwrap_or_else(|| panic!("`{src}` should fail"));
    format!("{src}\n---\n{}", e.report)
}

macro_rules! diagnostic {
    ($name:ident, $src:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(report($src));
        }
    };
}

diagnostic!(unknown_function_suggests, "x = randm(2, 3)");
diagnostic!(unknown_variable_suggests, "weights = ones(2)\nweigths + 1");
diagnostic!(unknown_method_suggests, "ones(2).resahpe(2, 1)");
diagnostic!(unknown_keyword_suggests, "zeros(2, dtyp=f16)");
diagnostic!(too_many_arguments, "exp(ones(2), 3)");
diagnostic!(missing_argument, "full([2])");
diagnostic!(wrong_argument_type, "zeros(2, dtype=cpu)");
diagnostic!(
    broadcast_mismatch,
    "a = zeros(2, 3)\nb = ones(4)\nc = a + b"
);
diagnostic!(matmul_mismatch, "ones(2, 3) @ ones(2, 3)");
diagnostic!(index_out_of_range, "m = zeros(2, 3)\nm[0, 3]");
diagnostic!(unexpected_token, "x = 1 +* 2");
diagnostic!(input_ended_early, "x = zeros(2,");
diagnostic!(unmatched_bracket, "x = (1 + 2))");
diagnostic!(mismatched_bracket, "x = [1, 2)");
diagnostic!(unterminated_string, "print(\"hello)");
diagnostic!(bad_character, "x = 1 $ 2");
diagnostic!(assign_to_call, "ones(2) = 3");
diagnostic!(set_a_read_only_property, "x = ones(2)\nx.shape = 3");
diagnostic!(
    assign_a_grad_of_another_size,
    "w = ones(3, requires_grad=true)\nw.grad = zeros(2)"
);
diagnostic!(integer_too_large, "x = 99999999999999999999");
diagnostic!(mean_of_ints, "[1, 2, 3].mean()");
diagnostic!(
    no_such_device,
    "with device(3) {\n  a = ones(2, device=cuda)\n}"
);
diagnostic!(
    cross_device,
    "a = ones(2, device=cuda:0)\nb = ones(2, device=cuda:1)\nc = a * b"
);
diagnostic!(device_out_of_memory, "x = zeros(5 * 2**30, device=cuda:1)");
diagnostic!(ragged_literal, "[[1, 2], [3]]");
diagnostic!(item_of_many, "ones(3).item()");
diagnostic!(
    deep_nesting,
    &format!("x = {}1{}", "[".repeat(200), "]".repeat(200))
);
diagnostic!(float_size, "zeros(1e20)");
diagnostic!(negative_int_power, "[2, 3] ** -1");
diagnostic!(keyword_then_positional, "zeros(dtype=f16, 2)");
diagnostic!(control_character, "x = 1\u{7}");
diagnostic!(
    error_in_loop_points_inside,
    "x = ones(2)\nfor i in 0..3 {\n  x = x @ ones(3, 3)\n}"
);

#[test]
fn every_report_has_a_caret_and_a_class() {
    for src in ["randm(2)", "x = )", "ones(2) + ones(3)", "zeros(2)[5]"] {
        let r = report(src);
        assert!(
            r.contains('╭') && (r.contains('┬') || r.contains('─')),
            "{r}"
        );
    }
}
diagnostic!(softmax_needs_dim, "softmax(ones(2, 3))");
diagnostic!(unpack_count, "values, indices, extra = ones(3).sort()");
diagnostic!(unpack_into_a_call, "x = ones(2)\nx.sum(), y = [1, 2]");
diagnostic!(
    var_correction_and_unbiased,
    "ones(4).var(correction=0, unbiased=true)"
);
diagnostic!(matrix_norm, "ones(2, 2).norm(\"nuc\")");
diagnostic!(chunk_of_a_0d_tensor, "zeros().chunk(2)");
diagnostic!(
    split_of_a_0d_tensor,
    "randn(dtype=f64, device=cuda).split(1)"
);
// PyTorch's and Python's spellings that cudash writes another way: the hint shows its form.
diagnostic!(torch_prefix, "x = torch.zeros(2, 3)");
diagnostic!(torch_cuda_prefix, "torch.cuda.synchronize()");
diagnostic!(functional_prefix, "x = ones(3)\ny = F.relu(x)");
diagnostic!(torch_dtype, "zeros(2, dtype=torch.float16)");
diagnostic!(torch_event, "start = torch.cuda.Event(enable_timing=True)");
diagnostic!(nn_module, "layer = nn.Linear(4, 2)");
diagnostic!(numpy_module, "a = np.array([1, 2])");
diagnostic!(
    python_with_block,
    "with torch.cuda.device(1):\n    x = ones(2, device=\"cuda\")"
);
diagnostic!(numpy_method, "x = ones(2, requires_grad=true)\nx.numpy()");
diagnostic!(len_of_0d, "len(tensor(3.))");

// Functions and control flow (issue 49).
diagnostic!(break_outside_a_loop, "x = 1\nbreak");
diagnostic!(
    continue_in_a_function_outside_its_loop,
    "for i in 0..3 {\n  fn f() { continue }\n}"
);
diagnostic!(return_outside_a_function, "for i in 0..3 { return i }");
diagnostic!(duplicate_parameter, "fn f(a, a) { }");
diagnostic!(parameter_without_default_after_default, "fn f(a=1, b) { }");
diagnostic!(
    too_many_arguments_to_a_function,
    "fn f(a, b=2) { }\nf(1, 2, 3)"
);
diagnostic!(missing_argument_of_a_function, "fn f(a, b) { }\nf(1)");
diagnostic!(unknown_keyword_of_a_function, "fn f(rate) { }\nf(rtae=1)");
diagnostic!(argument_given_twice, "fn f(a) { }\nf(1, a=2)");
diagnostic!(
    local_read_before_assignment,
    "n = 1\nfn f() {\n  y = n + 1\n  n = 2\n}\nf()"
);
diagnostic!(
    runaway_recursion,
    "fn down(n) { return down(n - 1) }\ndown(3)"
);
diagnostic!(condition_on_many_elements, "x = ones(3)\nif x > 0 { }");
diagnostic!(while_on_an_empty_tensor, "while zeros(0) { }");
diagnostic!(append_to_a_tensor, "losses = [0.5]\nlosses.append(1.0)");
diagnostic!(
    append_to_a_tuple,
    "parts = ones(4).chunk(2)\nparts.append(1)"
);
diagnostic!(call_a_number, "f = 3\nf(1)");
diagnostic!(
    unpack_in_for,
    "pairs = list()\npairs.append([1, 2, 3])\nfor a, b in pairs { }"
);
diagnostic!(
    error_in_a_call_points_inside,
    "fn f(x) {\n  return x @ ones(3, 3)\n}\nf(ones(2))"
);
// A closure called before its enclosing function assigned what it reads.
diagnostic!(
    free_variable_not_assigned_yet,
    "fn outer() {\n  fn inner(w) { return w * lr }\n  r = inner(2)\n  lr = 0.1\n  return r\n}\nouter()"
);
// A program's own exception class, raised and not caught: its name, as
// Python prints it, and its message.
diagnostic!(
    own_exception_class_uncaught,
    "class ShapeMismatch(ValueError):\n    def __init__(self, expected, got):\n        super().__init__(f\"expected {expected}, got {got}\")\nraise ShapeMismatch(1, 2)"
);
// A learner typing the material's own lines (issue 64).
diagnostic!(keyword_as_a_parameter, "fn run(n, d, pin) { return n }");
diagnostic!(
    assign_to_a_device_literal,
    "cuda:1 = torch.device(\"cuda:1\")"
);
diagnostic!(python_no_grad_block, "with torch.no_grad():\n    y = x * 2");
diagnostic!(
    python_class,
    "class NeuralNetwork(nn.Module):\n    def __init__(self):\n        pass"
);
diagnostic!(torch_no_grad_call, "torch.no_grad()");
// A pasted program's imports and indentation (issue 68).
diagnostic!(
    import_torchvision,
    "import torch\nfrom torchvision import ops"
);
diagnostic!(import_numpy, "import numpy.linalg as la");
diagnostic!(import_unknown_module, "import sqlite3");
diagnostic!(
    torch_name_cudash_lacks,
    "import torch.nn as nn\nnn.FractionalMaxPool2d(2)"
);
diagnostic!(
    import_a_name_cudash_lacks,
    "from torch.nn import FractionalMaxPool2d"
);
diagnostic!(indented_block_missing, "def f(x):\nreturn x");
diagnostic!(unexpected_indent, "if true:\n    a = 1\n      b = 2");
diagnostic!(unindent_between_levels, "if true:\n    a = 1\n  b = 2");
diagnostic!(
    variable_hides_a_builtin,
    "import torch\ndevice = torch.device(\"cuda\")\nwith device(1):\n    pass"
);
diagnostic!(tabs_and_spaces, "if true:\n    a = 1\n\tb = 2");
diagnostic!(torch_name_misspelt, "torch.cuda.empty_Cache()");
diagnostic!(
    item_of_a_tuple_assigned,
    "t = (randn(2), randn(3))\nt[0] = randn(3)"
);
diagnostic!(device_string_unknown, "device(\"gpu\")");
