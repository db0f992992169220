//! Tokens produced by the lexer.

use std::fmt;
use std::sync::Arc;

use crate::vocab::{BinaryOp, DType};

/// A token (or anything else) with the span of source it came from.
pub type Spanned<T> = (T, crate::vocab::Span);

/// Keywords that start statements. They cannot be used as variable names,
/// but they can be used as method names (`e.sync()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kw {
    Del,
    With,
    Wait,
    Pin,
    Sync,
    Mem,
    For,
    In,
    Profile,
    Help,
    Is,
    Fn,
    Return,
    If,
    Elif,
    Else,
    While,
    Break,
    Continue,
    And,
    Or,
    Not,
    NoGrad,
    Class,
    Lambda,
    Try,
    Except,
    Finally,
    Raise,
    Assert,
    Pass,
    Global,
    Nonlocal,
    Import,
    From,
    As,
    Yield,
}

impl Kw {
    pub const ALL: [Kw; 37] = [
        Kw::Del,
        Kw::With,
        Kw::Wait,
        Kw::Pin,
        Kw::Sync,
        Kw::Mem,
        Kw::For,
        Kw::In,
        Kw::Profile,
        Kw::Help,
        Kw::Is,
        Kw::Fn,
        Kw::Return,
        Kw::If,
        Kw::Elif,
        Kw::Else,
        Kw::While,
        Kw::Break,
        Kw::Continue,
        Kw::And,
        Kw::Or,
        Kw::Not,
        Kw::NoGrad,
        Kw::Class,
        Kw::Lambda,
        Kw::Try,
        Kw::Except,
        Kw::Finally,
        Kw::Raise,
        Kw::Assert,
        Kw::Pass,
        Kw::Global,
        Kw::Nonlocal,
        Kw::Import,
        Kw::From,
        Kw::As,
        Kw::Yield,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kw::Del => "del",
            Kw::With => "with",
            Kw::Wait => "wait",
            Kw::Pin => "pin",
            Kw::Sync => "sync",
            Kw::Mem => "mem",
            Kw::For => "for",
            Kw::In => "in",
            Kw::Profile => "profile",
            Kw::Help => "help",
            Kw::Is => "is",
            Kw::Fn => "fn",
            Kw::Return => "return",
            Kw::If => "if",
            Kw::Elif => "elif",
            Kw::Else => "else",
            Kw::While => "while",
            Kw::Break => "break",
            Kw::Continue => "continue",
            Kw::And => "and",
            Kw::Or => "or",
            Kw::Not => "not",
            Kw::NoGrad => "no_grad",
            Kw::Class => "class",
            Kw::Lambda => "lambda",
            Kw::Try => "try",
            Kw::Except => "except",
            Kw::Finally => "finally",
            Kw::Raise => "raise",
            Kw::Assert => "assert",
            Kw::Pass => "pass",
            Kw::Global => "global",
            Kw::Nonlocal => "nonlocal",
            Kw::Import => "import",
            Kw::From => "from",
            Kw::As => "as",
            Kw::Yield => "yield",
        }
    }

    pub fn from_word(word: &str) -> Option<Kw> {
        match word {
            // Python's spelling of `fn`.
            "def" => Some(Kw::Fn),
            _ => Kw::ALL.into_iter().find(|k| k.as_str() == word),
        }
    }
}

