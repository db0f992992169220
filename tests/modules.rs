//! Classes and modules (issue 67): Python's rules for classes, PyTorch's
//! `nn.Module` registration, walks, modes, printing and `state_dict`.
//! Expected texts were printed by PyTorch 2.15 for the same model.

mod common;

/// A model with every kind of member: nested classes, a Sequential, a
/// ModuleList of equal blocks, a buffer, a plain none, a loss.
const NET: &str = "class Block(Module) {\n\
    fn __init__(self) {\n\
      super().__init__()\n\
      self.fc = Linear(4, 4, bias=false)\n\
      self.act = Tanh()\n\
    }\n\
    fn forward(self, x) { return self.act(self.fc(x)) }\n\
  }\n\
  class Net(Module) {\n\
    fn __init__(self) {\n\
      super().__init__()\n\
      self.flatten = Flatten()\n\
      self.body = Sequential(Linear(4, 8), ReLU(), Dropout(0.25))\n\
      self.blocks = ModuleList([Block(), Block()])\n\
      self.head = Linear(8, 2)\n\
      self.none = none\n\
      self.register_buffer(\"steps\", zeros(1))\n\
      self.out = LogSoftmax(dim=1)\n\
      self.loss = CrossEntropyLoss()\n\
    }\n\
  }\n\
  n = Net()\n";

#[test]
fn a_model_prints_as_pytorchs_repr() {
    let out = common::ok(&format!("{NET}print(n)"));
    let expected = "Net(
  (flatten): Flatten(start_dim=1, end_dim=-1)
  (body): Sequential(
    (0): Linear(in_features=4, out_features=8, bias=True)
    (1): ReLU()
    (2): Dropout(p=0.25, inplace=False)
  )
  (blocks): ModuleList(
    (0-1): 2 x Block(
      (fc): Linear(in_features=4, out_features=4, bias=False)
      (act): Tanh()
    )
  )
  (head): Linear(in_features=8, out_features=2, bias=True)
  (out): LogSoftmax(dim=1)
  (loss): CrossEntropyLoss()
)";
    assert_eq!(out.trim_end(), expected);
    // Shown as a value: the same, then what the parameters are.
    let shown = common::ok(&format!("{NET}n"));
    assert!(
        shown
            .trim_end()
            .ends_with(")\n# 90 parameters (360 B), f32 @cpu, training"),
        "{shown}"
    );
}

#[test]
fn state_dict_and_named_modules_have_pytorchs_keys_in_its_order() {
    let out = common::ok(&format!(
        "{NET}for k in n.state_dict().keys() {{ print(\"key\", k) }}\n\
         for name, m in n.named_modules() {{ print(name) }}"
    ));
    let keys: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("key ")).collect();
    assert_eq!(
        keys,
        [
            "steps",
            "body.0.weight",
            "body.0.bias",
            "blocks.0.fc.weight",
            "blocks.1.fc.weight",
            "head.weight",
            "head.bias"
        ],
        "{out}"
    );
    let names: Vec<&str> = out.lines().filter(|l| !l.starts_with("key ")).collect();
    assert_eq!(
        names,
        [
            "",
            "flatten",
            "body",
            "body.0",
            "body.1",
            "body.2",
            "blocks",
            "blocks.0",
            "blocks.0.fc",
            "blocks.0.act",
            "blocks.1",
            "blocks.1.fc",
            "blocks.1.act",
            "head",
            "out",
            "loss"
        ],
        "{out}"
    );
}

#[test]
fn assignment_registers_as_module_setattr() {
    let out = common::ok(
        "class M(Module) {\n\
           fn __init__(self) {\n\
             super().__init__()\n\
             self.w = Parameter(ones(2))\n\
             self.plain = ones(3, requires_grad=true)\n\
             self.fc = Linear(2, 2)\n\
             self.lr = 0.5\n\
           }\n\
         }\n\
         m = M()\n\
         for name, p in m.named_parameters() { print(name) }\n\
         m.lr\n\
         m.fc = none\n\
         len(m.parameters())\n\
         m.plain.shape",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["w", "fc.weight", "fc.bias", "0.5", "1", "[3]"],
        "{out}"
    );
    // PyTorch's TypeErrors for a registered name given the wrong kind.
    let (class, msg) = common::err(
        "class M(Module) { fn __init__(self) { super().__init__(); self.fc = Linear(2, 2) } }\n\
         m = M()\nm.fc = 3",
    );
    assert_eq!(class, "TypeError");
    assert_eq!(
        msg,
        "cannot assign 'int' as child module 'fc' (torch.nn.Module or None expected)"
    );
    let (class, msg) = common::err(
        "class M(Module) { fn __init__(self) { super().__init__(); self.w = Parameter(ones(2)) } }\n\
         m = M()\nm.w = ones(2)",
    );
    assert_eq!(class, "TypeError");
    assert!(
        msg.starts_with("cannot assign 'torch.FloatTensor' as parameter 'w'"),
        "{msg}"
    );
}

