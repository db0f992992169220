//! What a node saved, under the names PyTorch gives it (`derivatives.yaml`'s
//! arguments: `y.grad_fn._saved_self`, `_saved_other`, `_saved_result`,
//! `_saved_mat2`, ...), for a program that looks at its graph.

use std::any::Any;
use std::sync::Arc;

use super::create_graph::Source;
use super::node::{Backward, Node, Saved};
use super::saved_hooks::PackCell;
use crate::error::Error;
use crate::runtime::Tensor;

/// One `_saved_<name>` of a node, read out of it.
pub enum SavedAttr {
    /// Not saved this time (`_saved_self` of `a * b` when `b` needs no
    /// gradient): Python's None.
    Unset,
    /// A number the formula keeps (`_saved_exponent`, `_saved_dim`).
    Number(f64),
    /// A tensor as saved: for an input, its autograd record while the
    /// input lives (the same variable: `_saved_self is a`).
    Held {
        tensor: Arc<Tensor>,
        record: Option<Arc<dyn Any + Send + Sync>>,
        source: Source,
    },
    /// A tensor saved under the program's hooks: `unpack` gives it back.
    Hooked { cell: Arc<PackCell>, source: Source },
}

/// A tensor attribute: the saved variable and which of the node's
/// tensors it is.
type Field<'a> = (&'static str, Option<&'a Saved>, Source);

impl Backward {
    /// The names of what this node saved (`node` is its PyTorch name:
    /// `MmBackward0` and `DotBackward0` save the same two tensors under
    /// other names), and the numbers its formula keeps.
    fn named(&self, node: &str) -> (Vec<Field<'_>>, Vec<(&'static str, f64)>) {
        use Backward::*;
        use Source::{Input, Output};
        let result = |s: &Saved| match s.is_output() {
            true => ("result", Output(0)),
            false => ("self", Input(0)),
        };
        let fields: Vec<Field<'_>> = match self {
            Mul { a, b } | Remainder { a, b, .. } => {
                vec![
                    ("self", a.as_ref(), Input(0)),
                    ("other", b.as_ref(), Input(1)),
                ]
            }
            Div { a, b } => vec![("self", a.as_ref(), Input(0)), ("other", Some(b), Input(1))],
            PowScalar { x, e } => {
                return (vec![("self", Some(x), Input(0))], vec![("exponent", *e)]);
            }
            Pow { x, y, out } => vec![
                ("self", Some(x), Input(0)),
                ("exponent", Some(y), Input(1)),
                ("result", out.as_ref(), Output(0)),
            ],
            ScalarPow { out, .. } | Reciprocal { out } => vec![("result", Some(out), Output(0))],
            Extreme { x, out } => vec![
                ("self", Some(x), Input(0)),
                ("result", Some(out), Output(0)),
            ],
            Softmax { out, dim } | LogSoftmax { out, dim } => {
                return (
                    vec![("result", Some(out), Output(0))],
                    vec![("dim", *dim as f64)],
                );
            }
            MatMul { a, b, .. } => {
                let second = match node {
                    "MvBackward0" => "vec",
                    "DotBackward0" => "tensor",
                    _ => "mat2",
                };
                vec![
                    ("self", a.as_ref(), Input(0)),
                    (second, b.as_ref(), Input(1)),
                ]
            }
            Addmm { x, w } => vec![
                ("mat1", x.as_ref(), Input(1)),
                ("mat2", w.as_ref(), Input(2)),
            ],
            MseLoss { x, y, .. } => {
                vec![("self", Some(x), Input(0)), ("target", Some(y), Input(1))]
            }
            Where { cond } => vec![("condition", Some(cond), Input(0))],
            Convolution { x, w, .. } => {
                vec![("input", Some(x), Input(0)), ("weight", Some(w), Input(1))]
            }
            LayerNorm {
                x,
                weight,
                mean,
                rstd,
                ..
            } => vec![
                ("input", Some(x), Input(0)),
                ("weight", weight.as_ref(), Input(1)),
                ("result1", Some(mean), Output(1)),
                ("result2", Some(rstd), Output(2)),
            ],
            NativeDropout { mask, .. } => vec![("result1", Some(mask), Output(1))],
            FusedAttention {
                q,
                k,
                v,
                out,
                lse,
                bias,
                ..
            } => {
                let fields = vec![
                    ("query", Some(q), Input(0)),
                    ("key", Some(k), Input(1)),
                    ("value", Some(v), Input(2)),
                    ("output", Some(out), Output(0)),
                    ("logsumexp", Some(lse), Output(1)),
                    ("attn_mask", bias.as_ref(), Input(3)),
                ];
                return (fields, vec![]);
            }
            // One tensor: its input's (`self`) or its result.
            other => match other.saved().as_slice() {
                [one] => {
                    let (name, source) = result(one);
                    vec![(name, Some(*one), source)]
                }
                _ => vec![],
            },
        };
        (fields, vec![])
    }
}

impl Node {
    /// `_saved_<name>`: None when the node has no such attribute (Python's
    /// AttributeError), PyTorch's error when a backward freed it.
    pub fn saved_attr(&self, name: &str) -> Result<Option<SavedAttr>, Error> {
        self.with_saved(|b| {
            let (fields, numbers) = b.named(self.name);
            if let Some((_, x)) = numbers.iter().find(|(n, _)| *n == name) {
                return Ok(Some(SavedAttr::Number(*x)));
            }
            let Some((_, saved, source)) = fields.into_iter().find(|(n, _, _)| *n == name) else {
                return Ok(None);
            };
            let Some(s) = saved else {
                return Ok(Some(SavedAttr::Unset));
            };
            Ok(Some(match (s.hooked(), s.tensor()) {
                (Some(cell), _) => SavedAttr::Hooked {
                    cell: Arc::clone(cell),
                    source,
                },
                (None, Some(tensor)) => SavedAttr::Held {
                    tensor,
                    record: s.input_record(),
                    source,
                },
                (None, None) => SavedAttr::Unset,
            }))
        })
    }
}
