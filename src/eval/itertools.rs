//! Python's `itertools` beside `count` (a range without end, in
//! `imports.rs`): `chain`, `islice`, `product`, `repeat`, `combinations`,
//! `permutations`, `zip_longest` and `pairwise`, each giving an iterator
//! as Python's do (`list(...)`, `for`, `next` take it). Their items are
//! made when called, except `islice`'s of a generator or a `count`, which
//! takes only the items it gives (so `islice(count(), 5)` ends).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use super::args::ArgVal;
use super::value::PyIterator;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::vocab::Span;

type Out = Result<Value, Diagnostic>;

/// The names `itertools` gives here.
pub(super) const NAMES: &[&str] = &[
    "itertools.chain",
    "itertools.chain.from_iterable",
    "itertools.islice",
    "itertools.product",
    "itertools.repeat",
    "itertools.combinations",
    "itertools.permutations",
    "itertools.zip_longest",
    "itertools.pairwise",
];

/// Items as an iterator of them.
fn iterator(items: Vec<Value>) -> Value {
    Value::Iterator(Arc::new(Mutex::new(PyIterator::Items(VecDeque::from(
        items,
    )))))
}

fn tuple(items: Vec<Value>) -> Value {
    Value::List(Arc::new(items))
}

/// A non-negative int argument, or Python's error.
fn count(v: &Value, span: Span, what: &str) -> Result<usize, Diagnostic> {
    match v {
        Value::Int(i) if *i >= 0 => Ok(*i as usize),
        Value::Int(_) => Err(Error::value(format!("{what} must be non-negative")).at(span)),
        other => Err(Error::wrong_type(what, "an int", other.type_name()).at(span)),
    }
}