/// A built-in layer's plain tensor attribute (pruning's `weight` once it
/// is no parameter): read back, read by the forward, left out of
/// `parameters()` and `state_dict()`, as PyTorch's `__dict__`.
#[test]
fn a_layer_keeps_a_plain_tensor_its_forward_reads() {
    let out = common::ok(
        "fc = Linear(2, 1)\n\
         w = fc.weight\n\
         delattr(fc, \"weight\")\n\
         [n for n, _ in fc.named_parameters()]\n\
         fc.weight = full([1, 2], 3.0)\n\
         fc.note = ones(1)\n\
         [n for n, _ in fc.named_parameters()]\n\
         list(fc.state_dict().keys())\n\
         (fc(ones(1, 2)) - fc.bias).item()\n\
         fc.weight = Parameter(zeros(1, 2))\n\
         [n for n, _ in fc.named_parameters()]\n\
         del fc.note\n\
         hasattr(fc, \"note\")",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            r#"["bias"]"#,
            r#"["bias"]"#,
            r#"["bias"]"#,
            "6.0",
            r#"["bias", "weight"]"#,
            "false"
        ],
        "{out}"
    );
}

/// A Linear's graph as PyTorch 2.15 records it (printed by PyTorch for
/// the same calls): `addmm(b, x, w.t())` with the transpose a node of its
/// own; a contiguous input of another rank flattened to rows and back.
#[test]
fn a_linears_graph_is_pytorchs() {
    let out = common::ok(
        "fc = Linear(4, 3)\n\
         y = fc(ones(2, 4, requires_grad=true))\n\
         [f.name() for f, _ in y.grad_fn.next_functions]\n\
         z = fc(ones(2, 5, 4, requires_grad=true))\n\
         z.grad_fn.name(), z.grad_fn.next_functions[0][0].name()\n\
         z.grad_fn.next_functions[0][0].next_functions[1][0].name()\n\
         fc(ones(4, requires_grad=true)).grad_fn.name()\n\
         fc(ones(2, 5, 4, requires_grad=true).transpose(0, 1)).grad_fn.name()",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            r#"["torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad", "TBackward0"]"#,
            r#"["UnsafeViewBackward0", "AddmmBackward0"]"#,
            r#""ViewBackward0""#,
            r#""UnsafeViewBackward0""#,
            r#""AddBackward0""#,
        ],
        "{out}"
    );
}

/// `del` of a container's child: a ModuleDict's key, a Sequential's
/// index with the later children numbered again, as PyTorch's.
#[test]
fn del_takes_a_child_out_of_a_container() {
    let out = common::ok(
        "seq = Sequential(Linear(1, 2), ReLU(), Linear(2, 3))\n\
         del seq[0]\n\
         [n for n, _ in seq.named_children()]\n\
         seq[1].out_features\n\
         d = ModuleDict({\"a\": ReLU(), \"b\": Tanh()})\n\
         del d[\"a\"]\n\
         list(d.keys())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [r#"["0", "1"]"#, "3", r#"["b"]"#],
        "{out}"
    );
    let (class, msg) = common::err("d = ModuleDict({\"a\": ReLU()})\ndel d[\"z\"]");
    assert_eq!((class.as_str(), msg.as_str()), ("KeyError", "'z'"));
}

#[test]
fn a_class_that_forgets_super_init_cannot_register() {
    let (class, msg) =
        common::err("class Bad(Module) { fn __init__(self) { self.fc = Linear(2, 2) } }\nBad()");
    assert_eq!(class, "AttributeError");
    assert_eq!(msg, "cannot assign module before Module.__init__() call");
}

#[test]
fn classes_follow_pythons_rules() {
    let out = common::ok(
        "class A {\n\
           kind = \"a\"\n\
           fn __init__(self, v) { self.v = v }\n\
           fn get(self) { return self.v }\n\
         }\n\
         class B(A) {\n\
           fn get(self) { return super().get() * 10 }\n\
         }\n\
         a = A(3)\nb = B(2)\n\
         print(a.get(), b.get(), b.kind, A.kind)\n\
         f = b.get\nprint(f())\n\
         print(isinstance(b, A), isinstance(a, B), isinstance(Linear(1, 1), [ReLU, Module]))\n\
         A.kind = \"changed\"\nprint(b.kind)\n\
         a.v = 7\nprint(a.get())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["3 20 a a", "20", "True False True", "changed", "7"],
        "{out}"
    );
    let (class, msg) = common::err("class A { }\nA().w");
    assert_eq!(
        (class.as_str(), msg.as_str()),
        ("AttributeError", "'A' object has no attribute 'w'")
    );
    let (class, msg) = common::err("class A { }\nA(1)");
    assert_eq!(
        (class.as_str(), msg.as_str()),
        ("TypeError", "A() takes no arguments")
    );
    let (class, _) = common::err("super()");
    assert_eq!(class, "RuntimeError");
    // A class body holds methods, attributes and a docstring.
    let (class, _) = common::err("class A { print(1) }");
    assert_eq!(class, "SyntaxError");
}

#[test]
fn a_module_without_forward_and_a_wrong_shape_are_pytorchs_errors() {
    let (class, msg) = common::err("class N(Module) { }\nN()(ones(2))");
    assert_eq!(class, "NotImplementedError");
    assert_eq!(
        msg,
        "Module [N] is missing the required \"forward\" function"
    );
    let (_, msg) = common::err("Linear(784, 256)(ones(64, 100))");
    assert_eq!(
        msg,
        "addmm: mat1 and mat2 shapes cannot be multiplied (64x100 and 784x256)"
    );
    let (_, msg) = common::err("Linear(784, 256, bias=false)(ones(100))");
    assert_eq!(
        msg,
        "mm: mat1 and mat2 shapes cannot be multiplied (1x100 and 784x256)"
    );
    let (class, msg) = common::err("n = Sequential(Linear(2, 2))\nn.fc3");
    assert_eq!(
        (class.as_str(), msg.as_str()),
        (
            "AttributeError",
            "'Sequential' object has no attribute 'fc3'"
        )
    );
}