/// Punctuation and operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Punct {
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Colon,
    Dot,
    DotDot,
    /// `...` in an index: every dimension not indexed otherwise.
    Ellipsis,
    Assign,
    Plus,
    Minus,
    Star,
    StarStar,
    Slash,
    SlashSlash,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    Percent,
    Amp,
    Pipe,
    Caret,
    Tilde,
    /// `+=`, `//=`, `**=` and the rest: an op written in place.
    Augmented(BinaryOp),
    At,
    /// `->` before a function's return annotation.
    Arrow,
    /// `:=`: an assignment expression (Python's "walrus").
    Walrus,
    EqEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Punct {
    pub fn as_str(self) -> &'static str {
        match self {
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::LBrace => "{",
            Punct::RBrace => "}",
            Punct::Comma => ",",
            Punct::Semi => ";",
            Punct::Colon => ":",
            Punct::Walrus => ":=",
            Punct::Dot => ".",
            Punct::DotDot => "..",
            Punct::Ellipsis => "...",
            Punct::Assign => "=",
            Punct::Plus => "+",
            Punct::Minus => "-",
            Punct::Star => "*",
            Punct::StarStar => "**",
            Punct::Slash => "/",
            Punct::SlashSlash => "//",
            Punct::Shl => "<<",
            Punct::Shr => ">>",
            Punct::Percent => "%",
            Punct::Amp => "&",
            Punct::Pipe => "|",
            Punct::Caret => "^",
            Punct::Tilde => "~",
            Punct::Augmented(op) => match op {
                BinaryOp::Add => "+=",
                BinaryOp::Sub => "-=",
                BinaryOp::Mul => "*=",
                BinaryOp::Div => "/=",
                BinaryOp::Pow => "**=",
                BinaryOp::FloorDiv => "//=",
                BinaryOp::Rem => "%=",
                BinaryOp::BitAnd => "&=",
                BinaryOp::BitOr => "|=",
                BinaryOp::BitXor => "^=",
                BinaryOp::Shl => "<<=",
                BinaryOp::Shr => ">>=",
                _ => "=",
            },
            Punct::At => "@",
            Punct::Arrow => "->",
            Punct::EqEq => "==",
            Punct::Ne => "!=",
            Punct::Lt => "<",
            Punct::Le => "<=",
            Punct::Gt => ">",
            Punct::Ge => ">=",
        }
    }

    /// The closing bracket for an opening one.
    pub fn closer(self) -> Option<Punct> {
        match self {
            Punct::LParen => Some(Punct::RParen),
            Punct::LBracket => Some(Punct::RBracket),
            Punct::LBrace => Some(Punct::RBrace),
            _ => None,
        }
    }
}

/// A device literal: `cpu`, `cuda` (the current CUDA device) or `cuda:N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceLit {
    Cpu,
    Cuda(Option<u32>),
}

impl fmt::Display for DeviceLit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceLit::Cpu => f.write_str("cpu"),
            DeviceLit::Cuda(None) => f.write_str("cuda"),
            DeviceLit::Cuda(Some(n)) => write!(f, "cuda:{n}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Int(i64),
    Float(f64),
    /// Text payloads are shared: the parser clones the next token for every
    /// alternative it tries, and an `Arc` clone is a counter bump, not a copy.
    Str(Arc<str>),
    /// `b"..."`: bytes, escapes read (`b"\x89PNG"`), or raw (`rb"..."`).
    Bytes(Arc<[u8]>),
    /// `f"..."`: the text between the quotes as written (escapes and
    /// `{fields}` read by the parser), and where that text starts.
    FStr(Arc<(String, usize)>),
    Bool(bool),
    None,
    Ident(Arc<str>),
    Kw(Kw),
    Device(DeviceLit),
    DType(DType),
    P(Punct),
    Newline,
}

impl Token {
    /// The word a method or help topic may be named by (`x.sync()`, `x.cuda()`, `help f32`).
    pub fn as_word(&self) -> Option<String> {
        match self {
            Token::Ident(s) => Some(s.to_string()),
            Token::Kw(k) => Some(k.as_str().to_string()),
            Token::Device(DeviceLit::Cpu) => Some("cpu".into()),
            Token::Device(DeviceLit::Cuda(None)) => Some("cuda".into()),
            Token::DType(d) => Some(d.name().to_string()),
            Token::Bool(b) => Some(b.to_string()),
            Token::None => Some("none".into()),
            _ => None,
        }
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Int(n) => write!(f, "{n}"),
            Token::Float(x) => write!(f, "{x:?}"),
            Token::Str(s) => write!(f, "{s:?}"),
            Token::Bytes(b) => write!(f, "b{:?}", String::from_utf8_lossy(b)),
            Token::FStr(s) => write!(f, "f{:?}", s.0),
            Token::Bool(b) => write!(f, "{b}"),
            Token::None => f.write_str("none"),
            Token::Ident(s) => f.write_str(s),
            Token::Kw(k) => f.write_str(k.as_str()),
            Token::Device(d) => write!(f, "{d}"),
            Token::DType(d) => f.write_str(d.name()),
            Token::P(p) => f.write_str(p.as_str()),
            Token::Newline => f.write_str("end of line"),
        }
    }
}
