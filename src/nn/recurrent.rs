//! The recurrent layers `LSTM`, `GRU`, `RNN` and their cells, composed of
//! recorded ops as PyTorch's own implementation composes them
//! (`aten/src/ATen/native/RNN.cpp`, the path of every device but cuDNN's):
//! each layer's input projection for the whole sequence at once
//! (`linear`), split into steps (`UnbindBackward0`); each step the hidden
//! projection added to the step's part (`AddBackward0`), the gates split
//! (`UnsafeSplitBackward0`) and combined; the steps' outputs stacked
//! (`StackBackward0`), a bidirectional layer's two directions joined
//! (`CatBackward0`), `batch_first` a transpose at each end.
//!
//! That is PyTorch's graph for a GRU and an RNN on the cpu, and for an
//! LSTM in float64 or with oneDNN off; a float32 LSTM on PyTorch's cpu is
//! oneDNN's fused layer (`MkldnnRnnLayerBackward0`), and on a GPU every
//! recurrence is one cuDNN call (`CudnnRnnBackward0`). cudash composes it
//! everywhere (docs/modules.md says so to the user).

use std::sync::Arc;

use super::layer::{Layer, Recurrence, Recurrent, RecurrentCell};
use super::layers::{uniform, Place};
use super::module::Module;
use crate::autograd::node::Backward;
use crate::autograd::{functional, ops, record, views, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::view;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// A recurrence's state: the hidden state `h`, and an LSTM's cell state `c`.
#[derive(Clone)]
pub struct Hidden {
    pub h: Arc<Tensor>,
    pub c: Option<Arc<Tensor>>,
}

/// The weights of one direction of one layer (or of a cell).
pub(super) struct Weights {
    pub(super) w_ih: Arc<Tensor>,
    pub(super) w_hh: Arc<Tensor>,
    pub(super) b_ih: Option<Arc<Tensor>>,
    pub(super) b_hh: Option<Arc<Tensor>>,
}

/// PyTorch's `reset_parameters`: every parameter uniform within
/// `1 / sqrt(hidden_size)`, drawn in registration order.
fn bound(hidden_size: usize) -> f64 {
    1.0 / (hidden_size as f64).sqrt()
}

/// `LSTM(...)`, `GRU(...)`, `RNN(...)`: for each layer and direction
/// `weight_ih_l{k}[_reverse]` [gates * hidden, input], `weight_hh_l{k}`
/// [gates * hidden, hidden] and (with `bias`) `bias_ih_l{k}`,
/// `bias_hh_l{k}` [gates * hidden], as PyTorch registers and draws them.
pub fn recurrent(rt: &mut Runtime, spec: Recurrent, at: Place) -> R<Module> {
    let rows = spec.kind.gates() * spec.hidden_size;
    let b = bound(spec.hidden_size);
    let mut m = Module::new(&spec.kind.class(false), Layer::Recurrent(spec.clone()));
    for layer in 0..spec.num_layers {
        for dir in 0..spec.directions() {
            let suffix = format!("_l{layer}{}", if dir == 1 { "_reverse" } else { "" });
            let input = match layer {
                0 => spec.input_size,
                _ => spec.hidden_size * spec.directions(),
            };
            let w_ih = uniform(rt, &[rows, input], b, at)?;
            m.set_parameter(&format!("weight_ih{suffix}"), Some(w_ih))?;
            let w_hh = uniform(rt, &[rows, spec.hidden_size], b, at)?;
            m.set_parameter(&format!("weight_hh{suffix}"), Some(w_hh))?;
            if spec.bias {
                let b_ih = uniform(rt, &[rows], b, at)?;
                m.set_parameter(&format!("bias_ih{suffix}"), Some(b_ih))?;
                let b_hh = uniform(rt, &[rows], b, at)?;
                m.set_parameter(&format!("bias_hh{suffix}"), Some(b_hh))?;
            }
        }
    }
    Ok(m)
}

/// `LSTMCell(...)`, `GRUCell(...)`, `RNNCell(...)`: `weight_ih`,
/// `weight_hh`, `bias_ih`, `bias_hh` (none without `bias`).
pub fn cell(rt: &mut Runtime, spec: RecurrentCell, at: Place) -> R<Module> {
    let rows = spec.kind.gates() * spec.hidden_size;
    let b = bound(spec.hidden_size);
    let mut m = Module::new(&spec.kind.class(true), Layer::RecurrentCell(spec.clone()));
    let w_ih = uniform(rt, &[rows, spec.input_size], b, at)?;
    m.set_parameter("weight_ih", Some(w_ih))?;
    let w_hh = uniform(rt, &[rows, spec.hidden_size], b, at)?;
    m.set_parameter("weight_hh", Some(w_hh))?;
    for name in ["bias_ih", "bias_hh"] {
        let p = match spec.bias {
            true => Some(uniform(rt, &[rows], b, at)?),
            false => None,
        };
        m.set_parameter(name, p)?;
    }
    Ok(m)
}

fn param(m: &Module, name: &str) -> Option<Arc<Tensor>> {
    m.tensor_named(name)
}

pub(super) fn weights(m: &Module, suffix: &str) -> R<Weights> {
    let need = |name: String| {
        param(m, &name).ok_or_else(|| Error::value(format!("{} has no `{name}`", m.type_name)))
    };
    Ok(Weights {
        w_ih: need(format!("weight_ih{suffix}"))?,
        w_hh: need(format!("weight_hh{suffix}"))?,
        b_ih: param(m, &format!("bias_ih{suffix}")),
        b_hh: param(m, &format!("bias_hh{suffix}")),
    })
}

/// `(1, 2, 4)`, as Python prints a tuple of sizes.
pub(super) fn tuple(dims: &[usize]) -> String {
    let items: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("({})", items.join(", "))
}

/// `[1, 2, 4]`, as Python prints `list(t.size())`.
pub(super) fn list(dims: &[usize]) -> String {
    let items: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `rnn(input, hx)`: the output of the last layer at every step, and the
/// last step's state of every layer and direction (`h_n`, and `c_n` for an
/// LSTM), with PyTorch's checks and messages.
pub fn forward(
    rt: &mut Runtime,
    mode: Mode,
    m: &Module,
    x: &Arc<Tensor>,
    hx: Option<Hidden>,
) -> R<(Arc<Tensor>, Hidden)> {
    let Layer::Recurrent(spec) = &m.layer else {
        return Err(Error::value("internal error: not a recurrent layer"));
    };
    let lstm = spec.kind == Recurrence::Lstm;
    let name = spec.kind.class(false);
    if !matches!(x.ndim(), 2 | 3) {
        return Err(Error::value(format!(
            "{name}: Expected input to be 2D or 3D, got {}D instead",
            x.ndim()
        )));
    }
    let batched = x.ndim() == 3;
    let batch_dim = if spec.batch_first { 0 } else { 1 };
    let x = match batched {
        true => Arc::clone(x),
        false => views::unsqueeze(rt, mode, x, batch_dim)?,
    };
    let batch = x.shape()[batch_dim as usize];
    let expected = [spec.num_layers * spec.directions(), batch, spec.hidden_size];
    let hx = match hx {
        None => {
            let zeros = |rt: &mut Runtime| ops::full(rt, &expected, x.dtype(), x.device(), 0);
            let h = zeros(rt)?;
            let c = match lstm {
                true => Some(zeros(rt)?),
                false => None,
            };
            Hidden { h, c }
        }
        Some(hx) => given_state(rt, mode, &name, hx, batched)?,
    };
    check_input(m, spec, mode, &x)?;
    match &hx.c {
        None if hx.h.shape() != expected => {
            return Err(Error::shape(format!(
                "Expected hidden size {}, got {}",
                tuple(&expected),
                list(hx.h.shape())
            )))
        }
        Some(c) => {
            for (k, t) in [(0, &hx.h), (1, c)] {
                if t.shape() != expected {
                    return Err(Error::shape(format!(
                        "Expected hidden[{k}] size {}, got {}",
                        tuple(&expected),
                        list(t.shape())
                    )));
                }
            }
        }
        None => {}
    }
    // `_VF.lstm` / `_VF.gru` / `_VF.rnn_tanh` from here.
    let input = match spec.batch_first {
        true => transpose01(rt, mode, &x, "TransposeBackward0"),
        false => x,
    };
    let kind = spec.kind;
    let (layer_input, Hidden { h: h_n, c: c_n }) = layer_stack(
        rt,
        mode,
        m,
        spec,
        input,
        &hx,
        &mut |rt, x, state, w, reverse| {
            let (steps, last) = direction(rt, mode, kind, x, state, w, reverse)?;
            Ok((join(rt, mode, &steps, 0, true)?, last))
        },
    )?;
    // RNN.cpp turns an LSTM's output with `transpose`, a GRU's or an RNN's
    // with `transpose_` in place (`TransposeBackward1`).
    let output = match spec.batch_first {
        true => {
            let name = match lstm {
                true => "TransposeBackward0",
                false => "TransposeBackward1",
            };
            transpose01(rt, mode, &layer_input, name)
        }
        false => layer_input,
    };
    if batched {
        return Ok((output, Hidden { h: h_n, c: c_n }));
    }
    let output = views::squeeze(rt, mode, &output, batch_dim)?;
    let h = views::squeeze(rt, mode, &h_n, 1)?;
    let c = c_n.map(|c| views::squeeze(rt, mode, &c, 1)).transpose()?;
    Ok((output, Hidden { h, c }))
}

/// One direction of one layer over the whole input: its output and last
/// state, given the layer's input, its initial state, its weights and
/// whether it runs backward in time.
pub(super) type Direction<'a> =
    dyn FnMut(&mut Runtime, &Arc<Tensor>, Hidden, &Weights, bool) -> R<(Arc<Tensor>, Hidden)> + 'a;

/// The layers stacked, as RNN.cpp's `apply_layer_stack`: each layer's
/// directions run on the layer's input (`run`), a bidirectional layer's
/// outputs joined on the last dim, dropout between layers in training;
/// the last states of every layer and direction stacked (`h_n`, `c_n`).
pub(super) fn layer_stack(
    rt: &mut Runtime,
    mode: Mode,
    m: &Module,
    spec: &Recurrent,
    input: Arc<Tensor>,
    hx: &Hidden,
    run: &mut Direction<'_>,
) -> R<(Arc<Tensor>, Hidden)> {
    let hs = unbind0(rt, mode, &hx.h)?;
    let cs: Vec<Option<Arc<Tensor>>> = match &hx.c {
        Some(c) => unbind0(rt, mode, c)?.into_iter().map(Some).collect(),
        None => vec![None; hs.len()],
    };
    let mut layer_input = input;
    let (mut final_h, mut final_c) = (Vec::new(), Vec::new());
    for layer in 0..spec.num_layers {
        let mut outputs = Vec::new();
        for dir in 0..spec.directions() {
            let k = layer * spec.directions() + dir;
            let suffix = format!("_l{layer}{}", if dir == 1 { "_reverse" } else { "" });
            let w = weights(m, &suffix)?;
            let state = Hidden {
                h: Arc::clone(&hs[k]),
                c: cs[k].clone(),
            };
            let (out, last) = run(rt, &layer_input, state, &w, dir == 1)?;
            outputs.push(out);
            final_h.push(last.h);
            final_c.extend(last.c);
        }
        layer_input = match outputs.len() {
            1 => outputs.remove(0),
            _ => {
                let last = outputs[0].ndim() as i64 - 1;
                join(rt, mode, &outputs, last, false)?
            }
        };
        if spec.dropout != 0.0 && m.training && layer + 1 < spec.num_layers {
            layer_input = functional::dropout(rt, mode, &layer_input, spec.dropout, true)?;
        }
    }
    let h = join(rt, mode, &final_h, 0, true)?;
    let c = match spec.kind == Recurrence::Lstm {
        true => Some(join(rt, mode, &final_c, 0, true)?),
        false => None,
    };
    Ok((layer_input, Hidden { h, c }))
}

/// The state a program gave: of the input's dimensions (an unbatched
/// state gets its batch of one), as PyTorch's `forward` checks it.
fn given_state(rt: &mut Runtime, mode: Mode, name: &str, hx: Hidden, batched: bool) -> R<Hidden> {
    if hx.c.is_some() && name != "LSTM" {
        return Err(one_state(name));
    }
    let want = if batched { 3 } else { 2 };
    let what = if batched {
        "batched 3-D"
    } else {
        "unbatched 2-D"
    };
    match &hx.c {
        Some(c) if hx.h.ndim() != want || c.ndim() != want => {
            return Err(Error::shape(format!(
                "For {what} input, hx and cx should also be {want}-D but got ({}-D, {}-D) tensors",
                hx.h.ndim(),
                c.ndim()
            )))
        }
        None if name == "LSTM" => {
            return Err(Error::Module {
                class: "TypeError",
                message: "LSTM's hx is a tuple of two tensors, (h_0, c_0)".into(),
                help: Some("give both states: `lstm(x, (h0, c0))`".into()),
            })
        }
        None if hx.h.ndim() != want => {
            return Err(Error::shape(format!(
                "For {what} input, hx should also be {want}-D but got {}-D tensor",
                hx.h.ndim()
            )))
        }
        _ => {}
    }
    if batched {
        return Ok(hx);
    }
    Ok(Hidden {
        h: views::unsqueeze(rt, mode, &hx.h, 1)?,
        c: hx
            .c
            .map(|c| views::unsqueeze(rt, mode, &c, 1))
            .transpose()?,
    })
}

/// A GRU's or an RNN's state is one tensor (an LSTM's a pair).
fn one_state(name: &str) -> Error {
    Error::Module {
        class: "TypeError",
        message: format!("{name}'s hx is one tensor, not a tuple"),
        help: Some("a tuple (h_0, c_0) is an LSTM's state".into()),
    }
}

/// `RNNBase.check_input`: the input's dtype is the weights' (outside
/// autocast), its last size `input_size`.
pub(super) fn check_input(m: &Module, spec: &Recurrent, mode: Mode, x: &Tensor) -> R<()> {
    let autocast = mode.autocast.cuda.is_some() || mode.autocast.cpu.is_some();
    if let Some(w) = param(m, "weight_ih_l0") {
        if x.dtype() != w.dtype() && !autocast {
            let (xd, wd) = (x.dtype().pytorch_name(), w.dtype().pytorch_name());
            return Err(Error::value(format!(
                "RNN input dtype ({xd}) does not match weight dtype ({wd}). \
                 Convert input: input.to({wd}), or convert model: model.to({xd})"
            )));
        }
    }
    let last = x.shape()[x.ndim() - 1];
    if last != spec.input_size {
        return Err(Error::shape(format!(
            "input.size(-1) must be equal to input_size. Expected {}, got {last}",
            spec.input_size
        )));
    }
    Ok(())
}

/// One direction of one layer over the whole sequence: the outputs of
/// every step (in the input's order) and the last state.
fn direction(
    rt: &mut Runtime,
    mode: Mode,
    kind: Recurrence,
    input: &Arc<Tensor>,
    mut state: Hidden,
    w: &Weights,
    reverse: bool,
) -> R<(Vec<Arc<Tensor>>, Hidden)> {
    let projected = functional::linear(rt, mode, input, &w.w_ih, w.b_ih.as_ref())?;
    let mut steps = unbind0(rt, mode, &projected)?;
    drop(projected);
    if steps.is_empty() {
        return Err(Error::shape(
            "Expected sequence length to be larger than 0 in RNN",
        ));
    }
    if reverse {
        steps.reverse();
    }
    let mut outputs = Vec::with_capacity(steps.len());
    for x in steps {
        state = step(rt, mode, kind, &x, &state, w)?;
        outputs.push(Arc::clone(&state.h));
    }
    if reverse {
        outputs.reverse();
    }
    Ok((outputs, state))
}

/// One step of the recurrence, the input already projected (`xw`, the
/// input's gates), as RNN.cpp's cells compute it.
pub(super) fn step(
    rt: &mut Runtime,
    mode: Mode,
    kind: Recurrence,
    xw: &Arc<Tensor>,
    state: &Hidden,
    w: &Weights,
) -> R<Hidden> {
    let hw = functional::linear(rt, mode, &state.h, &w.w_hh, w.b_hh.as_ref())?;
    let bin = |rt: &mut Runtime, op: BinaryOp, a: &Tensor, b: &Tensor| {
        record::binary(rt, mode, op, Operand::strong(a), Operand::strong(b))
    };
    let un = |rt: &mut Runtime, op: UnaryOp, a: &Tensor| record::unary(rt, mode, op, a);
    match kind {
        Recurrence::RnnTanh | Recurrence::RnnRelu => {
            let sum = bin(rt, BinaryOp::Add, &hw, xw)?;
            let op = match kind {
                Recurrence::RnnRelu => UnaryOp::Relu,
                _ => UnaryOp::Tanh,
            };
            Ok(Hidden {
                h: un(rt, op, &sum)?,
                c: None,
            })
        }
        Recurrence::Lstm => {
            let gates = bin(rt, BinaryOp::Add, &hw, xw)?;
            drop(hw);
            let g = unsafe_chunk(rt, mode, &gates, 4)?;
            drop(gates);
            let input_gate = un(rt, UnaryOp::Sigmoid, &g[0])?;
            let forget_gate = un(rt, UnaryOp::Sigmoid, &g[1])?;
            let cell_gate = un(rt, UnaryOp::Tanh, &g[2])?;
            let output_gate = un(rt, UnaryOp::Sigmoid, &g[3])?;
            drop(g);
            let cx = state.c.as_ref().ok_or_else(|| {
                Error::value("internal error: an LSTM step without its cell state")
            })?;
            let kept = bin(rt, BinaryOp::Mul, &forget_gate, cx)?;
            let new = bin(rt, BinaryOp::Mul, &input_gate, &cell_gate)?;
            let c = bin(rt, BinaryOp::Add, &kept, &new)?;
            drop((kept, new));
            let squashed = un(rt, UnaryOp::Tanh, &c)?;
            let h = bin(rt, BinaryOp::Mul, &output_gate, &squashed)?;
            Ok(Hidden { h, c: Some(c) })
        }
        Recurrence::Gru => {
            let ig = unsafe_chunk(rt, mode, xw, 3)?;
            let hg = unsafe_chunk(rt, mode, &hw, 3)?;
            drop(hw);
            let r_sum = bin(rt, BinaryOp::Add, &hg[0], &ig[0])?;
            let reset_gate = un(rt, UnaryOp::Sigmoid, &r_sum)?;
            let z_sum = bin(rt, BinaryOp::Add, &hg[1], &ig[1])?;
            let input_gate = un(rt, UnaryOp::Sigmoid, &z_sum)?;
            drop((r_sum, z_sum));
            let reset = bin(rt, BinaryOp::Mul, &hg[2], &reset_gate)?;
            let n_sum = bin(rt, BinaryOp::Add, &ig[2], &reset)?;
            let new_gate = un(rt, UnaryOp::Tanh, &n_sum)?;
            drop((reset, n_sum, ig, hg));
            let diff = bin(rt, BinaryOp::Sub, &state.h, &new_gate)?;
            let scaled = bin(rt, BinaryOp::Mul, &diff, &input_gate)?;
            let h = bin(rt, BinaryOp::Add, &scaled, &new_gate)?;
            Ok(Hidden { h, c: None })
        }
    }
}

/// `cell(input, hx)`: one step, with PyTorch's checks and messages.
pub fn cell_forward(
    rt: &mut Runtime,
    mode: Mode,
    m: &Module,
    x: &Arc<Tensor>,
    hx: Option<Hidden>,
) -> R<Hidden> {
    let Layer::RecurrentCell(spec) = &m.layer else {
        return Err(Error::value("internal error: not a recurrent cell"));
    };
    let name = spec.kind.class(true);
    let lstm = spec.kind == Recurrence::Lstm;
    if !matches!(x.ndim(), 1 | 2) {
        return Err(Error::value(format!(
            "{name}: Expected input to be 1D or 2D, got {}D instead",
            x.ndim()
        )));
    }
    if let Some(hx) = &hx {
        if hx.c.is_some() && !lstm {
            return Err(one_state(&name));
        }
        let states: Vec<&Arc<Tensor>> = std::iter::once(&hx.h).chain(hx.c.as_ref()).collect();
        for (k, t) in states.iter().enumerate() {
            if !matches!(t.ndim(), 1 | 2) {
                let what = match lstm {
                    true => format!("hx[{k}]"),
                    false => "hidden".into(),
                };
                return Err(Error::value(format!(
                    "{name}: Expected {what} to be 1D or 2D, got {}D instead",
                    t.ndim()
                )));
            }
        }
        if lstm && hx.c.is_none() {
            return Err(Error::Module {
                class: "TypeError",
                message:
                    "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor"
                        .into(),
                help: Some("give both states: `cell(x, (h, c))`".into()),
            });
        }
    }
    let batched = x.ndim() == 2;
    let x = match batched {
        true => Arc::clone(x),
        false => views::unsqueeze(rt, mode, x, 0)?,
    };
    let hx = match hx {
        None => {
            let shape = [x.shape()[0], spec.hidden_size];
            let h = ops::full(rt, &shape, x.dtype(), x.device(), 0)?;
            let c = lstm.then(|| Arc::clone(&h));
            Hidden { h, c }
        }
        Some(hx) if batched => hx,
        Some(hx) => Hidden {
            h: views::unsqueeze(rt, mode, &hx.h, 0)?,
            c: hx
                .c
                .map(|c| views::unsqueeze(rt, mode, &c, 0))
                .transpose()?,
        },
    };
    // `_VF.lstm_cell`'s checks.
    if x.shape()[1] != spec.input_size {
        return Err(Error::shape(format!(
            "input has inconsistent input_size: got {} expected {}",
            x.shape()[1],
            spec.input_size
        )));
    }
    let states: Vec<&Arc<Tensor>> = std::iter::once(&hx.h).chain(hx.c.as_ref()).collect();
    for (k, t) in states.iter().enumerate() {
        let rows = t.shape().first().copied().unwrap_or(0);
        let cols = t.shape().get(1).copied().unwrap_or(0);
        if k == 0 && rows != x.shape()[0] {
            return Err(Error::shape(format!(
                "Input batch size {} doesn't match hidden0 batch size {rows}",
                x.shape()[0]
            )));
        }
        if cols != spec.hidden_size {
            return Err(Error::shape(format!(
                "hidden{k} has inconsistent hidden_size: got {cols}, expected {}",
                spec.hidden_size
            )));
        }
    }
    let w = weights(m, "")?;
    if x.dtype() != w.w_ih.dtype() {
        return Err(Error::shape(format!(
            "mat1 and mat2 must have the same dtype, but got {} and {}",
            x.dtype().scalar_name(),
            w.w_ih.dtype().scalar_name()
        )));
    }
    let xw = functional::linear(rt, mode, &x, &w.w_ih, w.b_ih.as_ref())?;
    let out = step(rt, mode, spec.kind, &xw, &hx, &w)?;
    if batched {
        return Ok(out);
    }
    Ok(Hidden {
        h: views::squeeze(rt, mode, &out.h, 0)?,
        c: out.c.map(|c| views::squeeze(rt, mode, &c, 0)).transpose()?,
    })
}

/// `x.unbind(0)`, recorded (`UnbindBackward0`).
pub(super) fn unbind0(rt: &Runtime, mode: Mode, x: &Tensor) -> R<Vec<Arc<Tensor>>> {
    let parts: Vec<Arc<Tensor>> = view::unbind(x, 0)?.into_iter().map(Arc::new).collect();
    let backward = Backward::Split {
        dim: 0,
        sizes: vec![1; parts.len()],
        stacked: true,
    };
    Ok(record::attach_parts(
        rt,
        mode,
        x,
        parts,
        ("UnbindBackward0", backward),
    ))
}

/// `x.unsafe_chunk(n, 1)`, recorded (`UnsafeSplitBackward0`).
fn unsafe_chunk(rt: &Runtime, mode: Mode, x: &Tensor, n: i64) -> R<Vec<Arc<Tensor>>> {
    let parts: Vec<Arc<Tensor>> = view::chunk(x, n, 1)?.into_iter().map(Arc::new).collect();
    let sizes = parts.iter().map(|p| p.shape()[1]).collect();
    let backward = Backward::Split {
        dim: 1,
        sizes,
        stacked: false,
    };
    Ok(record::attach_parts(
        rt,
        mode,
        x,
        parts,
        ("UnsafeSplitBackward0", backward),
    ))
}

/// `stack(xs, dim)` or `cat(xs, dim)`, recorded.
pub(super) fn join(
    rt: &mut Runtime,
    mode: Mode,
    xs: &[Arc<Tensor>],
    dim: i64,
    stack: bool,
) -> R<Arc<Tensor>> {
    let refs: Vec<&Tensor> = xs.iter().map(|t| &**t).collect();
    let out = rt.join(&refs, dim, stack)?;
    record::join(rt, mode, &refs, out, dim, stack)
}

fn transpose01(rt: &Runtime, mode: Mode, x: &Tensor, name: &'static str) -> Arc<Tensor> {
    let out = Arc::new(x.transpose(0, 1));
    let backward = Backward::Transpose { d0: 0, d1: 1 };
    record::attach_node(rt, mode, out, name, backward, &[x])
}