#[test]
fn a_model_trains_its_own_parameters() {
    // The optimizer holds the very tensors the model computes with: the
    // loss falls, and `model.fc.weight` is what `parameters()` gave.
    let out = common::ok(
        "seed(0)\n\
         class Net(Module) {\n\
           fn __init__(self) { super().__init__(); self.fc = Linear(4, 3); self.out = Linear(3, 2) }\n\
           fn forward(self, x) { return self.out(relu(self.fc(x))) }\n\
         }\n\
         model = Net()\n\
         opt = SGD(model.parameters(), lr=0.5)\n\
         x = randn(32, 4)\nt = (x[:, 0] > 0).long()\n\
         first = none\n\
         for step in 0..30 {\n\
           opt.zero_grad()\n\
           loss = cross_entropy(model(x), t)\n\
           if first is none { first = loss.item() }\n\
           loss.backward()\n\
           opt.step()\n\
         }\n\
         print(loss.item() < first / 2)\n\
         print(model.parameters()[0] is model.fc.weight)\n\
         print(model.fc.weight.grad is not none)\n\
         model.zero_grad()\n\
         print(model.fc.weight.grad)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["True", "True", "True", "None"],
        "{out}"
    );
}

#[test]
fn eval_switches_dropout_but_still_records_the_graph() {
    let out = common::ok(
        "seed(0)\n\
         model = Sequential(Linear(8, 8), Dropout(0.5))\n\
         x = ones(4, 8)\n\
         model = model.eval()\n\
         a = model(x)\nb = model(x)\n\
         print((a == b).all().item(), a.requires_grad, model[1].training)\n\
         no_grad { c = model(x) }\n\
         print(c.requires_grad)\n\
         model = model.train()\n\
         print(((model(x) == 0).sum() > 0).item(), model[1].training)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["True True False", "False", "True True"],
        "{out}"
    );
}

#[test]
fn load_state_dict_checks_every_key_before_copying() {
    let out = common::ok(
        "a = Sequential(Linear(2, 3), ReLU(), Linear(3, 1))\n\
         b = Sequential(Linear(2, 3), ReLU(), Linear(3, 1))\n\
         r = b.load_state_dict(a.state_dict())\n\
         print(r.missing_keys, r.unexpected_keys)\n\
         print((b(ones(1, 2)) == a(ones(1, 2))).all().item())\n\
         c = Linear(2, 3)\n\
         r = c.load_state_dict(a.state_dict(), strict=false)\n\
         print(r.missing_keys, r.unexpected_keys)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "[] []",
            "True",
            "['weight', 'bias'] ['0.weight', '0.bias', '2.weight', '2.bias']"
        ],
        "{out}"
    );
    let (class, msg) = common::err(
        "a = Sequential(Linear(2, 3), ReLU(), Linear(3, 1))\n\
         m = Sequential(Linear(2, 4))\n\
         w = m[0].weight.clone()\n\
         m.load_state_dict(a.state_dict())",
    );
    assert_eq!(class, "RuntimeError");
    assert_eq!(
        msg,
        "Error(s) in loading state_dict for Sequential:\n\
         \tUnexpected key(s) in state_dict: \"2.weight\", \"2.bias\". \n\
         \tsize mismatch for 0.weight: copying a param with shape torch.Size([3, 2]) from checkpoint, the shape in current model is torch.Size([4, 2]).\n\
         \tsize mismatch for 0.bias: copying a param with shape torch.Size([3]) from checkpoint, the shape in current model is torch.Size([4])."
    );
}

#[test]
fn linear_is_initialised_within_pytorchs_bound() {
    let out = common::ok(
        "seed(1)\nfc = Linear(100, 50)\n\
         print(fc.weight.abs().max().item() <= 0.1, fc.bias.abs().max().item() <= 0.1)\n\
         print(fc.weight.abs().max().item() > 0.09, fc.weight.requires_grad, fc.weight.is_leaf)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["True True", "True True True"],
        "{out}"
    );
}

/// PyTorch's `module.to` changes each parameter's data in place: an
/// optimizer made before it steps the moved parameters (cudash gives it
/// the new ones); a variable that still holds an old one is warned about.
#[test]
fn moving_a_model_moves_its_parameters_and_buffers_and_its_optimizers_follow() {
    let out = common::run(
        "m = Module()\nm.register_buffer(\"mean\", zeros(2))\nm.add_module(\"fc\", Linear(2, 2))\n\
         opt = SGD(m.parameters(), lr=0.1)\n\
         m.to(cuda:1)\n\
         print(m.fc.weight.device, m.mean.device, m.fc.weight.is_leaf, m.fc.weight.requires_grad)\n\
         print(opt.param_groups[0][\"params\"][0] is m.fc.weight)\n\
         m.fc(ones(1, 2, device=cuda:1)).sum().backward()\n\
         before = m.fc.bias.clone()\nopt.step()\nprint([round(v, 4) for v in (m.fc.bias - before).tolist()])\n\
         w = m.fc.weight\nm.half()\nprint(m.fc.weight.dtype)",
    );
    assert!(out.contains("cuda:1 cuda:1 True True"), "{out}");
    assert!(out.contains("True\n"), "{out}");
    assert!(out.contains("[-0.1, -0.1]"), "{out}");
    assert!(
        out.contains("still held elsewhere (a variable, a list)"),
        "{out}"
    );
    assert!(out.contains("torch.float16"), "{out}");
}

