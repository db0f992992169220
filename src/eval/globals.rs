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
use std::sync::atomic::{AtomicU32, Ordering};

use super::Value;
use crate::lang::ast::Name;

/// The number the next table gets (0 is "not looked up" in `Found`).
static NEXT_TABLE: AtomicU32 = AtomicU32::new(1);

fn next_table() -> u32 {
    match NEXT_TABLE.fetch_add(1, Ordering::Relaxed) {
        0 => NEXT_TABLE.fetch_add(1, Ordering::Relaxed),
        n => n,
    }
}

pub struct Globals {
    /// This table's number, as names remember it.
    table: u32,
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
                name.found.set(self.table, slot);
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
    pub fn assign(&mut self, name: &Name, v: Value) {
        let k = match self.find(name) {
            Some(k) => k,
            None => {
                let k = self.find_or_add(&name.name);
                name.found.set(self.table, k as u32);
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

    pub fn get(&self, name: &str) -> Option<&Value> {
        let k = *self.index.get(name)?;
        self.slots[k as usize].value.as_ref()
    }

    /// The variables that hold a value, in the order they were first set.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.slots
            .iter()
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
