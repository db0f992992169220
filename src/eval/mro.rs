//! Python's method resolution order of a class with several bases (C3
//! linearization, as `type.__mro__`): a class before its bases, the
//! bases in the order written, each class once.

use std::sync::Arc;

use super::value::Class;

/// The program's classes above one whose bases are `bases`, in the order
/// Python looks in them; `Err` when no order keeps every class before
/// its bases and the bases in their written order (Python's "Cannot
/// create a consistent method resolution order").
pub fn linearize(bases: &[Arc<Class>]) -> Result<Vec<Arc<Class>>, ()> {
    // Each base's own linearization (itself, then its MRO), then the
    // bases as written.
    let mut lists: Vec<Vec<Arc<Class>>> = bases
        .iter()
        .map(|b| {
            std::iter::once(Arc::clone(b))
                .chain(b.mro.iter().cloned())
                .collect()
        })
        .collect();
    lists.push(bases.to_vec());
    let mut out: Vec<Arc<Class>> = Vec::new();
    loop {
        lists.retain(|l| !l.is_empty());
        if lists.is_empty() {
            return Ok(out);
        }
        // The first head that is in no other list's tail.
        let in_a_tail = |c: &Arc<Class>| {
            lists
                .iter()
                .any(|l| l[1..].iter().any(|x| Arc::ptr_eq(x, c)))
        };
        let Some(next) = lists.iter().map(|l| &l[0]).find(|h| !in_a_tail(h)).cloned() else {
            return Err(());
        };
        for l in &mut lists {
            if Arc::ptr_eq(&l[0], &next) {
                l.remove(0);
            }
        }
        out.push(next);
    }
}

#[cfg(test)]
mod tests {
    use super::linearize;
    use crate::eval::value::{Base, Class};
    use std::sync::{Arc, Mutex};

    fn class(name: &str, bases: &[&Arc<Class>]) -> Arc<Class> {
        let bases: Vec<Arc<Class>> = bases.iter().map(|b| Arc::clone(b)).collect();
        Arc::new(Class {
            name: name.into(),
            mro: linearize(&bases).unwrap(),
            bases: bases.into_iter().map(Base::Class).collect(),
            attrs: Mutex::new(Vec::new()),
            fields: Vec::new(),
            dataclass: Default::default(),
            dataclass_options: Default::default(),
            tuple: false,
        })
    }

    fn names(c: &Arc<Class>) -> Vec<&str> {
        std::iter::once(c.name.as_str())
            .chain(c.mro.iter().map(|c| c.name.as_str()))
            .collect()
    }

    #[test]
    fn the_order_is_pythons() {
        // As `[k.__name__ for k in D.__mro__]` printed them (Python 3.11).
        let a = class("A", &[]);
        let b = class("B", &[&a]);
        let c = class("C", &[&a]);
        let d = class("D", &[&b, &c]);
        assert_eq!(names(&d), ["D", "B", "C", "A"]);
        // Python's own example of C3: O, then F, E, D, C, B, A.
        let o = class("O", &[]);
        let f = class("F", &[&o]);
        let e = class("E", &[&o]);
        let dd = class("D", &[&o]);
        let c = class("C", &[&dd, &f]);
        let b = class("B", &[&dd, &e]);
        let a = class("A", &[&b, &c, &e]);
        assert_eq!(names(&a), ["A", "B", "C", "D", "E", "F", "O"]);
    }

    #[test]
    fn an_inconsistent_order_is_refused() {
        let x = class("X", &[]);
        let y = class("Y", &[&x]);
        // `class Z(X, Y)`: X must come before Y and after it.
        assert!(linearize(&[x, y]).is_err());
    }
}