#[test]
fn sequential_and_module_list_index_iterate_and_grow() {
    let out = common::ok(
        "s = Sequential(Linear(2, 2), ReLU(), Linear(2, 3))\n\
         print(len(s), s[-1].out_features, len(s[1:]))\n\
         print(s[1:])\n\
         layers = ModuleList()\nl = layers.append(Linear(2, 2))\nl = layers.append(Linear(2, 2))\n\
         class M(Module) { fn __init__(self) { super().__init__(); self.layers = layers } }\n\
         print(len(M().parameters()))\n\
         n = 0\nfor l in s { n += 1 }\nprint(n)",
    );
    assert_eq!(
        out.trim_end(),
        "3 3 2\nSequential(\n  (1): ReLU()\n  (2): Linear(in_features=2, out_features=3, bias=True)\n)\n4\n3"
    );
}

#[test]
fn a_class_lives_across_cells_and_its_errors_show_in_its_own_cell() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "class Net(Module) {\n  fn __init__(self) { super().__init__(); self.fc = Linear(2, 2) }\n  fn forward(self, x) { return self.fc(x) + self.nope }\n}",
    );
    common::ok_in(&mut s, "model = Net()");
    let (class, msg) = common::err_in(&mut s, "model(ones(1, 2))");
    assert_eq!(
        (class.as_str(), msg.as_str()),
        ("AttributeError", "'Net' object has no attribute 'nope'")
    );
}

#[test]
fn a_module_computes_what_the_functional_ops_compute_bit_for_bit() {
    // The layers are the functional ops: the same bits forward and backward.
    let out = common::ok(
        "seed(3)\n\
         m = Sequential(Linear(5, 7), Tanh(), Linear(7, 3), LogSoftmax(dim=1))\n\
         x = randn(4, 5)\nt = tensor([0, 2, 1, 2])\n\
         W1 = m[0].weight.detach().clone().requires_grad_()\nb1 = m[0].bias.detach().clone().requires_grad_()\n\
         W2 = m[2].weight.detach().clone().requires_grad_()\nb2 = m[2].bias.detach().clone().requires_grad_()\n\
         y = m(x)\n\
         z = log_softmax(linear(linear(x, W1, b1).tanh(), W2, b2), dim=1)\n\
         print((y == z).all().item())\n\
         nll_loss(y, t).backward()\nnll_loss(z, t).backward()\n\
         print((m[0].weight.grad == W1.grad).all().item(), (m[2].bias.grad == b2.grad).all().item())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["True", "True True"],
        "{out}"
    );
}

#[test]
fn a_dataloader_worker_has_its_own_copy_of_a_model() {
    // As a forked PyTorch worker: its `eval()` and attributes change its
    // copy; with num_workers=0 the main process's model is the one used.
    let out = common::ok(
        "class Aug(Module) {\n\
           fn __init__(self) { super().__init__(); self.fc = Linear(3, 3); self.calls = 0 }\n\
           fn forward(self, x) { self.calls = self.calls + 1; return self.fc(x) }\n\
         }\n\
         aug = Aug()\nX = randn(8, 3)\n\
         fn get(i) { aug.eval(); return aug(X[i]).detach() }\n\
         for b in DataLoader(Dataset(get, 8), batch_size=4, num_workers=2) { }\n\
         print(aug.training, aug.calls)\n\
         for b in DataLoader(Dataset(get, 8), batch_size=4) { }\n\
         print(aug.training, aug.calls)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["True 0", "False 8"],
        "{out}"
    );
}

#[test]
fn forward_hooks_see_and_replace_inputs_and_outputs() {
    let out = common::ok(
        "model = Sequential(Linear(4, 3), ReLU(), Linear(3, 2))\n\
         shapes = list()\n\
         fn keep(m, args, out) { shapes.append(out.shape) }\n\
         hs = list()\n\
         for m in model { hs.append(m.register_forward_hook(keep)) }\n\
         y = model(ones(2, 4))\nprint(shapes)\n\
         fn zero(m, args) { return args[0] * 0 }\n\
         fn last(m, args, out) { return out * 0 + 7 }\n\
         h = model[0].register_forward_pre_hook(zero)\n\
         g = model.register_forward_hook(last)\n\
         print(model(ones(2, 4)).tolist())\n\
         h.remove()\ng.remove()\nfor k in hs { k.remove() }\n\
         y = model(ones(1, 4))\nprint(len(shapes))",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "[torch.Size([2, 3]), torch.Size([2, 3]), torch.Size([2, 2])]",
            "[[7.0, 7.0], [7.0, 7.0]]",
            "6"
        ],
        "{out}"
    );
}

