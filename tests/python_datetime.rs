//! Python's `datetime` (stdlib/datetime.py): every line of
//! tests/fixtures/python_datetime/datetime_cases.py as CPython 3.11 printed
//! it (datetime_cases.out): `timedelta`'s normal form, text and
//! arithmetic, `date` and `datetime` arithmetic across months, years and
//! leap days, `strftime` with `%f`, `fromisoformat`, timestamps, and the
//! language around them: `-x`, `abs(x)`, `f"{x:spec}"`, `sorted` and
//! `max` by a class's own methods.

mod common;

#[test]
fn every_case_prints_what_cpython_printed() {
    let src = include_str!("fixtures/python_datetime/datetime_cases.py");
    let want: Vec<&str> = include_str!("fixtures/python_datetime/datetime_cases.out")
        .lines()
        .collect();
    assert_eq!(common::script_lines_on(0, "datetime_cases", src), want);
}

#[test]
fn a_class_of_the_programs_own_dunders_drive_the_language() {
    let src = "class V:\n\
        \x20   def __init__(self, x):\n        self.x = x\n\
        \x20   def __neg__(self):\n        return V(-self.x)\n\
        \x20   def __abs__(self):\n        return V(abs(self.x))\n\
        \x20   def __lt__(self, other):\n        return self.x < other.x\n\
        \x20   def __gt__(self, other):\n        return self.x > other.x\n\
        \x20   def __format__(self, spec):\n        return f'V<{self.x:{spec}}>'\n\
        \x20   def __repr__(self):\n        return f'V({self.x})'\n\
        vs = [V(3), V(-1), V(2), V(-1)]\n\
        print(-V(2), abs(V(-5)), f'{V(1.5):.3f}', sorted(vs), sorted(vs, reverse=True), max(vs), min(vs))\n";
    assert_eq!(
        common::script_lines_on(0, "dunders", src),
        ["V(-2) V(5) V<1.500> [V(-1), V(-1), V(2), V(3)] [V(3), V(2), V(-1), V(-1)] V(3) V(-1)"]
    );
}
