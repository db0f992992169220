//! The session's variables. Each name ever assigned has a slot; a `Name` in
//! the program remembers the slot this table found it in (`ast::Found`), so
//! a loop that reads and assigns globals goes to the slot directly and
//! hashes a name only the first time (CPython's global caches do the same).
//!
//! A slot stays with its name after `del` (empty), so a remembered slot is
//! good for the table's life; `clear` starts a table with a new number,
//! which every remembered slot of the old one fails to match.
//!
//! The table keeps the old values of the names the running top-level
//! statement assigned or deleted, to put back if it fails: each slot
//! records the statement that last saved it, so an assignment in a loop
//! saves once and checks a number after that.

use foldhash::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Value;
use crate::lang::ast::Name;

/// The number the next table gets (0 is "not looked up" in `Found`).
static NEXT_TABLE: AtomicU64 = AtomicU64::new(1);

/// A number no other table of this process has had (past `Found::TABLES`,
/// names stop remembering slots and every lookup hashes).
fn next_table() -> u64 {
    NEXT_TABLE.fetch_add(1, Ordering::Relaxed)
}

pub struct Globals {
    /// This table's number, as names remember it.
    table: u64,
    /// Each name's slot.
    index: HashMap<String, u32>,
    slots: Vec<Slot>,
    /// The running top-level statement's number (`begin_statement`).
    statement: u64,
    /// Old values the running statement replaced, by name (`None`: unset).
    undo: Vec<(String, Option<Value>)>,
}

struct Slot {
    name: String,
    /// None after `del`.
    value: Option<Value>,
    /// The statement that saved the old value in `undo` (0: none).
    saved: u64,
}

impl Default for Globals {
    fn default() -> Globals {
        Globals {
            table: next_table(),
            index: HashMap::default(),
            slots: Vec::new(),
            statement: 1,
            undo: Vec::new(),
        }
    }
}

impl Globals {
    /// The slot of `name`, by what it remembers when that is this table's.
    fn find(&self, name: &Name) -> Option<usize> {
        match name.found.get() {
            Some((table, slot)) if table == self.table => Some(slot as usize),
            _ => {
                let slot = *self.index.get(&name.name)?;
                name.found.set(self.table, slot as usize);
                Some(slot as usize)
            }
        }
    }

    /// The slot of `name`, made when it has none.
    fn find_or_add(&mut self, name: &str) -> usize {
        if let Some(&slot) = self.index.get(name) {
            return slot as usize;
        }
        let slot = self.slots.len();
        self.slots.push(Slot {
            name: name.to_string(),
            value: None,
            saved: 0,
        });
        self.index.insert(name.to_string(), slot as u32);
        slot
    }

    /// The value of the variable `name` in the program.
    pub fn read(&self, name: &Name) -> Option<&Value> {
        self.slots[self.find(name)?].value.as_ref()
    }

    /// Sets the variable `name` in the program, keeping its old value for
    /// `undo` the first time the running statement sets it.
    #[inline]
    pub fn assign(&mut self, name: &Name, v: Value) {
        let k = match self.find(name) {
            Some(k) => k,
            None => {
                let k = self.find_or_add(&name.name);
                name.found.set(self.table, k);
                k
            }
        };
        let slot = &mut self.slots[k];
        let old = slot.value.replace(v);
        if slot.saved != self.statement {
            slot.saved = self.statement;
            self.undo.push((slot.name.clone(), old));
        }
    }

    /// Sets `name` outside any statement (a worker's copy of the session).
    pub fn insert(&mut self, name: String, v: Value) {
        let k = self.find_or_add(&name);
        self.slots[k].value = Some(v);
    }

    /// `del name`: its value, kept for `undo` as `assign` keeps one.
    pub fn delete(&mut self, name: &str) -> Option<Value> {
        let k = *self.index.get(name)? as usize;
        let slot = &mut self.slots[k];
        let old = slot.value.take();
        if slot.saved != self.statement {
            slot.saved = self.statement;
            self.undo.push((slot.name.clone(), old.clone()));
        }
        old
    }