#[test]
fn vars_shows_a_model_on_one_line() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "model = Sequential(Linear(4, 3), ReLU())\nclass A { }",
    );
    let rows = s.vars();
    let model = rows.iter().find(|r| r.name == "model").unwrap();
    assert_eq!(
        model.summary,
        "Sequential: 15 parameters (60 B), f32 @cpu, training"
    );
    assert_eq!(model.bytes, 60);
    let class = rows.iter().find(|r| r.name == "A").unwrap();
    assert_eq!(class.summary, "<class '__main__.A'>");
}

#[test]
fn cross_entropy_takes_probabilities_and_label_smoothing_as_pytorch() {
    // PyTorch 2.15 (f64): F.cross_entropy on these inputs.
    let out = common::ok(
        "x = tensor([[0.5, -1., 2.], [1.5, 0.25, -0.5]], dtype=f64)\n\
         t = tensor([2, 0])\n\
         p = tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], dtype=f64)\n\
         print(cross_entropy(x, t, label_smoothing=0.1).item())\n\
         print(cross_entropy(x, p).item())\n\
         print(CrossEntropyLoss(label_smoothing=0.2, reduction=\"sum\")(x, p).item())\n\
         y = x.clone().requires_grad_()\n\
         loss = cross_entropy(y, p)\nprint(loss.grad_fn)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "0.4257982468966461",
            "1.1841315802299794",
            "2.529929827126626",
            "<DivBackward1>"
        ],
        "{out}"
    );
}

#[test]
fn init_functions_fill_in_place_within_pytorchs_bounds() {
    let out = common::ok(
        "seed(0)\n\
         fn init(m) { if isinstance(m, Linear) { xavier_uniform_(m.weight); zeros_(m.bias) } }\n\
         model = Sequential(Linear(30, 20), ReLU(), Linear(20, 10))\n\
         w = model[0].weight\n\
         m = model.apply(init)\n\
         print(w is model[0].weight, w.requires_grad, w.is_leaf)\n\
         print(w.abs().max().item() <= (6 / 50) ** 0.5, model[2].bias.abs().sum().item())\n\
         k = kaiming_uniform_(empty(64, 100), nonlinearity=\"relu\")\n\
         print(k.abs().max().item() <= 3 ** 0.5 * 2 ** 0.5 / 10, calculate_gain(\"leaky_relu\", 0.2))\n\
         print(constant_(zeros(2), 0.5).tolist())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "True True True",
            "True 0.0",
            "True 1.3867504905630728",
            "[0.5, 0.5]"
        ],
        "{out}"
    );
}

#[test]
fn embedding_picks_rows_and_sums_their_gradients() {
    let out = common::ok(
        "seed(0)\nemb = Embedding(10, 3)\nprint(emb)\n\
         y = emb(tensor([[1, 2], [4, 1]]))\nprint(y.shape, y.grad_fn)\n\
         y.sum().backward()\nprint(emb.weight.grad[1].tolist(), emb.weight.grad[0].tolist())\n\
         print((embedding(tensor([2]), emb.weight) == emb.weight[2]).all().item())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "Embedding(10, 3)",
            "torch.Size([2, 2, 3]) <EmbeddingBackward0>",
            "[2.0, 2.0, 2.0] [0.0, 0.0, 0.0]",
            "True"
        ],
        "{out}"
    );
    let (_, msg) = common::err("Embedding(4, 2)(tensor([0.5]))");
    assert!(msg.starts_with("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"), "{msg}");
}

#[test]
fn module_dict_keeps_modules_by_name() {
    let out = common::ok(
        "md = ModuleDict()\nmd[\"enc\"] = Linear(4, 2)\nmd[\"dec\"] = Linear(2, 4)\n\
         print(len(md), md[\"enc\"].out_features)\nfor k in md { print(k) }\n\
         class M(Module) { fn __init__(self) { super().__init__(); self.heads = md } }\n\
         for k, p in M().named_parameters() { print(k) }\n\
         seq = Sequential(Linear(2, 2), ReLU())\nseq[1] = Tanh()\nprint(seq[1])",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "2 2",
            "enc",
            "dec",
            "heads.enc.weight",
            "heads.enc.bias",
            "heads.dec.weight",
            "heads.dec.bias",
            "Tanh()"
        ],
        "{out}"
    );
    let (class, msg) = common::err("md = ModuleDict()\nmd[\"x\"]");
    assert_eq!((class.as_str(), msg.as_str()), ("KeyError", "'x'"));
}

#[test]
fn batch_norm_moves_its_running_statistics_in_training_only() {
    let out = common::ok(
        "seed(0)\nbn = BatchNorm1d(2)\nprint(bn)\n\
         x = tensor([[1., 10.], [3., 20.], [5., 30.]])\n\
         y = bn(x)\nprint(y.grad_fn, bn.num_batches_tracked.item())\n\
         print(bn.running_mean.tolist(), ((bn.running_var - tensor([1.3, 10.9])).abs() < 1e-6).all().item())\n\
         m = bn.eval()\ny = bn(x)\n\
         print(bn.running_mean.tolist(), bn.num_batches_tracked.item())\n\
         for k, v in bn.named_buffers() { print(k) }\n\
         print(BatchNorm2d(4, momentum=none, affine=false))",
    );
    // PyTorch 2.15: running_mean 0.1 * [3, 20]; running_var 0.9 + 0.1 * [4, 100]
    // (its 2-D kernel gives 10.900000572 for the second, one f32 ulp above
    // cudash's: its channels-last statistics add in another order).
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)",
            "<NativeBatchNormBackward0> 1",
            "[0.30000001192092896, 2.0] True",
            "[0.30000001192092896, 2.0] 1",
            "running_mean",
            "running_var",
            "num_batches_tracked",
            "BatchNorm2d(4, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=True)"
        ],
        "{out}"
    );
    let (_, msg) = common::err("BatchNorm1d(3)(ones(1, 3))");
    assert_eq!(
        msg,
        "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"
    );
    let (_, msg) = common::err("BatchNorm2d(3)(ones(2, 3))");
    assert_eq!(msg, "expected 4D input (got 2D input)");
}

