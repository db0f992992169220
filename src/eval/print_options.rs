//! `torch.set_printoptions(precision, threshold, edgeitems, linewidth,
//! profile, sci_mode)`: how the session shows tensors from then on (`display::tensor::PrintOptions`), with
//! PyTorch's rules (a profile first, then each setting given; `sci_mode`
//! set each call, back to PyTorch's choice when not given).

use super::args::ArgVal;
use super::{Interp, Value};
use crate::display::tensor::{print_options, set_print_options, PrintOptions};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// The parameters in PyTorch's order (the positional ones bind in it).
const PARAMS: [&str; 6] = [
    "precision",
    "threshold",
    "edgeitems",
    "linewidth",
    "profile",
    "sci_mode",
];

impl Interp {
    pub(super) fn set_printoptions(&mut self, args: Vec<ArgVal>) -> Result<Value, Diagnostic> {
        let mut given: [Option<(Value, Span)>; 6] = Default::default();
        let mut next = 0;
        for a in args {
            let k = match &a.keyword {
                Some(k) => PARAMS.iter().position(|p| *p == k.name).ok_or_else(|| {
                    Error::Module {
                        class: "TypeError",
                        message: format!(
                            "set_printoptions() got an unexpected keyword argument '{}'",
                            k.name
                        ),
                        help: Some(format!("its settings: {}", PARAMS.join(", "))),
                    }
                    .at(a.span)
                })?,
                None => {
                    next += 1;
                    next - 1
                }
            };
            if k >= PARAMS.len() {
                return Err(Error::Module {
                    class: "TypeError",
                    message: "set_printoptions() takes from 0 to 6 positional arguments".into(),
                    help: None,
                }
                .at(a.span));
            }
            given[k] = Some((a.value, a.span));
        }
        let mut o = print_options();
        if let Some((v, at)) = &given[4] {
            match v {
                Value::None => {}
                Value::Str(p) => {
                    // PyTorch ignores a profile it does not know.
                    if let Some(p) = PrintOptions::profile(p) {
                        o = PrintOptions {
                            sci_mode: o.sci_mode,
                            ..p
                        };
                    }
                }
                other => {
                    return Err(Error::wrong_type("profile", "a string", other.type_name()).at(*at))
                }
            }
        }
        let count = |slot: &Option<(Value, Span)>, what: &str| -> Result<Option<f64>, Diagnostic> {
            match slot {
                None | Some((Value::None, _)) => Ok(None),
                Some((Value::Int(n), _)) if *n >= 0 => Ok(Some(*n as f64)),
                Some((Value::Float(x), _)) if what == "threshold" && x.get() >= 0.0 => {
                    Ok(Some(x.get()))
                }
                Some((v, at)) => {
                    Err(
                        Error::wrong_type(what, "a count (an int, 0 or more)", v.type_name())
                            .at(*at),
                    )
                }
            }
        };
        if let Some(p) = count(&given[0], "precision")? {
            if p > 1000.0 {
                let at = given[0].as_ref().map_or(Span::default(), |(_, s)| *s);
                return Err(Error::value_help(
                    format!("cudash shows at most 1000 digits after the point, not {p}"),
                    "a float32 holds about 7 significant digits, a float64 about 16",
                )
                .at(at));
            }
            o.precision = p as usize;
        }
        if let Some(t) = count(&given[1], "threshold")? {
            o.threshold = t;
        }
        if let Some(e) = count(&given[2], "edgeitems")? {
            o.edgeitems = e as usize;
        }
        if let Some(w) = count(&given[3], "linewidth")? {
            o.linewidth = w as usize;
        }
        o.sci_mode = match &given[5] {
            None | Some((Value::None, _)) => None,
            Some((Value::Bool(b), _)) => Some(b.get()),
            Some((v, at)) => {
                return Err(
                    Error::wrong_type("sci_mode", "true, false or none", v.type_name()).at(*at),
                )
            }
        };
        set_print_options(o);
        Ok(Value::None)
    }
}