impl Interp {
    pub(super) fn call_itertools(&mut self, name: &str, args: Vec<ArgVal>, span: Span) -> Out {
        let (pos, kw): (Vec<ArgVal>, Vec<ArgVal>) =
            args.into_iter().partition(|a| a.keyword.is_none());
        let keyword = |k: &str| {
            kw.iter()
                .find(|a| a.keyword.as_ref().is_some_and(|n| n.name == k))
        };
        if let Some(a) = kw.iter().find(|a| {
            let allowed: &[&str] = match name {
                "itertools.product" => &["repeat"],
                "itertools.repeat" => &["object", "times"],
                "itertools.combinations" | "itertools.permutations" => &["r"],
                "itertools.zip_longest" => &["fillvalue"],
                _ => &[],
            };
            !a.keyword
                .as_ref()
                .is_some_and(|n| allowed.contains(&n.name.as_str()))
        }) {
            let word = a.keyword.as_ref().map_or("", |n| n.name.as_str());
            return Err(Error::Module {
                class: "TypeError",
                message: format!("{name}() got an unexpected keyword argument '{word}'"),
                help: None,
            }
            .at(a.span));
        }
        let items = |me: &mut Interp, a: &ArgVal| me.iterated(a.value.clone(), a.span);
        match name {
            "itertools.chain" => {
                let mut out = Vec::new();
                for a in &pos {
                    out.extend(items(self, a)?);
                }
                Ok(iterator(out))
            }
            "itertools.chain.from_iterable" => {
                let [a] = pos.as_slice() else {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: "chain.from_iterable() takes exactly one argument".into(),
                        help: None,
                    }
                    .at(span));
                };
                let mut out = Vec::new();
                for part in items(self, a)? {
                    out.extend(self.iterated(part, a.span)?);
                }
                Ok(iterator(out))
            }
            "itertools.islice" => self.islice(&pos, span),
            "itertools.product" => {
                let repeat = match keyword("repeat") {
                    Some(a) => count(&a.value, a.span, "repeat")?,
                    None => 1,
                };
                let mut pools = Vec::new();
                for a in &pos {
                    pools.push(items(self, a)?);
                }
                let pools: Vec<&Vec<Value>> = (0..repeat).flat_map(|_| pools.iter()).collect();
                let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
                for pool in pools {
                    rows = rows
                        .iter()
                        .flat_map(|row| {
                            pool.iter().map(move |v| {
                                let mut r = row.clone();
                                r.push(v.clone());
                                r
                            })
                        })
                        .collect();
                }
                Ok(iterator(rows.into_iter().map(tuple).collect()))
            }
            "itertools.repeat" => {
                let object = pos
                    .first()
                    .or(keyword("object"))
                    .ok_or_else(|| Error::value("repeat() needs the object to repeat").at(span))?;
                let times = pos.get(1).or(keyword("times")).ok_or_else(|| {
                    Error::value_help(
                        "cudash's repeat() needs `times`: an endless repeat is not made",
                        "give a count: `repeat(x, 3)`, or use `zip` with a finite list",
                    )
                    .at(span)
                })?;
                let n = count(&times.value, times.span, "times")?;
                Ok(iterator(vec![object.value.clone(); n]))
            }
            "itertools.combinations" | "itertools.permutations" => {
                let pool = match pos.first() {
                    Some(a) => items(self, a)?,
                    None => {
                        return Err(Error::value(format!("{name}() needs an iterable")).at(span))
                    }
                };
                let r = match pos.get(1).or(keyword("r")) {
                    Some(a) if !matches!(a.value, Value::None) => count(&a.value, a.span, "r")?,
                    _ if name == "itertools.permutations" => pool.len(),
                    _ => return Err(Error::value("combinations() needs `r`").at(span)),
                };
                let picks = match name {
                    "itertools.combinations" => combinations(pool.len(), r),
                    _ => permutations(pool.len(), r),
                };
                Ok(iterator(
                    picks
                        .into_iter()
                        .map(|ix| tuple(ix.into_iter().map(|i| pool[i].clone()).collect()))
                        .collect(),
                ))
            }
            "itertools.zip_longest" => {
                let fill = keyword("fillvalue").map_or(Value::None, |a| a.value.clone());
                let mut columns = Vec::new();
                for a in &pos {
                    columns.push(items(self, a)?);
                }
                let n = columns.iter().map(Vec::len).max().unwrap_or(0);
                Ok(iterator(
                    (0..n)
                        .map(|k| {
                            tuple(
                                columns
                                    .iter()
                                    .map(|c| c.get(k).cloned().unwrap_or_else(|| fill.clone()))
                                    .collect(),
                            )
                        })
                        .collect(),
                ))
            }
            _ => {
                // pairwise
                let all = match pos.first() {
                    Some(a) => items(self, a)?,
                    None => return Err(Error::value("pairwise() needs an iterable").at(span)),
                };
                Ok(iterator(
                    all.windows(2).map(|w| tuple(w.to_vec())).collect(),
                ))
            }
        }
    }

    /// `islice(it, stop)`, `islice(it, start, stop[, step])`: the items
    /// from `start` to `stop` (None: to the end), every `step`-th.
    fn islice(&mut self, pos: &[ArgVal], span: Span) -> Out {
        let index =
            |a: Option<&ArgVal>, default: Option<usize>| -> Result<Option<usize>, Diagnostic> {
                match a.map(|a| (&a.value, a.span)) {
                    None => Ok(default),
                    Some((Value::None, _)) => Ok(None),
                    Some((v, s)) => count(v, s, "an index of islice()").map(Some),
                }
            };
        let (start, stop, step) = match pos.len() {
            2 => (0, index(pos.get(1), None)?, 1),
            3 | 4 => (
                index(pos.get(1), Some(0))?.unwrap_or(0),
                index(pos.get(2), None)?,
                index(pos.get(3), Some(1))?.unwrap_or(1),
            ),
            _ => {
                return Err(Error::value(
                    "islice() takes an iterable and stop, or start, stop and step",
                )
                .at(span))
            }
        };
        if step == 0 {
            return Err(
                Error::value("Step for islice() must be a positive integer or None.")
                    .at(pos[pos.len() - 1].span),
            );
        }
        let source = &pos[0];
        let keep = |k: usize| k >= start && (k - start).is_multiple_of(step);
        let mut out = Vec::new();
        match &source.value {
            // A range (`count()` included) is counted, not listed.
            Value::Range(r) => {
                let end = stop.map_or(r.len(), |s| s.min(r.len()));
                let picked = (start..end).step_by(step).map(|k| Value::Int(r.at(k)));
                out.extend(picked);
            }
            // A generator gives only the items asked for.
            Value::Iterator(i) => {
                let mut k = 0;
                while stop.is_none_or(|s| k < s) {
                    match self.next_item(i, source.span)? {
                        Some(v) if keep(k) => out.push(v),
                        Some(_) => {}
                        None => break,
                    }
                    k += 1;
                }
            }
            other => {
                let all = self.iterated(other.clone(), source.span)?;
                let end = stop.map_or(all.len(), |s| s.min(all.len()));
                out.extend((start..end).step_by(step).map(|k| all[k].clone()));
            }
        }
        Ok(iterator(out))
    }
}

/// Python's `combinations(range(n), r)`: index lists in lexicographic order.
fn combinations(n: usize, r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if r > n {
        return out;
    }
    let mut ix: Vec<usize> = (0..r).collect();
    loop {
        out.push(ix.clone());
        let Some(i) = (0..r).rev().find(|&i| ix[i] != i + n - r) else {
            return out;
        };
        ix[i] += 1;
        for j in i + 1..r {
            ix[j] = ix[j - 1] + 1;
        }
    }
}

/// Python's `permutations(range(n), r)`: in lexicographic order of positions.
fn permutations(n: usize, r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(r);
    let mut used = vec![false; n];
    fn walk(
        n: usize,
        r: usize,
        cur: &mut Vec<usize>,
        used: &mut [bool],
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == r {
            out.push(cur.clone());
            return;
        }
        for i in 0..n {
            if !used[i] {
                used[i] = true;
                cur.push(i);
                walk(n, r, cur, used, out);
                cur.pop();
                used[i] = false;
            }
        }
    }
    if r <= n {
        walk(n, r, &mut current, &mut used, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_and_permutations_are_pythons() {
        assert_eq!(
            combinations(4, 2),
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
        );
        assert_eq!(
            permutations(3, 2),
            [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]
        );
        assert!(combinations(2, 3).is_empty());
    }
}