#[test]
fn the_mnist_example_network_trains_a_step() {
    // PyTorch's examples/mnist network, as written there (`super(Net,
    // self)`, `flatten(x, 1)`, Adadelta with StepLR).
    let out = common::ok(
        "seed(1)\n\
         class Net(Module) {\n\
           fn __init__(self) {\n\
             super(Net, self).__init__()\n\
             self.conv1 = Conv2d(1, 8, 3, 1)\n\
             self.conv2 = Conv2d(8, 16, 3, 1)\n\
             self.dropout1 = Dropout(0.25)\n\
             self.fc1 = Linear(16 * 5 * 5, 32)\n\
             self.fc2 = Linear(32, 10)\n\
           }\n\
           fn forward(self, x) {\n\
             x = relu(self.conv1(x))\n\
             x = relu(self.conv2(x))\n\
             x = max_pool2d(x, 2)\n\
             x = flatten(self.dropout1(x), 1)\n\
             x = relu(self.fc1(x))\n\
             return log_softmax(self.fc2(x), dim=1)\n\
           }\n\
         }\n\
         model = Net()\nprint(model.conv1)\n\
         opt = Adadelta(model.parameters(), lr=1.0)\nsched = StepLR(opt, step_size=1, gamma=0.7)\n\
         data = randn(8, 1, 14, 14)\ntarget = randint(0, 10, [8])\n\
         first = none\n\
         for step in 0..8 {\n\
           opt.zero_grad()\n\
           loss = nll_loss(model(data), target)\n\
           if first is none { first = loss.item() }\n\
           loss.backward()\n\
           opt.step()\n\
         }\n\
         sched.step()\n\
         print(loss.grad_fn, loss.item() < first, sched.get_last_lr())\n\
         print(model.conv2.weight.grad.shape, model.conv1.bias.grad.shape)",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1))",
            "<NllLossBackward0> True [0.7]",
            "torch.Size([16, 8, 3, 3]) torch.Size([8])"
        ],
        "{out}"
    );
}

#[test]
fn layer_norm_normalises_each_row_as_pytorch() {
    let out = common::ok(
        "ln = LayerNorm(4)\nprint(ln)\nprint(LayerNorm([3, 4], elementwise_affine=false))\n\
         x = tensor([[1., 2., 3., 4.], [2., 2., 2., 6.]], requires_grad=true)\n\
         y = ln(x)\nprint(y.grad_fn)\n\
         print(((y.mean(1)).abs() < 1e-6).all().item(), ((y.var(1, unbiased=false) - 1).abs() < 1e-4).all().item())\n\
         y.sum().backward()\nprint((x.grad.abs() < 1e-5).all().item(), ln.bias.grad.tolist())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)",
            "LayerNorm((3, 4), eps=1e-05, elementwise_affine=False, bias=False)",
            "<NativeLayerNormBackward0>",
            "True True",
            "True [2.0, 2.0, 2.0, 2.0]"
        ],
        "{out}"
    );
}

/// PyTorch's `adaptive_avg_pool2d` to 1 x 1 is a mean over the plane
/// (`MeanBackward1`); to other sizes, `AdaptiveAvgPool2DBackward0`.
#[test]
fn adaptive_average_pooling_is_pytorchs_node() {
    let pooled = common::ok(
        "x = randn(2, 3, 4, 4, requires_grad=true)\nAdaptiveAvgPool2d(1)(x).grad_fn\nAdaptiveAvgPool2d(2)(x).grad_fn",
    );
    assert!(pooled.contains("<MeanBackward1>"), "{pooled}");
    assert!(pooled.contains("<AdaptiveAvgPool2DBackward0>"), "{pooled}");
}

#[test]
fn a_parameter_shows_as_pytorchs() {
    let out = common::ok("p = Parameter(ones(2))\np\n(p * 2).requires_grad");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "Parameter containing:",
            "[1., 1.]  f32[2] @cpu requires_grad",
            "true"
        ],
        "{out}"
    );
}

