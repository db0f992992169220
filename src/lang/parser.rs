//! The chumsky parser: token slice -> spanned AST. `grammar/cudash.ebnf` is its reference.

use std::sync::Arc;

use chumsky::{input::ValueInput, pratt::*, prelude::*};

use super::ast::*;
use super::token::{DeviceLit, Kw, Punct, Token};
use super::Span;
use crate::vocab::BinaryOp;

/// The parser runs with chumsky's zero-cost `EmptyErr` first and, only when that
/// fails, again with `Rich` errors for the diagnostic: recording the expected
/// tokens of every failed alternative costs more than parsing.
pub trait ParseError<'t, I: ValueInput<'t, Token = Token, Span = Span>>:
    chumsky::error::Error<'t, I> + chumsky::label::LabelError<'t, I, &'static str> + 't
{
    fn message(span: Span, msg: &str) -> Self;
}

impl<'t, I: ValueInput<'t, Token = Token, Span = Span>> ParseError<'t, I>
    for Rich<'t, Token, Span>
{
    fn message(span: Span, msg: &str) -> Self {
        Rich::custom(span, msg)
    }
}

impl<'t, I: ValueInput<'t, Token = Token, Span = Span>> ParseError<'t, I>
    for chumsky::error::EmptyErr
{
    fn message(_: Span, _: &str) -> Self {
        chumsky::error::EmptyErr::default()
    }
}

type PErr<E> = extra::Err<E>;

fn p<'t, I, E: ParseError<'t, I>>(punct: Punct) -> impl Parser<'t, I, Token, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    just(Token::P(punct))
}

fn kw<'t, I, E: ParseError<'t, I>>(k: Kw) -> impl Parser<'t, I, Token, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    just(Token::Kw(k))
}

fn ident<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, Name, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    // `cuda` and `cpu` are names too: a program may bind them (`cuda =
    // torch.device("cuda")`, `def train(model, cuda)`, `f(cuda=True)`);
    // unbound, they mean the devices (`Interp::lookup_builtin`).
    select! {
        Token::Ident(s) = e => Name::new(s.to_string(), e.span()),
        Token::Device(DeviceLit::Cuda(None)) = e => Name::new("cuda".into(), e.span()),
        Token::Device(DeviceLit::Cpu) = e => Name::new("cpu".into(), e.span()),
    }
    .labelled("a name")
}

/// A contextual word such as `all` or `map` after `mem`.
fn word<'t, I, E: ParseError<'t, I>>(w: &'static str) -> impl Parser<'t, I, (), PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    select! { Token::Ident(s) if &*s == w => () }.labelled(w)
}

fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

/// `a op b` where `a` may be a comparison: `x < y` then `< z` is Python's
/// chain `x < y < z`, but `(x < y) < z` compares the first result (the
/// parentheses widen `a`'s span past its left operand's). `in` and `not
/// in` do not chain here.
fn compare(a: Expr, op: BinOp, b: Expr, span: Span) -> Expr {
    let chains = |o: &BinOp| !matches!(o, BinOp::In | BinOp::NotIn);
    let kind = match a.kind {
        ExprKind::Binary(first_op, x, y)
            if chains(&op)
                && chains(&first_op)
                && !matches!(first_op, BinOp::Elementwise(o) if !o.is_comparison())
                && !matches!(first_op, BinOp::MatMul)
                && a.span.start == x.span.start =>
        {
            ExprKind::Compare(x, vec![(first_op, *y), (op, b)])
        }
        ExprKind::Compare(x, mut rest) if chains(&op) && a.span.start == x.span.start => {
            rest.push((op, b));
            ExprKind::Compare(x, rest)
        }
        kind => {
            return bin(op, Expr { kind, span: a.span }, b, span);
        }
    };
    Expr { kind, span }
}

enum Postfix {
    Call(Vec<Arg>),
    Attr(Name),
    Index(Vec<IndexItem>),
}

