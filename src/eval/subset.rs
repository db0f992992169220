//! `Subset(dataset, indices)` and `random_split(dataset, lengths)`, as
//! torch.utils.data's: a training and a validation part of one dataset.

use std::sync::Arc;

use super::args::Bound;
use super::{Interp, Value};
use crate::data::dataset::{Dataset, Subset};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::Device;

/// `Subset(dataset, indices)`.
pub(super) fn subset(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let dataset = me.dataset_of(b, "dataset", "Subset()")?;
    let (v, span) = b
        .get("indices")
        .cloned()
        .ok_or_else(|| Error::value("Subset() needs its indices").at(b.span))?;
    let indices = sample_indices(me, v, span, "Subset")?;
    let subset = Subset::new(dataset, indices).map_err(|e| e.at(span))?;
    Ok(Value::Dataset(Arc::new(Dataset::Subset(subset))))
}

/// `ds.tensors` of a TensorDataset, `s.dataset` and `s.indices` of a
/// Subset.
pub(super) fn dataset_attr(ds: &Arc<Dataset>, name: &str) -> Result<Value, Error> {
    match (&**ds, name) {
        (Dataset::Tensors(t), "tensors") => Ok(Value::List(Arc::new(
            t.tensors
                .iter()
                .map(|x| Value::Tensor(Arc::clone(x)))
                .collect(),
        ))),
        (Dataset::Subset(s), "dataset") => Ok(Interp::dataset_value(&s.dataset)),
        (Dataset::Subset(s), "indices") => Ok(Value::list(
            s.indices.iter().map(|&i| Value::Int(i as i64)).collect(),
        )),
        _ => {
            let class = match &**ds {
                Dataset::Tensors(_) => "TensorDataset",
                Dataset::Subset(_) => "Subset",
                Dataset::Function(_) => "Dataset",
            };
            Err(Error::Attribute {
                message: format!("'{class}' object has no attribute '{name}'"),
                help: None,
            })
        }
    }
}

/// Sample numbers as a program gives them: ints, or one-element integer
/// tensors (`randperm(n)[:k]` iterated), from 0.
pub(super) fn sample_indices(
    me: &mut Interp,
    v: Value,
    span: Span,
    func: &str,
) -> Result<Vec<usize>, Diagnostic> {
    let items = match v {
        // `Subset(ds, randperm(10)[:3])`: a tensor of indices.
        Value::Tensor(t) if t.ndim() == 1 && t.dtype().is_int() && t.device() == Device::Cpu => {
            t.to_vec::<i64>().into_iter().map(Value::Int).collect()
        }
        v => me.iterated(v, span)?,
    };
    items
        .iter()
        .map(|i| match i {
            Value::Int(k) if *k >= 0 => Ok(*k as usize),
            Value::Tensor(t)
                if t.numel() == 1 && t.dtype().is_int() && t.device() == Device::Cpu =>
            {
                usize::try_from(t.to_vec::<i64>()[0]).map_err(|_| ())
            }
            _ => Err(()),
        })
        .collect::<Result<Vec<usize>, ()>>()
        .map_err(|_| Error::value(format!("{func}'s indices are sample numbers from 0")).at(span))
}

/// `random_split(dataset, lengths, generator=None)`: as PyTorch 2.15's,
/// fractions that add up to 1 become counts (the floor of each, then one
/// more to each from the first while samples are left), the counts must
/// add up to the dataset's length, and the parts take `randperm(n)` in
/// turn: from `generator=` PyTorch's own split for the same seed, else
/// from cudash's cpu generator.
pub(super) fn random_split(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let dataset = me.dataset_of(b, "dataset", "random_split()")?;
    let generator = super::builtins::torch_generator::generator_arg(b)?;
    let (v, span) = b
        .get("lengths")
        .cloned()
        .ok_or_else(|| Error::value("random_split() needs its lengths").at(b.span))?;
    let given: Vec<f64> = me
        .iterated(v, span)?
        .iter()
        .map(|x| match x {
            Value::Int(k) => Ok(*k as f64),
            Value::Float(f) => Ok(f.get()),
            // cudash's `[8, 2]` is a tensor: its items are 0-d tensors.
            Value::Tensor(t) if t.numel() == 1 && t.device() == Device::Cpu => {
                Ok(t.to_vec::<f64>()[0])
            }
            other => Err(Error::wrong_type(
                "a length of random_split()",
                "a count of samples or a fraction",
                other.type_name(),
            )
            .at(span)),
        })
        .collect::<Result<_, _>>()?;
    let n = dataset.len();
    let lengths = lengths(&given, n, &mut |w| me.warn_once(w)).map_err(|e| e.at(span))?;
    let order = match generator {
        Some(g) => g.randperm(n),
        None => super::builtins::sampling::permutation(me, n).map_err(|e| e.at(b.span))?,
    };
    let mut parts = Vec::with_capacity(lengths.len());
    let mut at = 0;
    for k in lengths {
        let part = Subset::new(Arc::clone(&dataset), order[at..at + k].to_vec())
            .map_err(|e| e.at(b.span))?;
        parts.push(Value::Dataset(Arc::new(Dataset::Subset(part))));
        at += k;
    }
    Ok(Value::list(parts))
}