/// GELU as PyTorch's CUDA kernel computes it (erf in the device's libm):
/// values, `GeluBackward0` and its gradient, the module's printed form.
#[test]
fn gelu_and_erf_as_pytorch() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "x = tensor([-1., 0., 1., 2.], dtype=f64, requires_grad=true)\ny = gelu(x)\ny.sum().backward()",
    );
    // PyTorch 2.15 (float64): gelu and its gradient.
    assert_eq!(
        common::ok_in(&mut s, "y.tolist()"),
        "[-0.15865525393145702, 0.0, 0.841344746068543, 1.9544997361036416]"
    );
    assert_eq!(
        common::ok_in(&mut s, "x.grad.tolist()"),
        "[-0.08331547058768635, 0.5, 1.0833154705876864, 1.085231801078197]"
    );
    assert!(common::ok_in(&mut s, "y").contains("grad_fn=<GeluBackward0>"));
    assert_eq!(
        common::ok_in(
            &mut s,
            "gelu(tensor([1.], dtype=f64), approximate=\"tanh\").tolist()"
        ),
        "[0.8411919906082768]"
    );
    assert_eq!(
        common::ok_in(&mut s, "erf(tensor([0.5], dtype=f64)).tolist()"),
        "[0.5204998778130465]"
    );
    assert!(common::ok_in(
        &mut s,
        "Sequential(Linear(2, 2), GELU(approximate=\"tanh\"))"
    )
    .contains("(1): GELU(approximate='tanh')"));
    let (class, msg) = common::err_in(&mut s, "gelu(arange(3))");
    assert_eq!(class, "DTypeError");
    assert!(msg.contains("GeluKernelImpl"), "{msg}");
}

/// Dropout2d zeroes whole channels in training, passes its input in eval,
/// and records `MulBackward0` (PyTorch's feature dropout).
#[test]
fn dropout2d_zeroes_whole_channels() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "seed(3)\nd = Dropout2d(0.5)\nx = ones(4, 8, 3, 3, requires_grad=true)\ny = d(x)",
    );
    // Each channel is all zeros or all 2s: its 9 elements sum to 0 or 18.
    assert_eq!(
        common::ok_in(&mut s, "s = y.sum((2, 3))\n((s == 0) | (s == 18)).all()"),
        "true  bool[] @cpu"
    );
    assert_eq!(
        common::ok_in(&mut s, "(s == 0).any() and (s == 18).any()"),
        "true  bool[] @cpu"
    );
    assert!(common::ok_in(&mut s, "y").contains("grad_fn=<MulBackward0>"));
    assert_eq!(
        common::ok_in(&mut s, "d"),
        "Dropout2d(p=0.5, inplace=False)\n# 0 parameters (0 B), training"
    );
    common::ok_in(&mut s, "d.eval()");
    assert_eq!(
        common::ok_in(&mut s, "(d(x) == x).all()"),
        "true  bool[] @cpu"
    );
    let (_, msg) = common::err_in(&mut s, "dropout2d(ones(4), 0.5)");
    assert!(
        msg.contains("Feature dropout requires at least 2 dimensions in the input"),
        "{msg}"
    );
}

/// Embedding's padding row starts as zeros and gets no gradient.
#[test]
fn embedding_padding_idx_as_pytorch() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "e = Embedding(5, 3, padding_idx=-4)\ny = e(tensor([[0, 1, 2], [1, 1, 4]]))\ny.sum().backward()",
    );
    assert_eq!(
        common::ok_in(&mut s, "(e.weight[1] == 0).all()"),
        "true  bool[] @cpu"
    );
    assert_eq!(
        common::ok_in(&mut s, "e.weight.grad.sum(1)"),
        "[3., 0., 3., 0., 3.]  f32[5] @cpu"
    );
    assert!(common::ok_in(&mut s, "e").starts_with("Embedding(5, 3, padding_idx=1)"));
    let (_, msg) = common::err_in(&mut s, "Embedding(5, 3, padding_idx=5)");
    assert_eq!(msg, "Padding_idx must be within num_embeddings");
}

/// An empty batch goes through a convolution and a max pooling, both ways,
/// as PyTorch's: empty outputs and input gradient, zero weight gradient.
#[test]
fn an_empty_batch_convolves_and_pools() {
    let out = common::ok(
        "x = randn(0, 2, 5, 5, requires_grad=true)\n\
         m = Conv2d(2, 3, 3)\n\
         y = max_pool2d(m(x), 2)\n\
         y.sum().backward()\n\
         print(y.shape, x.grad.shape, m.weight.grad.abs().sum().item(), m.bias.grad.abs().sum().item())",
    );
    assert_eq!(
        out.trim_end(),
        "torch.Size([0, 3, 1, 1]) torch.Size([0, 2, 5, 5]) 0.0 0.0"
    );
}

/// `nn.LeakyReLU` and `F.leaky_relu`: values, `LeakyReluBackward0` and its
/// gradient, the printed module (figures from PyTorch 2.15).
#[test]
fn leaky_relu_as_pytorch() {
    let out = common::ok(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\
         x = torch.tensor([-1.5, 0.0, 2.0, -0.3], requires_grad=True)\n\
         m = nn.LeakyReLU(0.2)\ny = m(x)\n\
         (y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()\n\
         print(m, y.grad_fn.name(), y.tolist(), x.grad.tolist())\n\
         print(nn.LeakyReLU(), F.leaky_relu(x, 0.1).tolist())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "LeakyReLU(negative_slope=0.2) LeakyReluBackward0 [-0.30000001192092896, 0.0, 2.0, -0.06000000238418579] [0.20000000298023224, 0.4000000059604645, 3.0, 0.800000011920929]",
            "LeakyReLU(negative_slope=0.01) [-0.15000000596046448, 0.0, 2.0, -0.030000001192092896]",
        ]
    );
}