    /// A new top-level statement starts: nothing is saved yet.
    pub fn begin_statement(&mut self) {
        self.undo.clear();
        self.statement += 1;
    }

    /// The old values the statement saved, in name order (what they free
    /// is freed, and warned about, in the same order on every run).
    pub fn take_undo(&mut self) -> Vec<(String, Option<Value>)> {
        let mut undo = std::mem::take(&mut self.undo);
        undo.sort_by(|a, b| a.0.cmp(&b.0));
        undo
    }

    /// Puts back the old values the failed statement saved.
    pub fn undo(&mut self) {
        for (name, old) in self.take_undo() {
            let k = self.find_or_add(&name);
            self.slots[k].value = old;
        }
    }

    /// This table's number (a function's `home`).
    pub fn number(&self) -> u64 {
        self.table
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        let k = *self.index.get(name)?;
        self.slots[k as usize].value.as_ref()
    }

    /// The variables that hold a value, in the order they were first set
    /// (not a `match` statement's hidden subject, `$match` and its place,
    /// left behind where a case's pattern or guard raised).
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.slots
            .iter()
            .filter(|s| !s.name.starts_with('$'))
            .filter_map(|s| s.value.as_ref().map(|v| (&s.name, v)))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter().map(|(n, _)| n)
    }

    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frees every variable in name order (the same on every run), and
    /// starts over as a new table.
    pub fn clear(&mut self) {
        let mut names: Vec<String> = self.keys().cloned().collect();
        names.sort();
        for name in names {
            if let Some(&k) = self.index.get(&name) {
                self.slots[k as usize].value = None;
            }
        }
        *self = Globals::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::ast::Found;
    use crate::lang::Span;

    fn name(n: &str) -> Name {
        Name::new(n.to_string(), Span::from(0..n.len()))
    }

    #[test]
    fn a_name_remembers_its_slot_per_table_and_each_table_checks_it_is_its_own() {
        let (mut a, mut b) = (Globals::default(), Globals::default());
        let (x, y) = (name("x"), name("y"));
        a.assign(&y, Value::Int(1));
        a.assign(&x, Value::Int(2));
        // x is slot 1 in a, slot 0 in b: each table reads its own.
        b.assign(&x, Value::Int(3));
        assert!(matches!(a.read(&x), Some(Value::Int(2))));
        assert!(matches!(b.read(&x), Some(Value::Int(3))));
        assert!(matches!(a.read(&x), Some(Value::Int(2))));
        // A copy of the name (a function's body cloned) reads the same.
        assert!(matches!(b.read(&x.clone()), Some(Value::Int(3))));
        a.clear();
        assert!(a.read(&x).is_none());
        a.assign(&name("z"), Value::Int(4));
        assert!(
            a.read(&x).is_none(),
            "a slot remembered before clear is not trusted"
        );
    }

    #[test]
    fn undo_gives_back_what_the_statement_replaced_once_per_name() {
        let mut g = Globals::default();
        let x = name("x");
        g.assign(&x, Value::Int(1));
        g.begin_statement();
        for i in 2..10 {
            g.assign(&x, Value::Int(i));
        }
        assert_eq!(g.take_undo().len(), 1);
        g.begin_statement();
        g.assign(&x, Value::Int(20));
        g.delete("x");
        g.assign(&name("new"), Value::Int(0));
        g.undo();
        assert!(matches!(g.get("x"), Some(Value::Int(9))));
        assert!(g.get("new").is_none());
    }

    #[test]
    fn a_slot_or_table_too_large_to_keep_is_not_remembered() {
        let x = name("x");
        x.found.set(7, 1 << 24);
        assert_eq!(x.found.get(), None);
        x.found.set(Found::TABLES + 1, 3);
        assert_eq!(x.found.get(), None);
        x.found.set(Found::TABLES, (1 << 24) - 1);
        assert_eq!(x.found.get(), Some((Found::TABLES, (1 << 24) - 1)));
    }
}