/// The parts' lengths, from counts or fractions of `n`, as PyTorch's
/// `random_split` makes them (with its messages and warnings).
fn lengths(given: &[f64], n: usize, warn: &mut dyn FnMut(String)) -> Result<Vec<usize>, Error> {
    let sum: f64 = given.iter().sum();
    // `math.isclose(sum(lengths), 1) and sum(lengths) <= 1`
    let fractions = (sum - 1.0).abs() <= 1e-9 * sum.abs().max(1.0) && sum <= 1.0;
    let counts: Vec<usize> = if fractions {
        let mut counts = Vec::with_capacity(given.len());
        for (i, &f) in given.iter().enumerate() {
            if !(0.0..=1.0).contains(&f) {
                return Err(Error::value(format!(
                    "Fraction at index {i} is not between 0 and 1"
                )));
            }
            counts.push((n as f64 * f).floor() as usize);
        }
        let remainder = n.saturating_sub(counts.iter().sum());
        let parts = counts.len();
        for i in 0..remainder {
            counts[i % parts] += 1;
        }
        for (i, _) in counts.iter().enumerate().filter(|(_, &c)| c == 0) {
            warn(format!(
                "UserWarning: Length of split at index {i} is 0. This might result in an empty dataset."
            ));
        }
        counts
    } else {
        given
            .iter()
            .map(|&x| match x >= 0.0 && x.fract() == 0.0 {
                true => Ok(x as usize),
                false => Err(Error::value(format!(
                    "random_split()'s lengths are counts of samples (or fractions that add up \
                     to 1), not {x}"
                ))),
            })
            .collect::<Result<_, _>>()?
    };
    if counts.iter().sum::<usize>() != n {
        return Err(Error::value(
            "Sum of input lengths does not equal the length of the input dataset!",
        ));
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::lengths;

    fn split(given: &[f64], n: usize) -> (Result<Vec<usize>, String>, Vec<String>) {
        let mut warned = Vec::new();
        let r = lengths(given, n, &mut |w| warned.push(w)).map_err(|e| e.to_string());
        (r, warned)
    }

    #[test]
    fn lengths_are_pytorchs() {
        // As `torch.utils.data.random_split` made them (PyTorch 2.15).
        assert_eq!(split(&[8.0, 2.0], 10).0, Ok(vec![8, 2]));
        assert_eq!(split(&[0.3, 0.3, 0.4], 10).0, Ok(vec![3, 3, 4]));
        assert_eq!(split(&[0.5, 0.5], 11).0, Ok(vec![6, 5]));
        assert_eq!(split(&[0.34, 0.33, 0.33], 7).0, Ok(vec![3, 2, 2]));
        let (r, warned) = split(&[0.9, 0.1], 3);
        assert_eq!(r, Ok(vec![3, 0]));
        assert_eq!(warned.len(), 1);
        assert!(warned[0].contains("Length of split at index 1 is 0"));
        assert_eq!(
            split(&[5.0, 4.0], 10).0,
            Err("Sum of input lengths does not equal the length of the input dataset!".into())
        );
        assert_eq!(
            split(&[1.5, -0.5], 10).0,
            Err("Fraction at index 0 is not between 0 and 1".into())
        );
    }
}
