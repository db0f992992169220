//! CUDA graphs from the language: the natives `stdlib/torch_cuda_graphs.py`
//! (`torch.cuda.CUDAGraph`, `torch.cuda.graph`) calls, over the runtime's
//! capture and replay (`runtime::dispatch::graph`).

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::alloc::MempoolId;
use crate::runtime::dispatch::graph::CudaGraph;

/// The natives `stdlib/torch_cuda_graphs.py` calls.
pub const NAMES: [&str; 10] = [
    "_cudash.own_forward",
    "torch.cuda.set_stream",
    "_cudash.graph_new",
    "_cudash.graph_capture_begin",
    "_cudash.graph_capture_end",
    "_cudash.graph_replay",
    "_cudash.graph_reset",
    "_cudash.is_current_stream_capturing",
    "_cudash.graph_pool",
    "_cudash.graph_pool_handle",
];

/// A memory pool id as Python holds it: a tuple of two ints.
fn pool_value((a, b): MempoolId) -> Value {
    Value::List(Arc::new(vec![Value::Int(a as i64), Value::Int(b as i64)]))
}

/// A pool id from Python: None, a `(a, b)` tuple (`graph_pool_handle()`,
/// `g.pool()`), or an object with such an `id` (a `MemPool`'s, read by
/// the caller).
fn pool_arg(v: Option<&Value>) -> Result<Option<MempoolId>, Error> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::List(items)) => match items.as_slice() {
            [Value::Int(a), Value::Int(b)] if *a >= 0 && *b >= 0 => {
                Ok(Some((*a as u64, *b as u64)))
            }
            _ => Err(Error::value("a memory pool id is a tuple of two ints")),
        },
        Some(_) => Err(Error::value(
            "pool must be a handle from torch.cuda.graph_pool_handle() or another graph's pool()",
        )),
    }
}

impl Interp {
    pub(super) fn call_cuda_graph(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match name {
            "_cudash.graph_new" => return Ok(Value::CudaGraph(CudaGraph::new())),
            "_cudash.is_current_stream_capturing" => {
                return Ok(Value::bool(self.rt.is_current_stream_capturing()))
            }
            "_cudash.graph_pool_handle" => return Ok(pool_value(self.rt.graph_pool_handle())),
            // A module's class or layer forward, past one set on the
            // instance (`make_graphed_callables`' eager path).
            "_cudash.own_forward" => {
                let mut args = args.into_iter();
                return match args.next().map(|a| a.value) {
                    Some(Value::Module(m)) => self.own_forward(&m, args.collect(), span),
                    _ => Err(Error::value("own_forward() takes a module").at(span)),
                };
            }
            // As PyTorch's: the stream becomes its device's current one, and
            // its device the current device (the `with` form restores both).
            "torch.cuda.set_stream" => {
                return match args.first().map(|a| &a.value) {
                    Some(Value::Stream(s)) => {
                        self.rt.enter_stream(s.key);
                        Ok(Value::None)
                    }
                    _ => Err(Error::value("set_stream() takes a stream").at(span)),
                };
            }
            _ => {}
        }
        let g = match args.first().map(|a| &a.value) {
            Some(Value::CudaGraph(g)) => Arc::clone(g),
            _ => return Err(Error::value(format!("{name} takes a CUDA graph")).at(span)),
        };
        let done = match name {
            "_cudash.graph_capture_begin" => pool_arg(args.get(1).map(|a| &a.value))
                .and_then(|pool| self.rt.capture_begin(&g, pool)),
            "_cudash.graph_pool" => {
                return self
                    .rt
                    .graph_pool(&g)
                    .map(pool_value)
                    .map_err(|e| e.at(span))
            }
            "_cudash.graph_capture_end" => self.rt.capture_end(&g),
            "_cudash.graph_replay" => self.rt.replay(&g),
            _ => {
                self.rt.reset_graph(&g);
                Ok(())
            }
        };
        done.map(|()| Value::None).map_err(|e| e.at(span))
    }
}
