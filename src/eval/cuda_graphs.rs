//! CUDA graphs from the language: the natives `stdlib/torch_cuda_graphs.py`
//! (`torch.cuda.CUDAGraph`, `torch.cuda.graph`) calls, over the runtime's
//! capture and replay (`runtime::dispatch::graph`).

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::dispatch::graph::CudaGraph;

/// The natives `stdlib/torch_cuda_graphs.py` calls.
pub const NAMES: [&str; 8] = [
    "_cudash.own_forward",
    "torch.cuda.set_stream",
    "_cudash.graph_new",
    "_cudash.graph_capture_begin",
    "_cudash.graph_capture_end",
    "_cudash.graph_replay",
    "_cudash.graph_reset",
    "_cudash.is_current_stream_capturing",
];

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
            "_cudash.graph_capture_begin" => self.rt.capture_begin(&g),
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
