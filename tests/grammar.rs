//! Every example in grammar/cudash.ebnf parses.

use cudash::lang::parse;

fn examples() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/grammar/cudash.ebnf"))
        .unwrap();
    text.split("(* example:\n")
        .skip(1)
        .map(|rest| rest.split("\n*)").next().unwrap().to_string())
        .collect()
}

#[test]
fn every_grammar_example_parses() {
    let ex = examples();
    assert!(ex.len() >= 12, "found only {} examples", ex.len());
    for e in ex {
        if let Err(errs) = parse(&e) {
            panic!("grammar example does not parse:\n{e}\n{errs:?}");
        }
    }
}

#[test]
fn every_help_example_parses() {
    for d in cudash::eval::docs::DOCS {
        assert!(
            parse(d.example).is_ok(),
            "example of `{}` does not parse: {}",
            d.name,
            d.example
        );
    }
}