/// `nn.LSTM`'s weights are drawn as PyTorch's `reset_parameters` draws
/// them: every parameter uniform within 1/sqrt(hidden_size), one after the
/// other in registration order (the same draws as `uniform_` of those
/// shapes; PyTorch prints the same line).
#[test]
fn recurrent_weights_are_drawn_in_pytorchs_order() {
    let out = common::ok(
        "import torch\nimport torch.nn as nn\n\
         torch.manual_seed(0)\nm = nn.LSTM(3, 2, bidirectional=True)\n\
         torch.manual_seed(0)\nsame = []\n\
         for n, p in m.named_parameters():\n    \
             u = torch.empty(p.shape).uniform_(-1 / 2 ** 0.5, 1 / 2 ** 0.5)\n    \
             same.append(torch.equal(u, p))\n\
         print([n for n, _ in m.named_parameters()], all(same), len(same))",
    );
    assert_eq!(
        out.trim(),
        "['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse', \
         'weight_hh_l0_reverse', 'bias_ih_l0_reverse', 'bias_hh_l0_reverse'] True 8"
    );
}

/// An LSTM's graph is PyTorch's composed cpu graph (as PyTorch records it
/// in float64, where oneDNN's fused layer is not used): `StackBackward0`
/// over each step's `MulBackward0`; `batch_first` a transpose, in place for
/// a GRU (`TransposeBackward1`); backward frees it.
#[test]
fn an_lstms_graph_is_pytorchs_and_backward_frees_it() {
    let out = common::ok(
        "import torch\nimport torch.nn as nn\n\
         lstm = nn.LSTM(3, 4).double()\n\
         x = torch.randn(5, 2, 3, requires_grad=True, dtype=torch.float64)\n\
         out, (h, c) = lstm(x)\n\
         f = out.grad_fn.next_functions[0][0]\n\
         print(out.grad_fn.name(), len(out.grad_fn.next_functions), f.name(), \
         [n[0].name() for n in f.next_functions], h.grad_fn.name(), c.grad_fn.name())\n\
         out1, _ = nn.LSTM(3, 4, batch_first=True).double()(x)\n\
         out2, _ = nn.GRU(3, 4, batch_first=True).double()(x)\n\
         print(out1.grad_fn.name(), out2.grad_fn.name(), out2.grad_fn.next_functions[0][0].name())\n\
         (out.sum() + c.sum()).backward()\n\
         print(x.grad.shape, lstm.weight_hh_l0.grad.shape)\n\
         try:\n    out.sum().backward()\nexcept RuntimeError as e:\n    print('again:', str(e)[:40])",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "StackBackward0 5 MulBackward0 ['SigmoidBackward0', 'TanhBackward0'] StackBackward0 StackBackward0"
    );
    assert_eq!(
        lines[1],
        "TransposeBackward0 TransposeBackward1 StackBackward0"
    );
    assert_eq!(lines[2], "torch.Size([5, 2, 3]) torch.Size([16, 4])");
    assert_eq!(lines[3], "again: Trying to backward through the graph a s");
}

/// A wrong hidden state is PyTorch's message, at the call (a RuntimeError,
/// which cudash names ShapeError).
#[test]
fn a_wrong_hidden_state_is_pytorchs_error() {
    let (class, message) = common::err(
        "import torch\nimport torch.nn as nn\n\
         gru = nn.GRU(3, 4)\ngru(torch.randn(5, 2, 3), torch.zeros(1, 3, 4))",
    );
    assert_eq!(class, "ShapeError");
    assert!(
        message.contains("Expected hidden size (1, 2, 4), got [1, 3, 4]"),
        "{message}"
    );
}

/// `apply(fn)` visits in PyTorch's order — each child's modules first, then
/// the module; a module shared by two parents twice — so that an
/// initialisation written with it (nanoGPT's `_init_weights`) draws the
/// same numbers as PyTorch. Expected lines: PyTorch 2.15's.
#[test]
fn apply_visits_children_first_in_pytorchs_order() {
    let out = common::script_lines_on(
        0,
        "apply_order",
        r#"import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(4)
        self.fc = nn.Linear(4, 4)
        self.act = nn.GELU()

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        shared = nn.Linear(4, 4)
        self.body = nn.ModuleDict(dict(emb=nn.Embedding(8, 4), h=nn.ModuleList([Block(), Block()]), again=shared))
        self.head = shared

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            torch.nn.init.normal_(m.weight, mean=0.0, std=0.02)
        elif isinstance(m, nn.Embedding):
            torch.nn.init.normal_(m.weight, mean=0.0, std=0.02)

torch.manual_seed(0)
net = Net()
seen = []
net.apply(lambda m: seen.append(type(m).__name__))
print(seen)
net.apply(net._init_weights)
print([round(p.sum().item(), 4) for p in net.parameters()])
"#,
    );
    assert_eq!(
        out,
        [
            "['Embedding', 'LayerNorm', 'Linear', 'GELU', 'Block', 'LayerNorm', 'Linear', 'GELU', 'Block', 'ModuleList', 'Linear', 'ModuleDict', 'Linear', 'Net']",
            "[-0.0808, 4.0, 0.0, -0.0851, 0.2217, 4.0, 0.0, 0.1781, 0.3323, -0.1689, -0.059]",
        ]
    );
}