pub fn expr_parser<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, Expr, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    recursive(|expr| {
        let literal = select! {
            Token::Int(n) => ExprKind::Int(n),
            Token::Float(x) => ExprKind::Float(x),
            Token::Bool(b) => ExprKind::Bool(b),
            Token::None => ExprKind::None,
            Token::Device(DeviceLit::Cuda(None)) = e => ExprKind::Var(Name::new("cuda".into(), e.span())),
            Token::Device(DeviceLit::Cpu) = e => ExprKind::Var(Name::new("cpu".into(), e.span())),
            Token::Device(d) => ExprKind::Device(d),
            Token::DType(d) => ExprKind::DType(d),
            Token::Ident(s) = e => ExprKind::Var(Name::new(s.to_string(), e.span())),
            Token::Bytes(b) => ExprKind::Bytes(b.to_vec()),
        };
        // `"a" "b"`, `"loss: " f"{x}"`: adjacent strings are one, as
        // Python joins them; an f-string's fields parsed where they stand
        // (`fstring`).
        let string_piece = select! {
            Token::Str(s) => Err(s.to_string()),
            Token::FStr(f) = e => Ok((f, e.span())),
        }
        .validate(
            |piece: Result<(std::sync::Arc<(String, usize)>, Span), String>, _, emitter| match piece
            {
                Err(text) => (false, vec![FPart::Text(text)]),
                Ok((f, _)) => match super::fstring::parse(&f.0, f.1) {
                    Ok(parts) => (true, parts),
                    Err((at, msg)) => {
                        emitter.emit(E::message(at, &msg));
                        (false, Vec::new())
                    }
                },
            },
        );
        let strings = string_piece
            .repeated()
            .at_least(1)
            .collect::<Vec<(bool, Vec<FPart>)>>()
            .map(joined_strings);
        // `for x in xs if c`: a comprehension's clauses (its iterable, like
        // a condition, binds above `if ... else`, as Python's `or_test`).
        let comp_target = ident().map(Target::Name).or(ident()
            .map(Target::Name)
            .separated_by(p(Punct::Comma))
            .at_least(1)
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(p(Punct::LParen), p(Punct::RParen))
            .map_with(|ts, e| Target::Tuple(ts, e.span())));
        let clauses = choice((
            kw(Kw::For)
                .ignore_then(
                    comp_target
                        .separated_by(p(Punct::Comma))
                        .at_least(1)
                        .collect::<Vec<_>>(),
                )
                .then_ignore(kw(Kw::In))
                .then(expr.clone())
                .map(|(t, it)| CompClause::For(t, it)),
            kw(Kw::If).ignore_then(expr.clone()).map(CompClause::If),
        ))
        .repeated()
        .at_least(1)
        .collect::<Vec<_>>()
        .boxed();
        let comprehension = |kind: CompKind, element: Expr, clauses: Vec<CompClause>| {
            ExprKind::Comprehension(Box::new(Comprehension {
                kind,
                element,
                key: None,
                clauses,
            }))
        };
        // Each bracket reads its first item once, then what follows it
        // says what the bracket holds: reading it again for each choice
        // would cost twice per level of nesting.
        enum After {
            Clauses(Vec<CompClause>),
            Items(Vec<Expr>),
            Nothing,
        }
        // An item of a display: an expression, or `*xs` spreading its items.
        let item = p(Punct::Star)
            .ignore_then(expr.clone())
            .map_with(|inner, e| Expr {
                kind: ExprKind::Starred(Box::new(inner)),
                span: e.span(),
            })
            .or(expr.clone())
            .boxed();
        let after = choice((
            clauses.clone().map(After::Clauses),
            p(Punct::Comma)
                .ignore_then(
                    item.clone()
                        .separated_by(p(Punct::Comma))
                        .allow_trailing()
                        .collect::<Vec<_>>(),
                )
                .map(After::Items),
        ))
        .or_not()
        .map(|a| a.unwrap_or(After::Nothing))
        .boxed();
        // `[a, b]`, `[]`, `[e for x in xs]`, `[*a, b]`
        let list = item
            .clone()
            .then(after.clone())
            .or_not()
            .delimited_by(p(Punct::LBracket), p(Punct::RBracket))
            .map(move |inner| match inner {
                None => ExprKind::List(vec![]),
                Some((first, After::Clauses(c))) => comprehension(CompKind::List, first, c),
                Some((first, After::Items(rest))) => {
                    ExprKind::List(std::iter::once(first).chain(rest).collect())
                }
                Some((first, After::Nothing)) => ExprKind::List(vec![first]),
            });
        // `(x)` groups; `(a, b)`, `(a,)` and `()` are tuples (`zeros((2,
        // 3))`, `dim=(0, 1)`); `(e for x in xs)` is a generator.
        let parens = item
            .clone()
            .then(after)
            .or_not()
            .delimited_by(p(Punct::LParen), p(Punct::RParen))
            .map(move |inner| match inner {
                None => ExprKind::Tuple(vec![]),
                Some((first, After::Clauses(c))) => comprehension(CompKind::Generator, first, c),
                Some((first, After::Items(rest))) => {
                    ExprKind::Tuple(std::iter::once(first).chain(rest).collect())
                }
                Some((first, After::Nothing)) => first.kind,
            });
        // `{k: v, ...}`, `{}`, `{k: v for x in xs}`; `**m` among the
        // items spreads the dict `m` in (a `Starred` key, no value).
        let spread = p(Punct::StarStar)
            .ignore_then(expr.clone())
            .map_with(|m: Expr, e| {
                let span = e.span();
                (
                    Expr {
                        kind: ExprKind::Starred(Box::new(m)),
                        span,
                    },
                    Expr {
                        kind: ExprKind::None,
                        span,
                    },
                )
            });
        let pair = expr
            .clone()
            .then_ignore(p(Punct::Colon))
            .then(expr.clone())
            .or(spread);
        let dict = pair
            .clone()
            .then(choice((
                clauses.clone().map(Ok),
                p(Punct::Comma)
                    .ignore_then(
                        pair.separated_by(p(Punct::Comma))
                            .allow_trailing()
                            .collect::<Vec<_>>(),
                    )
                    .or_not()
                    .map(|rest| Err(rest.unwrap_or_default())),
            )))
            .or_not()
            .delimited_by(p(Punct::LBrace), p(Punct::RBrace))
            .map(|inner| match inner {
                None => ExprKind::Dict(vec![]),
                Some(((key, value), Ok(clauses))) => {
                    ExprKind::Comprehension(Box::new(Comprehension {
                        kind: CompKind::Dict,
                        element: value,
                        key: Some(key),
                        clauses,
                    }))
                }
                Some((first, Err(rest))) => {
                    ExprKind::Dict(std::iter::once(first).chain(rest).collect())
                }
            });
        // `{a, b}`, `{x for x in xs}`: Python's set.
        let set = expr
            .clone()
            .then(choice((
                clauses.clone().map(Ok),
                p(Punct::Comma)
                    .ignore_then(
                        expr.clone()
                            .separated_by(p(Punct::Comma))
                            .allow_trailing()
                            .collect::<Vec<_>>(),
                    )
                    .or_not()
                    .map(|rest| Err(rest.unwrap_or_default())),
            )))
            .delimited_by(p(Punct::LBrace), p(Punct::RBrace))
            .map(move |(first, rest)| match rest {
                Ok(clauses) => comprehension(CompKind::Set, first, clauses),
                Err(rest) => ExprKind::Set(std::iter::once(first).chain(rest).collect()),
            });
        let dict = dict.or(set);
        // `lambda a, b=1: a + b`, `lambda *args, **kw: f(*args, **kw)`
        let lambda = kw(Kw::Lambda)
            .ignore_then(
                // `*` alone: keyword-only parameters after it.
                p(Punct::Star)
                    .map_with(|_, e| Param {
                        name: Name::new(String::new(), e.span()),
                        default: None,
                        spread: Spread::Items,
                    })
                    .then_ignore(choice((p(Punct::Comma), p(Punct::Colon))).rewind())
                    .or(choice((
                        p(Punct::StarStar).to(Spread::Entries),
                        p(Punct::Star).to(Spread::Items),
                    ))
                    .or_not()
                    .then(ident())
                    .then(p(Punct::Assign).ignore_then(expr.clone()).or_not())
                    .map(|((spread, name), default)| Param {
                        name,
                        default,
                        spread: spread.unwrap_or(Spread::No),
                    }))
                    .separated_by(p(Punct::Comma))
                    .allow_trailing()
                    .collect::<Vec<_>>(),
            )
            .then_ignore(p(Punct::Colon))
            .then(expr.clone())
            .map_with(|(params, body), e| {
                let span: Span = e.span();
                let body = vec![Stmt {
                    span: body.span,
                    kind: StmtKind::Return(Some(body)),
                }];
                let name = Name::new("<lambda>".into(), span);
                ExprKind::Lambda(Arc::new(super::resolve::function(name, params, body)))
            });
        let spanned = |kind, e: &mut chumsky::input::MapExtra<'t, '_, I, PErr<E>>| Expr {
            kind,
            span: e.span(),
        };
        let atom = choice((
            literal.map_with(|kind, e| Expr {
                kind,
                span: e.span(),
            }),
            strings.map_with(|kind, e| Expr {
                kind,
                span: e.span(),
            }),
            lambda.map_with(spanned),
            list.map_with(spanned),
            dict.map_with(spanned),
            parens.map_with(spanned),
        ))
        .labelled("an expression")
        .boxed();

        // A keyword argument may be named like a keyword (`clear_output(wait=true)`):
        // `=` after it leaves no doubt.
        let arg_name = ident().or(select! {
            Token::Kw(k) = e => Name::new(k.as_str().to_string(), e.span())
        });
        let arg = choice((
            p(Punct::StarStar)
                .ignore_then(expr.clone())
                .map(|value| Arg {
                    keyword: None,
                    value,
                    spread: Spread::Entries,
                }),
            p(Punct::Star).ignore_then(expr.clone()).map(|value| Arg {
                keyword: None,
                value,
                spread: Spread::Items,
            }),
            arg_name
                .then_ignore(p(Punct::Assign))
                .then(expr.clone())
                .map(|(k, value)| Arg {
                    keyword: Some(k),
                    value,
                    spread: Spread::No,
                }),
            // `f(x)`, or `sum(x * x for x in xs)`: a generator as the argument.
            expr.clone()
                .then(clauses.or_not())
                .map_with(move |(element, clauses), e| Arg {
                    keyword: None,
                    value: match clauses {
                        None => element,
                        Some(clauses) => Expr {
                            kind: comprehension(CompKind::Generator, element, clauses),
                            span: e.span(),
                        },
                    },
                    spread: Spread::No,
                }),
        ));
        let call = arg
            .separated_by(p(Punct::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(p(Punct::LParen), p(Punct::RParen))
            .map(Postfix::Call);

        let method_name = select! { t = e => (t, e.span()) }
            .try_map(|(t, span): (Token, Span), _| match t.as_word() {
                Some(name) => Ok(Name::new(name, span)),
                None => Err(E::message(
                    span,
                    "expected a method or property name after `.`",
                )),
            })
            .labelled("a method name");
        let attr = p(Punct::Dot).ignore_then(method_name).map(Postfix::Attr);

        let slice = expr
            .clone()
            .or_not()
            .then_ignore(p(Punct::Colon))
            .then(expr.clone().or_not())
            .then(p(Punct::Colon).ignore_then(expr.clone().or_not()).or_not())
            .map_with(|((start, stop), step), e| IndexItem::Slice {
                start,
                stop,
                step: step.flatten(),
                span: e.span(),
            });
        let index_item = choice((
            p(Punct::Ellipsis).to(IndexItem::Ellipsis),
            slice,
            expr.clone().map(IndexItem::At),
        ));
        let index = index_item
            .separated_by(p(Punct::Comma))
            .at_least(1)
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(p(Punct::LBracket), p(Punct::RBracket))
            .map(Postfix::Index);

        let postfix_op = choice((call, attr, index)).boxed();
        let infix_op = |punct: Punct, op: BinOp| p(punct).to(op);

        // Python's object comparisons: `is`, `is not`, `in`, `not in`
        // (two tokens each for the negated ones).
        let comparison = choice((
            select! {
                Token::P(Punct::EqEq) => BinOp::Elementwise(BinaryOp::Eq),
                Token::P(Punct::Ne) => BinOp::Elementwise(BinaryOp::Ne),
                Token::P(Punct::Le) => BinOp::Elementwise(BinaryOp::Le),
                Token::P(Punct::Ge) => BinOp::Elementwise(BinaryOp::Ge),
                Token::P(Punct::Lt) => BinOp::Elementwise(BinaryOp::Lt),
                Token::P(Punct::Gt) => BinOp::Elementwise(BinaryOp::Gt),
                Token::Kw(Kw::In) => BinOp::In,
            },
            kw(Kw::Is)
                .ignore_then(kw(Kw::Not).or_not())
                .map(|not| match not {
                    Some(_) => BinOp::IsNot,
                    None => BinOp::Is,
                }),
            kw(Kw::Not).ignore_then(kw(Kw::In)).to(BinOp::NotIn),
        ));

        // `name := value`: binds looser than any operator (Python's
        // assignment expression). Read as an operator expression followed by
        // an optional `:= value`, so the common case costs one token of
        // lookahead after it, not a failed `name :=` before every expression.
        let walrus_value = p(Punct::Walrus).ignore_then(expr.clone()).or_not();
        let operators = atom.pratt((
            postfix(14, postfix_op, |lhs: Expr, op, e| {
                let kind = match op {
                    Postfix::Call(args) => ExprKind::Call(Box::new(lhs), args),
                    Postfix::Attr(name) => ExprKind::Attr(Box::new(lhs), name),
                    Postfix::Index(items) => ExprKind::Index(Box::new(lhs), items),
                };
                Expr {
                    kind,
                    span: e.span(),
                }
            }),
            infix(
                right(13),
                infix_op(Punct::StarStar, BinOp::Elementwise(BinaryOp::Pow)),
                |a, op, b, e| bin(op, a, b, e.span()),
            ),
            prefix(
                12,
                select! {
                    Token::P(Punct::Minus) => Punct::Minus,
                    Token::P(Punct::Tilde) => Punct::Tilde,
                    Token::P(Punct::Plus) => Punct::Plus,
                },
                |op: Punct, rhs: Expr, e| Expr {
                    kind: match op {
                        Punct::Tilde => ExprKind::Invert(Box::new(rhs)),
                        Punct::Plus => ExprKind::Pos(Box::new(rhs)),
                        _ => ExprKind::Neg(Box::new(rhs)),
                    },
                    span: e.span(),
                },
            ),
            // One `select!` per level: each failed alternative costs chumsky a
            // record of what was expected, on every operand. Python's levels:
            // `* / // % @`, `+ -`, `<< >>`, `&`, `^`, `|`, comparisons, `not`, `and`, `or`.
            infix(
                left(11),
                select! {
                    Token::P(Punct::Star) => BinOp::Elementwise(BinaryOp::Mul),
                    Token::P(Punct::Slash) => BinOp::Elementwise(BinaryOp::Div),
                    Token::P(Punct::SlashSlash) => BinOp::Elementwise(BinaryOp::FloorDiv),
                    Token::P(Punct::Percent) => BinOp::Elementwise(BinaryOp::Rem),
                    Token::P(Punct::At) => BinOp::MatMul,
                },
                |a, op, b, e| bin(op, a, b, e.span()),
            ),
            infix(
                left(10),
                select! {
                    Token::P(Punct::Plus) => BinOp::Elementwise(BinaryOp::Add),
                    Token::P(Punct::Minus) => BinOp::Elementwise(BinaryOp::Sub),
                },
                |a, op, b, e| bin(op, a, b, e.span()),
            ),
            infix(
                left(9),
                select! {
                    Token::P(Punct::Shl) => BinOp::Elementwise(BinaryOp::Shl),
                    Token::P(Punct::Shr) => BinOp::Elementwise(BinaryOp::Shr),
                },
                |a, op, b, e| bin(op, a, b, e.span()),
            ),
            infix(
                left(8),
                p(Punct::Amp).to(BinOp::Elementwise(BinaryOp::BitAnd)),
                |a, op, b, e| bin(op, a, b, e.span()),
            ),
            infix(
                left(7),
                p(Punct::Caret).to(BinOp::Elementwise(BinaryOp::BitXor)),
                |a, op, b, e| bin(op, a, b, e.span()),
            ),
            infix(
                left(6),
                p(Punct::Pipe).to(BinOp::Elementwise(BinaryOp::BitOr)),
                |a, op, b, e| bin(op, a, b, e.span()),
            ),
            infix(left(5), comparison, |a, op, b, e| {
                compare(a, op, b, e.span())
            }),
            prefix(
                4,
                kw(Kw::Not).labelled("an expression"),
                |_, rhs: Expr, e| Expr {
                    kind: ExprKind::Not(Box::new(rhs)),
                    span: e.span(),
                },
            ),
            infix(left(3), kw(Kw::And), |a, _, b, e| Expr {
                kind: ExprKind::And(Box::new(a), Box::new(b)),
                span: e.span(),
            }),
            infix(left(2), kw(Kw::Or), |a, _, b, e| Expr {
                kind: ExprKind::Or(Box::new(a), Box::new(b)),
                span: e.span(),
            }),
            // `a if c else b`, binding loosest (Python's conditional
            // expression; `b` may be one too).
            postfix(
                1,
                kw(Kw::If)
                    .ignore_then(expr.clone())
                    .then_ignore(kw(Kw::Else))
                    .then(expr.clone()),
                |a: Expr, (c, b): (Expr, Expr), e| Expr {
                    kind: ExprKind::IfElse(Box::new(a), Box::new(c), Box::new(b)),
                    span: e.span(),
                },
            ),
        ));
        operators
            .then(walrus_value)
            .validate(|(target, value), e, emitter| match (target.kind, value) {
                (kind, None) => Expr {
                    kind,
                    span: target.span,
                },
                (ExprKind::Var(name), Some(value)) => Expr {
                    kind: ExprKind::Walrus(name, Box::new(value)),
                    span: e.span(),
                },
                (kind, Some(_)) => {
                    emitter.emit(E::message(
                        target.span,
                        "cannot use assignment expressions with this: the left of `:=` must be a name",
                    ));
                    Expr {
                        kind,
                        span: target.span,
                    }
                }
            })
            .labelled("an expression")
            .boxed()
    })
}

/// A `case`'s pattern (`ast::Pattern`): literals, captures, `_`, dotted
/// values, `[...]`/`(...)` sequences with a `*rest`, `{k: p, **rest}`
/// mappings, `Class(p, name=p)`, `|` alternatives and `as`.
fn pattern_parser<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, Pattern, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    recursive(|pattern| {
        let spanned = |kind, span| Expr { kind, span };
        let number = select! {
            Token::Int(n) => ExprKind::Int(n),
            Token::Float(x) => ExprKind::Float(x),
        };
        let signed =
            p(Punct::Minus)
                .or_not()
                .then(number)
                .map(|(minus, kind)| match (minus, kind) {
                    (Some(_), ExprKind::Int(n)) => ExprKind::Int(n.wrapping_neg()),
                    (Some(_), ExprKind::Float(x)) => ExprKind::Float(-x),
                    (_, kind) => kind,
                });
        let literal = choice((
            signed,
            select! {
                Token::Str(s) => ExprKind::Str(s.to_string()),
                Token::Bool(b) => ExprKind::Bool(b),
                Token::None => ExprKind::None,
            },
        ))
        .map_with(move |kind, e| spanned(kind, e.span()));
        // `Color.RED`, `Point`: a name and the attributes after it.
        let dotted = ident()
            .then(
                p(Punct::Dot)
                    .ignore_then(ident())
                    .repeated()
                    .collect::<Vec<Name>>(),
            )
            .map(move |(first, rest)| {
                let plain = rest.is_empty();
                let mut e = spanned(ExprKind::Var(first.clone()), first.span);
                for n in rest {
                    let span = Span::from(e.span.start..n.span.end);
                    e = spanned(ExprKind::Attr(Box::new(e), n), span);
                }
                (first, plain, e)
            });
        enum ClassArg {
            Positional(Pattern),
            Keyword(Name, Pattern),
        }
        let class_args = ident()
            .then_ignore(p(Punct::Assign))
            .then(pattern.clone())
            .map(|(n, p)| ClassArg::Keyword(n, p))
            .or(pattern.clone().map(ClassArg::Positional))
            .separated_by(p(Punct::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(p(Punct::LParen), p(Punct::RParen));
        let named = dotted.clone().then(class_args.or_not()).validate(
            |((first, plain, e), args), x, emitter| match args {
                Some(args) => {
                    let (mut positional, mut keywords) = (Vec::new(), Vec::new());
                    for a in args {
                        match a {
                            ClassArg::Positional(_) if !keywords.is_empty() => emitter.emit(
                                E::message(x.span(), "positional patterns follow keyword patterns"),
                            ),
                            ClassArg::Positional(p) => positional.push(p),
                            ClassArg::Keyword(n, p) => keywords.push((n, p)),
                        }
                    }
                    Pattern::Class(e, positional, keywords)
                }
                None if !plain => Pattern::Value(e),
                None if first.name == "_" => Pattern::Wildcard,
                // Python's constants, names to the lexer: values here.
                None if matches!(first.name.as_str(), "None" | "True" | "False") => {
                    let kind = match first.name.as_str() {
                        "None" => ExprKind::None,
                        name => ExprKind::Bool(name == "True"),
                    };
                    Pattern::Value(Expr {
                        kind,
                        span: first.span,
                    })
                }
                None => Pattern::Capture(first),
            },
        );
        let item = star_pattern().or(pattern.clone());
        let list = item
            .clone()
            .separated_by(p(Punct::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(p(Punct::LBracket), p(Punct::RBracket))
            .map(Pattern::Sequence);
        // `(p)` groups; `(p,)`, `(a, b)` and `()` are sequences.
        let parens = item
            .clone()
            .then(
                p(Punct::Comma)
                    .ignore_then(
                        item.clone()
                            .separated_by(p(Punct::Comma))
                            .allow_trailing()
                            .collect::<Vec<_>>(),
                    )
                    .or_not(),
            )
            .or_not()
            .delimited_by(p(Punct::LParen), p(Punct::RParen))
            .map(|inner| match inner {
                None => Pattern::Sequence(Vec::new()),
                Some((first @ Pattern::Star(_), None)) => Pattern::Sequence(vec![first]),
                Some((first, None)) => first,
                Some((first, Some(rest))) => {
                    Pattern::Sequence(std::iter::once(first).chain(rest).collect())
                }
            });
        enum Entry {
            Item(Expr, Pattern),
            Rest(Name),
        }
        let key = literal.clone().or(dotted.map(|(_, _, e)| e));
        let mapping = choice((
            p(Punct::StarStar).ignore_then(ident()).map(Entry::Rest),
            key.then_ignore(p(Punct::Colon))
                .then(pattern.clone())
                .map(|(k, v)| Entry::Item(k, v)),
        ))
        .separated_by(p(Punct::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(p(Punct::LBrace), p(Punct::RBrace))
        .validate(|entries, x, emitter| {
            let (mut items, mut rest) = (Vec::new(), None);
            for entry in entries {
                match entry {
                    Entry::Item(..) | Entry::Rest(_) if rest.is_some() => emitter.emit(E::message(
                        x.span(),
                        "`**rest` must come last in a mapping pattern",
                    )),
                    Entry::Item(k, v) => items.push((k, v)),
                    Entry::Rest(n) => rest = Some(n),
                }
            }
            Pattern::Mapping(items, rest)
        });
        let closed = choice((literal.map(Pattern::Value), named, list, parens, mapping))
            .labelled("a pattern");
        let or = closed
            .separated_by(p(Punct::Pipe))
            .at_least(1)
            .collect::<Vec<_>>()
            .map(|mut alts| match alts.len() {
                1 => alts.remove(0),
                _ => Pattern::Or(alts),
            });
        or.then(kw(Kw::As).ignore_then(ident()).or_not())
            .map(|(p, name)| match name {
                Some(n) => Pattern::As(Box::new(p), n),
                None => p,
            })
            .boxed()
    })
}

/// `*rest` (`*_`: binding nothing) among a sequence pattern's items.
fn star_pattern<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, Pattern, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    p(Punct::Star)
        .ignore_then(ident())
        .map(|n| match n.name.as_str() {
            "_" => Pattern::Star(None),
            _ => Pattern::Star(Some(n)),
        })
}

/// A `case`'s patterns: one, or several with commas (`case x, *rest:`),
/// a sequence pattern without brackets.
fn case_patterns<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, Pattern, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    let item = star_pattern().or(pattern_parser());
    item.clone()
        .then(
            p(Punct::Comma)
                .ignore_then(
                    item.separated_by(p(Punct::Comma))
                        .allow_trailing()
                        .collect::<Vec<_>>(),
                )
                .or_not(),
        )
        .map(|(first, rest)| match (first, rest) {
            (first @ Pattern::Star(_), None) => Pattern::Sequence(vec![first]),
            (first, None) => first,
            (first, Some(rest)) => Pattern::Sequence(std::iter::once(first).chain(rest).collect()),
        })
}

/// Whether every sequence pattern in `p` has at most one `*rest` (Python
/// refuses two).
fn one_star_each(p: &Pattern) -> bool {
    match p {
        Pattern::Sequence(items) => {
            items
                .iter()
                .filter(|i| matches!(i, Pattern::Star(_)))
                .count()
                <= 1
                && items.iter().all(one_star_each)
        }
        Pattern::Or(items) => items.iter().all(one_star_each),
        Pattern::Mapping(items, _) => items.iter().all(|(_, p)| one_star_each(p)),
        Pattern::Class(_, args, keywords) => {
            args.iter().all(one_star_each) && keywords.iter().all(|(_, p)| one_star_each(p))
        }
        Pattern::As(p, _) => one_star_each(p),
        _ => true,
    }
}

/// Python's `match` statement, as an `if` chain: the subject is kept in a
/// hidden local (`$match` and its place: no program names one so), each
/// `case` is an `ExprKind::Matches` of it (`and` its guard), and each
/// block, and an `else` when no case matches, first lets the subject go,
/// so a tensor matched on is freed where Python frees it.
fn match_statement(
    subject: Expr,
    cases: Vec<(Pattern, Option<Expr>, Block)>,
    span: Span,
) -> StmtKind {
    let hidden = Name::new(format!("$match{}", span.start), subject.span);
    let var = |at: Span| Expr {
        kind: ExprKind::Var(Name::new(hidden.name.clone(), at)),
        span: at,
    };
    let release = |at: Span| Stmt {
        kind: StmtKind::Del(vec![var(at)]),
        span: at,
    };
    let mut branches = Vec::new();
    for (k, (pattern, guard, mut block)) in cases.into_iter().enumerate() {
        let at = block.first().map_or(span, |s| s.span);
        let of = match k {
            0 => Expr {
                span: subject.span,
                kind: ExprKind::Walrus(hidden.clone(), Box::new(subject.clone())),
            },
            _ => var(subject.span),
        };
        let test = Expr {
            span: of.span,
            kind: ExprKind::Matches(Box::new(of), Box::new(pattern)),
        };
        let test = match guard {
            Some(g) => Expr {
                span: Span::from(test.span.start..g.span.end),
                kind: ExprKind::And(Box::new(test), Box::new(g)),
            },
            None => test,
        };
        block.insert(0, release(at));
        branches.push((test, block));
    }
    StmtKind::If(branches, Some(vec![release(span)]))
}

/// One or more statement separators: newlines and `;`.
fn separator<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, (), PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    choice((just(Token::Newline), p(Punct::Semi)))
        .repeated()
        .at_least(1)
        .ignored()
}

pub fn program_parser<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, Block, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    let stmt = recursive(|stmt| {
        let expr = expr_parser();
        // `a, b` where Python takes a tuple (the right of `=`, `return`,
        // a statement): one expression alone, else a tuple of them.
        // `*rest` among them (`first, *rest = xs`, `return *a, b`).
        let item = p(Punct::Star)
            .ignore_then(expr.clone())
            .map_with(|inner, e| Expr {
                kind: ExprKind::Starred(Box::new(inner)),
                span: e.span(),
            })
            .or(expr.clone());
        let exprs = item
            .clone()
            .then(
                p(Punct::Comma)
                    .ignore_then(
                        item.clone()
                            .separated_by(p(Punct::Comma))
                            .allow_trailing()
                            .collect::<Vec<_>>(),
                    )
                    .or_not(),
            )
            .map_with(|(first, rest): (Expr, Option<Vec<Expr>>), e| match rest {
                None => first,
                Some(rest) => Expr {
                    kind: ExprKind::Tuple(std::iter::once(first).chain(rest).collect()),
                    span: e.span(),
                },
            })
            .boxed();
        // What `for` assigns: names, and parenthesised groups of them.
        let for_target = recursive(|for_target| {
            choice((
                ident().map(Target::Name),
                p(Punct::Star)
                    .ignore_then(ident())
                    .map(|n| Target::Starred(Box::new(Target::Name(n)))),
                for_target
                    .separated_by(p(Punct::Comma))
                    .at_least(1)
                    .allow_trailing()
                    .collect::<Vec<_>>()
                    .delimited_by(p(Punct::LParen), p(Punct::RParen))
                    .map_with(|ts, e| Target::Tuple(ts, e.span())),
            ))
        });
        let newlines = just(Token::Newline).repeated();
        let block = newlines
            .clone()
            .ignore_then(
                stmt.separated_by(separator())
                    .allow_leading()
                    .allow_trailing()
                    .collect::<Vec<Stmt>>()
                    .delimited_by(p(Punct::LBrace), p(Punct::RBrace)),
            )
            .labelled("a block `{ ... }`")
            .boxed();

        let target = choice((
            word("all").to(SyncTarget::All),
            expr.clone().map(SyncTarget::Of),
        ))
        .or_not()
        .map(|t| t.unwrap_or(SyncTarget::Current));

        let help_topic = p(Punct::Dot)
            .or_not()
            .ignore_then(select! { t = e => (t, e.span()) })
            .try_map(|(t, span): (Token, Span), _| match (t.as_word(), &t) {
                (Some(name), _) => Ok(Name::new(name, span)),
                (None, Token::Str(s)) => Ok(Name::new(s.to_string(), span)),
                (None, Token::Device(d)) => Ok(Name::new(d.to_string(), span)),
                _ => Err(E::message(
                    span,
                    "expected a topic after `help`, e.g. `help randn`",
                )),
            });

        // A type annotation (`x: int`, `-> Tensor`) is read and ignored, as
        // Python ignores it when it runs.
        let annotation = p(Punct::Colon).ignore_then(expr.clone()).ignored();
        // `*` alone: the parameters after it take keywords only (a `*`
        // parameter without a name, which takes no arguments).
        let bare_star = p(Punct::Star)
            .map_with(|_, e| Param {
                name: Name::new(String::new(), e.span()),
                default: None,
                spread: Spread::Items,
            })
            .then_ignore(choice((p(Punct::Comma), p(Punct::RParen))).rewind());
        // `/`: the parameters before it are positional-only (a marker,
        // taken out of the list in `fn_def`).
        let slash = p(Punct::Slash)
            .map_with(|_, e| Param {
                name: Name::new("/".into(), e.span()),
                default: None,
                spread: Spread::No,
            })
            .then_ignore(choice((p(Punct::Comma), p(Punct::RParen))).rewind());
        let param = bare_star.or(slash).or(choice((
            p(Punct::StarStar).to(Spread::Entries),
            p(Punct::Star).to(Spread::Items),
        ))
        .or_not()
        .then(ident())
        .then_ignore(annotation.clone().or_not())
        .then(p(Punct::Assign).ignore_then(expr.clone()).or_not())
        .map(|((spread, name), default)| Param {
            name,
            default,
            spread: spread.unwrap_or(Spread::No),
        }));
        let returns = p(Punct::Arrow).ignore_then(expr.clone()).or_not();

        // `for x in xs`, `for i in 0..n`, and Python's `for j in 1, 2, 5`
        // (a tuple without its parentheses).
        let for_iter = exprs
            .clone()
            .then(p(Punct::DotDot).ignore_then(expr.clone()).or_not())
            .map(|(a, b)| match b {
                Some(b) => ForIter::Range(a, b),
                None => ForIter::Each(a),
            });

        let not_block = p(Punct::LBrace).not();
        // `else: ...`, `finally: ...`: a keyword and its block, on a line of
        // its own after the block before.
        let clause = |k: Kw| {
            newlines
                .clone()
                .ignore_then(kw(k))
                .ignore_then(block.clone())
        };
        // A method may be named as a device is (`def cuda(self)`, `def cpu(self)`).
        let def_name = ident();
        let fn_def = kw(Kw::Fn)
            .ignore_then(def_name)
            .then(
                param
                    .separated_by(p(Punct::Comma))
                    .allow_trailing()
                    .collect::<Vec<_>>()
                    .delimited_by(p(Punct::LParen), p(Punct::RParen)),
            )
            .then_ignore(returns)
            .then(block.clone())
            .validate(|((name, mut params), body), _, emitter| {
                let slash = params.iter().position(|p| p.name.name == "/");
                if let Some(k) = slash {
                    let marker = params.remove(k);
                    if k == 0 || params[..k].iter().any(|p| p.spread != Spread::No) {
                        emitter.emit(E::message(
                            marker.name.span,
                            "`/` must follow at least one plain parameter",
                        ));
                    }
                }
                check_params(&params, &mut |span, msg| {
                    emitter.emit(E::message(span, msg))
                });
                let mut f = super::resolve::function(name, params, body);
                f.positional_only = slash.unwrap_or(0);
                f
            })
            .boxed();
        let class_def = kw(Kw::Class)
                .ignore_then(ident())
                .then(
                    expr.clone()
                        .separated_by(p(Punct::Comma))
                        .allow_trailing()
                        .collect::<Vec<_>>()
                        .delimited_by(p(Punct::LParen), p(Punct::RParen))
                        .or_not(),
                )
                .then(block.clone())
                .validate(|((name, bases), body), _, emitter| {
                    for s in &body {
                        if !class_member(&s.kind) {
                            emitter.emit(E::message(
                                s.span,
                                "a class body holds methods (`def name(self):`), class attributes (`name = value`), `pass` and a docstring",
                            ));
                        }
                    }
                    ClassDef {
                        name,
                        bases: bases.unwrap_or_default(),
                        body,
                        decorators: Vec::new(),
                    }
                })
            .boxed();
        // `@torch.no_grad()` / `@staticmethod` lines above a `def` or `class`.
        let decorated = p(Punct::At)
            .ignore_then(expr.clone())
            .then_ignore(just(Token::Newline).repeated().at_least(1))
            .repeated()
            .at_least(1)
            .collect::<Vec<Expr>>()
            .then(choice((fn_def.clone().map(Ok), class_def.clone().map(Err))))
            .map(|(decorators, def)| match def {
                Ok(mut f) => {
                    f.decorators = decorators;
                    StmtKind::Fn(Arc::new(f))
                }
                Err(mut c) => {
                    c.decorators = decorators;
                    StmtKind::Class(Arc::new(c))
                }
            });
        let fn_def = fn_def.map(|f| StmtKind::Fn(Arc::new(f)));
        let class_def = class_def.map(|c| StmtKind::Class(Arc::new(c)));
        // `match subject:` and its `case pattern [if guard]:` blocks
        // (`match` and `case` are names elsewhere).
        let match_stmt = word("match")
            .ignore_then(exprs.clone())
            .then(
                newlines
                    .clone()
                    .ignore_then(word("case"))
                    .ignore_then(case_patterns().validate(|pattern, e, emitter| {
                        if !one_star_each(&pattern) {
                            emitter.emit(E::message(
                                e.span(),
                                "multiple starred names in sequence pattern",
                            ));
                        }
                        pattern
                    }))
                    .then(kw(Kw::If).ignore_then(expr.clone()).or_not())
                    .then(block.clone())
                    .map(|((pattern, guard), body)| (pattern, guard, body))
                    .repeated()
                    .at_least(1)
                    .collect::<Vec<_>>()
                    .then_ignore(newlines.clone())
                    .delimited_by(
                        newlines.clone().ignore_then(p(Punct::LBrace)),
                        p(Punct::RBrace),
                    ),
            )
            .map_with(|(subject, cases), e| match_statement(subject, cases, e.span()))
            .boxed();
        let keyword_stmt = choice((
            kw(Kw::Del)
                .ignore_then(
                    expr.clone()
                        .separated_by(p(Punct::Comma))
                        .at_least(1)
                        .allow_trailing()
                        .collect::<Vec<_>>(),
                )
                .validate(|targets, _, emitter| {
                    for t in &targets {
                        if !matches!(
                            t.kind,
                            ExprKind::Var(_) | ExprKind::Attr(..) | ExprKind::Index(..)
                        ) {
                            emitter.emit(E::message(
                                t.span,
                                "cannot delete this: `del` takes names, indexed items (`del xs[0]`) and attributes (`del obj.name`)",
                            ));
                        }
                    }
                    StmtKind::Del(targets)
                }),
            // `with no_grad() { }`: PyTorch's spelling of `no_grad { }`.
            kw(Kw::With)
                .ignore_then(kw(Kw::NoGrad))
                .ignore_then(p(Punct::LParen))
                .ignore_then(p(Punct::RParen))
                .ignore_then(block.clone())
                .map(StmtKind::NoGrad),
            // `with a as x, b:` is `with a as x:` holding `with b:`, as Python runs it.
            kw(Kw::With)
                .ignore_then(
                    expr.clone()
                        .then(kw(Kw::As).ignore_then(for_target.clone()).or_not())
                        .separated_by(p(Punct::Comma))
                        .at_least(1)
                        .collect::<Vec<_>>(),
                )
                .then(block.clone())
                .map_with(|(items, body), e| {
                    let span: Span = e.span();
                    let mut items = items.into_iter().rev();
                    let (last, target) = items.next().expect("at least one item");
                    let inner = StmtKind::With(last, target, body);
                    items.fold(inner, |inner, (e, target)| {
                        StmtKind::With(e, target, vec![Stmt { kind: inner, span }])
                    })
                }),
            word("stream")
                .ignore_then(ident())
                .then(block.clone())
                .map(|(n, b)| StmtKind::Stream(n, b)),
            kw(Kw::Wait).ignore_then(expr.clone()).map(StmtKind::Wait),
            kw(Kw::Pin).ignore_then(ident()).map(StmtKind::Pin),
            kw(Kw::Sync).ignore_then(target.clone()).map(StmtKind::Sync),
            kw(Kw::Mem)
                .ignore_then(
                    choice((
                        word("map").to(MemView::Map),
                        word("history").to(MemView::History),
                    ))
                    .or_not()
                    .map(|v| v.unwrap_or(MemView::Summary)),
                )
                .then(target)
                .map(|(view, target)| StmtKind::Mem { view, target }),
            kw(Kw::For)
                .ignore_then(
                    for_target
                        .separated_by(p(Punct::Comma))
                        .at_least(1)
                        .collect::<Vec<Target>>()
                        .then(p(Punct::Comma).or_not())
                        .map_with(|(targets, comma), e| match (&targets[..], comma) {
                            // `for x, in pairs`: the item unpacked into one name,
                            // as `for (x,) in pairs`.
                            ([Target::Name(_)], Some(_)) => vec![Target::Tuple(targets, e.span())],
                            _ => targets,
                        }),
                )
                .then_ignore(kw(Kw::In))
                .then(for_iter)
                .then(block.clone())
                .then(clause(Kw::Else).or_not())
                .map_with(|(((n, it), b), otherwise), e| {
                    loop_else(|b| StmtKind::For(n, it, b), b, otherwise, e.span())
                }),
            choice((fn_def.clone(), class_def.clone(), decorated)),
            kw(Kw::Return)
                .ignore_then(exprs.clone().or_not())
                .map(StmtKind::Return),
            kw(Kw::Yield)
                .ignore_then(kw(Kw::From).or_not().map(|f| f.is_some()))
                .then(exprs.clone().or_not())
                .map(|(from, value)| StmtKind::Yield { value, from }),
            kw(Kw::If)
                .ignore_then(expr.clone())
                .then(block.clone())
                .then(
                    newlines
                        .clone()
                        .ignore_then(kw(Kw::Elif))
                        .ignore_then(expr.clone())
                        .then(block.clone())
                        .repeated()
                        .collect::<Vec<_>>(),
                )
                .then(clause(Kw::Else).or_not())
                .map(|(((c, b), elifs), otherwise)| {
                    StmtKind::If(std::iter::once((c, b)).chain(elifs).collect(), otherwise)
                }),
            kw(Kw::While)
                .ignore_then(expr.clone())
                .then(block.clone())
                .then(clause(Kw::Else).or_not())
                .map_with(|((c, b), otherwise), e| {
                    loop_else(|b| StmtKind::While(c, b), b, otherwise, e.span())
                }),
            choice((match_stmt, kw(Kw::Break).to(StmtKind::Break))),
            // `def encode(self, x): ...`: Python's Ellipsis as a statement,
            // a stub's body, is a `pass`.
            kw(Kw::Pass)
                .ignored()
                .or(p(Punct::Ellipsis).ignored())
                .to(StmtKind::Pass),
            kw(Kw::Try)
                .ignore_then(block.clone())
                .then(
                    newlines
                        .clone()
                        .ignore_then(kw(Kw::Except))
                        .ignore_then(
                            expr.clone()
                                .then(kw(Kw::As).ignore_then(ident()).or_not())
                                .or_not(),
                        )
                        .then(block.clone())
                        .map_with(|(what, body), e| {
                            let (classes, name) = match what {
                                Some((c, n)) => (Some(c), n),
                                None => (None, None),
                            };
                            Handler {
                                classes,
                                name,
                                body,
                                span: e.span(),
                            }
                        })
                        .repeated()
                        .collect::<Vec<_>>(),
                )
                .then(clause(Kw::Else).or_not())
                .then(clause(Kw::Finally).or_not())
                .validate(|(((body, handlers), orelse), finally), e, emitter| {
                    if handlers.is_empty() && finally.is_none() {
                        emitter.emit(E::message(
                            e.span(),
                            "`try` needs an `except` or a `finally` block",
                        ));
                    }
                    StmtKind::Try(Box::new(Try {
                        body,
                        handlers,
                        orelse,
                        finally,
                    }))
                }),
            choice((kw(Kw::Global).to(true), kw(Kw::Nonlocal).to(false)))
                .then(ident().separated_by(p(Punct::Comma)).at_least(1).collect())
                .map(|(global, names)| match global {
                    true => StmtKind::Global(names),
                    false => StmtKind::Nonlocal(names),
                }),
            kw(Kw::Raise)
                .ignore_then(
                    expr.clone()
                        .then(kw(Kw::From).ignore_then(expr.clone()).or_not())
                        .or_not(),
                )
                .map(|raised| match raised {
                    Some((e, cause)) => StmtKind::Raise(Some(e), cause),
                    None => StmtKind::Raise(None, None),
                }),
            kw(Kw::Assert)
                .ignore_then(expr.clone())
                .then(p(Punct::Comma).ignore_then(expr.clone()).or_not())
                .map(|(c, message)| StmtKind::Assert(c, message)),
            import_stmt(),
            kw(Kw::Continue).to(StmtKind::Continue),
            // The optional name or file is not a dict: `profile { }` is a block.
            word("time")
                .ignore_then(not_block.clone().ignore_then(expr.clone()).or_not())
                .then(block.clone())
                .map(|(n, b)| StmtKind::Time(n, b)),
            kw(Kw::Profile)
                .ignore_then(not_block.clone().ignore_then(expr.clone()).or_not())
                .then(block.clone())
                .map(|(file, b)| StmtKind::Profile(file, b)),
            kw(Kw::NoGrad).ignore_then(block).map(StmtKind::NoGrad),
            kw(Kw::Help)
                .ignore_then(help_topic.or_not())
                .map(StmtKind::Help),
        ))
        .boxed();

        let augmented = select! { Token::P(Punct::Augmented(op)) => op };
        // `x: int = 3` assigns; `x: int` alone declares (a dataclass's field).
        let annotated = annotation
            .ignore_then(p(Punct::Assign).ignore_then(expr.clone()).or_not())
            .map(Err);
        let assign_or_expr = exprs
            .clone()
            .then(
                choice((
                    choice((p(Punct::Assign).to(None), augmented.map(Some)))
                        .then(exprs.clone())
                        .then(
                            p(Punct::Assign)
                                .ignore_then(exprs)
                                .repeated()
                                .collect::<Vec<_>>(),
                        )
                        .map(Ok),
                    annotated,
                ))
                .or_not(),
            )
            .validate(|(lhs, rhs), _, emitter| match rhs {
                None => StmtKind::Expr(lhs),
                Some(Err(value)) => match (lhs.kind, value) {
                    (ExprKind::Var(name), value) => StmtKind::Annotated(name, value),
                    (ExprKind::Attr(obj, attr), Some(value)) => {
                        StmtKind::AttrAssign(*obj, attr, value)
                    }
                    (ExprKind::Index(obj, items), Some(value)) => {
                        StmtKind::IndexAssign(*obj, items, value)
                    }
                    (ExprKind::Attr(..) | ExprKind::Index(..), None) => StmtKind::Pass,
                    _ => {
                        emitter.emit(E::message(
                            lhs.span,
                            "only a name, a property or an indexed tensor can be annotated (`x: int = 3`)",
                        ));
                        StmtKind::Pass
                    }
                },
                // `h0 = c0 = value`: every expression but the last is a target.
                Some(Ok(((None, first), rest))) if !rest.is_empty() => {
                    let mut all = std::iter::once(lhs).chain(std::iter::once(first)).chain(rest).collect::<Vec<_>>();
                    let value = all.pop().expect("a chain has a value");
                    let targets = targets_of::<I, E>(
                        all,
                        "cannot assign to this: each target of `a = b = value` must be a name, an attribute, an indexed item or a group of them",
                        emitter,
                    );
                    StmtKind::Chain(targets, value)
                }
                Some(Ok(((Some(_), first), rest))) if !rest.is_empty() => {
                    emitter.emit(E::message(
                        first.span,
                        "an augmented assignment has one target: `x += 1`, not `x += y = 1`",
                    ));
                    StmtKind::Pass
                }
                Some(Ok(((None, value), _))) => match lhs.kind {
                    ExprKind::Var(name) => StmtKind::Assign(name, value),
                    ExprKind::Index(obj, items) => StmtKind::IndexAssign(*obj, items, value),
                    ExprKind::Attr(obj, attr) => StmtKind::AttrAssign(*obj, attr, value),
                    // `v, i = x.sort()`, `(v, i) = ...`, `[a, b] = ...`, `(a, b), c = ...`
                    ExprKind::Tuple(items) | ExprKind::List(items) if !items.is_empty() => {
                        let targets = targets_of::<I, E>(
                            items,
                            "cannot unpack into this: each target left of `=` must be a name, an attribute, an indexed item or a parenthesised group of them (`values, indices = x.sort()`)",
                            emitter,
                        );
                        StmtKind::Unpack(targets, value)
                    }
                    ExprKind::Device(_) => {
                        emitter.emit(E::message(
                            lhs.span,
                            "cannot assign to a device: `cuda:N` is a device literal in cudash; give the variable a name (`dev = torch.device(\"cuda:1\")`)",
                        ));
                        StmtKind::Expr(value)
                    }
                    _ => {
                        emitter.emit(E::message(
                            lhs.span,
                            "cannot assign to this: the left of `=` must be a name, an indexed tensor (`x[0] = 1`) or a property (`x.grad = none`)",
                        ));
                        StmtKind::Expr(value)
                    }
                },
                Some(Ok(((Some(op), value), _))) => match lhs.kind {
                    ExprKind::Var(_) | ExprKind::Index(..) | ExprKind::Attr(..) => {
                        StmtKind::Augmented(lhs, op, value)
                    }
                    _ => {
                        emitter.emit(E::message(
                            lhs.span,
                            "cannot update this in place: the left of an augmented assignment must be a name, a property or an indexed tensor (`x += 1`, `self.n += 1`, `x[0] *= 2`)",
                        ));
                        StmtKind::Expr(value)
                    }
                },
            });

        // Only try the keyword forms when the statement starts with a keyword (or `stream`, `time`).
        let starts_keyword = any()
            .filter(|t: &Token| {
                matches!(
                    t,
                    Token::Kw(_) | Token::P(Punct::At) | Token::P(Punct::Ellipsis)
                ) || matches!(t, Token::Ident(s) if matches!(&**s, "stream" | "time" | "match"))
            })
            .rewind();
        choice((starts_keyword.ignore_then(keyword_stmt), assign_or_expr))
            .map_with(|kind, e| Stmt {
                kind,
                span: e.span(),
            })
            .labelled("a statement")
            .boxed()
    });

    stmt.separated_by(separator())
        .allow_leading()
        .allow_trailing()
        .collect::<Vec<_>>()
        .then_ignore(end())
}

/// `import a.b [as c], ...` and `from a.b import x [as y], ...` (the
/// names in parentheses too).
/// Each expression as an assignment's target; `message` for one that
/// cannot be (left out).
fn targets_of<'t, I, E: ParseError<'t, I>>(
    items: Vec<Expr>,
    message: &str,
    emitter: &mut chumsky::input::Emitter<E>,
) -> Vec<Target>
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    let mut targets = Vec::with_capacity(items.len());
    for item in items {
        match Target::of(item) {
            Ok(t) => targets.push(t),
            Err(span) => emitter.emit(E::message(span, message)),
        }
    }
    targets
}

fn import_stmt<'t, I, E: ParseError<'t, I>>() -> impl Parser<'t, I, StmtKind, PErr<E>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = Span>,
{
    // After a dot a module's name may be a word cudash reserves (`torch.cuda.nccl`).
    let part = select! {
        Token::Ident(s) = e => Name::new(s.to_string(), e.span()),
        Token::Kw(k) = e => Name::new(k.as_str().to_string(), e.span()),
        Token::Device(DeviceLit::Cuda(None)) = e => Name::new("cuda".into(), e.span()),
        Token::Device(DeviceLit::Cpu) = e => Name::new("cpu".into(), e.span()),
    }
    .labelled("a name");
    let dotted = ident()
        .then(
            p(Punct::Dot)
                .ignore_then(part)
                .repeated()
                .collect::<Vec<Name>>(),
        )
        .map(|(first, rest)| std::iter::once(first).chain(rest).collect::<Vec<Name>>())
        .map_with(|parts, e| {
            let path = parts
                .iter()
                .map(|n| n.name.as_str())
                .collect::<Vec<_>>()
                .join(".");
            (path, e.span(), parts[0].clone())
        });
    let alias = kw(Kw::As).ignore_then(ident()).or_not();
    let import = kw(Kw::Import)
        .ignore_then(
            dotted
                .clone()
                .then(alias.clone())
                .separated_by(p(Punct::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .map(|items| {
            StmtKind::Import(
                items
                    .into_iter()
                    .map(|((module, module_span, first), alias)| Import {
                        module,
                        module_span,
                        member: None,
                        bind: alias.unwrap_or(first),
                    })
                    .collect(),
            )
        });
    let members = ident()
        .then(alias)
        .separated_by(p(Punct::Comma))
        .at_least(1)
        .allow_trailing()
        .collect::<Vec<_>>();
    // `from . import x`, `from ..pkg.mod import y`: the dots kept in the path.
    let dots = select! {
        Token::P(Punct::Dot) => ".",
        Token::P(Punct::DotDot) => "..",
        Token::P(Punct::Ellipsis) => "...",
    }
    .repeated()
    .at_least(1)
    .collect::<Vec<&str>>()
    .map(|d| d.concat());
    let relative = dots
        .then(dotted.clone().or_not())
        .map_with(|(dots, path), e| match path {
            Some((path, _, first)) => (format!("{dots}{path}"), e.span(), first),
            None => (dots.clone(), e.span(), Name::new(dots, e.span())),
        });
    // `from m import *`: every public name of the module.
    let star = p(Punct::Star).map_with(|_, e| {
        let star = Name::new("*".into(), e.span());
        vec![(star, None)]
    });
    let from = kw(Kw::From)
        .ignore_then(dotted.or(relative))
        .then_ignore(kw(Kw::Import))
        .then(choice((
            star,
            members
                .clone()
                .delimited_by(p(Punct::LParen), p(Punct::RParen)),
            members,
        )))
        .map(|((module, module_span, _), names)| {
            StmtKind::Import(
                names
                    .into_iter()
                    .map(|(member, alias)| Import {
                        module: module.clone(),
                        module_span,
                        bind: alias.unwrap_or_else(|| member.clone()),
                        member: Some(member),
                    })
                    .collect(),
            )
        });
    choice((import, from))
}

/// Adjacent string pieces as one: a string when none is an f-string,
/// else an f-string of every piece's parts, neighbouring texts joined.
fn joined_strings(pieces: Vec<(bool, Vec<FPart>)>) -> ExprKind {
    let formatted = pieces.iter().any(|(f, _)| *f);
    let mut parts: Vec<FPart> = Vec::new();
    for part in pieces.into_iter().flat_map(|(_, parts)| parts) {
        match (parts.last_mut(), part) {
            (Some(FPart::Text(a)), FPart::Text(b)) => a.push_str(&b),
            (_, part) => parts.push(part),
        }
    }
    match (formatted, parts.as_slice()) {
        (true, _) => ExprKind::FString(parts),
        (false, [FPart::Text(t)]) => ExprKind::Str(t.clone()),
        (false, _) => ExprKind::Str(String::new()),
    }
}

/// What a class body may hold: methods, attributes and a docstring.
fn class_member(s: &StmtKind) -> bool {
    match s {
        StmtKind::Fn(_) | StmtKind::Assign(..) | StmtKind::Annotated(..) | StmtKind::Pass => true,
        StmtKind::Expr(e) => matches!(e.kind, ExprKind::Str(_)),
        _ => false,
    }
}

/// A loop, and Python's `else:` after it (run when the loop ends without
/// `break`), written as what it means: a hidden flag set false, the loop
/// with each of its own `break`s setting it first, then `if not flag:` the
/// `else` block, all in an `if True:` (a block that makes no scope, as none
/// does in Python).
fn loop_else(
    make: impl FnOnce(Block) -> StmtKind,
    body: Block,
    otherwise: Option<Block>,
    span: Span,
) -> StmtKind {
    let Some(otherwise) = otherwise else {
        return make(body);
    };
    // Not a name a program can write: it cannot clash with one.
    let flag = format!("loop broke@{}", span.start);
    let name = || Name::new(flag.clone(), span);
    let at = |kind: ExprKind| Expr { kind, span };
    let stmt = |kind: StmtKind| Stmt { kind, span };
    let body = mark_breaks(body, &flag, span);
    let not_broken = at(ExprKind::Not(Box::new(at(ExprKind::Var(name())))));
    StmtKind::If(
        vec![(
            at(ExprKind::Bool(true)),
            vec![
                stmt(StmtKind::Assign(name(), at(ExprKind::Bool(false)))),
                stmt(make(body)),
                stmt(StmtKind::If(vec![(not_broken, otherwise)], None)),
            ],
        )],
        None,
    )
}

/// `body` with each `break` of its own loop (not of a loop inside it, nor a
/// function's) preceded by `flag = True`.
fn mark_breaks(body: Block, flag: &str, span: Span) -> Block {
    let mut out = Vec::with_capacity(body.len());
    for s in body {
        let kind = match s.kind {
            StmtKind::Break => {
                out.push(Stmt {
                    kind: StmtKind::Assign(
                        Name::new(flag.to_string(), s.span),
                        Expr {
                            kind: ExprKind::Bool(true),
                            span,
                        },
                    ),
                    span: s.span,
                });
                StmtKind::Break
            }
            StmtKind::If(branches, otherwise) => StmtKind::If(
                branches
                    .into_iter()
                    .map(|(c, b)| (c, mark_breaks(b, flag, span)))
                    .collect(),
                otherwise.map(|b| mark_breaks(b, flag, span)),
            ),
            StmtKind::With(e, t, b) => StmtKind::With(e, t, mark_breaks(b, flag, span)),
            StmtKind::Stream(n, b) => StmtKind::Stream(n, mark_breaks(b, flag, span)),
            StmtKind::Try(mut t) => {
                t.body = mark_breaks(std::mem::take(&mut t.body), flag, span);
                t.handlers = std::mem::take(&mut t.handlers)
                    .into_iter()
                    .map(|mut h| {
                        h.body = mark_breaks(std::mem::take(&mut h.body), flag, span);
                        h
                    })
                    .collect();
                t.orelse = t.orelse.take().map(|b| mark_breaks(b, flag, span));
                t.finally = t.finally.take().map(|b| mark_breaks(b, flag, span));
                StmtKind::Try(t)
            }
            other => other,
        };
        out.push(Stmt { kind, span: s.span });
    }
    out
}

/// Python's rules for a parameter list: no name twice, and no parameter
/// without a default after one with a default.
fn check_params(params: &[Param], error: &mut dyn FnMut(Span, &str)) {
    let mut seen_default = false;
    let mut seen_items = false;
    for (k, p) in params.iter().enumerate() {
        match p.spread {
            Spread::Items if seen_items => error(p.name.span, "only one `*` parameter is allowed"),
            Spread::Items => seen_items = true,
            Spread::Entries if k + 1 != params.len() => {
                error(p.name.span, "`**kwargs` must be the last parameter")
            }
            _ => {}
        }
        if p.spread != Spread::No && p.default.is_some() {
            error(p.name.span, "a `*` or `**` parameter cannot have a default");
        }
        if params[..k].iter().any(|q| q.name.name == p.name.name) {
            error(
                p.name.span,
                "duplicate argument in the function's definition",
            );
        }
        // After `*args`, parameters are keyword-only: a default is not
        // needed; `**kwargs` never has one.
        if seen_items || p.spread != Spread::No {
            continue;
        }
        match (&p.default, seen_default) {
            (Some(_), _) => seen_default = true,
            (None, true) => error(
                p.name.span,
                "a parameter without a default follows one with a default",
            ),
            _ => {}
        }
    }
}
