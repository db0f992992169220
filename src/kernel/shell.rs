//! The shell channel: execute, complete, inspect, is_complete, history,
//! comm_info and kernel_info, one request at a time, each between a busy
//! and an idle status on iopub.

use std::collections::VecDeque;
use std::sync::{mpsc, Arc};
use std::time::Instant;

use jupyter_protocol::{
    CommInfoReply, CompleteReply, CompleteRequest, ErrorOutput, ExecuteInput, ExecuteReply,
    ExecuteRequest, ExecutionCount, HistoryReply, InspectReply, InspectRequest, IsCompleteReply,
    JupyterMessage, JupyterMessageContent, KernelInfoReply, Media, MediaType, Payload, ReplyError,
    ReplyStatus, ShutdownReply,
};
use jupyter_zmq_client::KernelShellConnection;
use tokio::sync::mpsc::unbounded_channel;
use tokio::sync::Notify;

use super::history::History;
use super::publish::Publisher;
use super::worker::{Event, Job};
use super::{wire, Iopub};
use crate::lang::Completeness;
use crate::session::jupyter::help_query;
use crate::session::{ErrorReport, Session};

struct Shell {
    iopub: Iopub,
    jobs: mpsc::Sender<Job>,
    /// The last execution count given (`In [n]`).
    count: usize,
    history: History,
}

pub async fn serve(
    mut conn: KernelShellConnection,
    iopub: Iopub,
    jobs: mpsc::Sender<Job>,
    kernel_info: Arc<KernelInfoReply>,
    shutdown: Arc<Notify>,
) {
    let mut shell = Shell {
        iopub,
        jobs,
        count: 0,
        history: History::default(),
    };
    // Requests that arrive while one is answered wait here, stamped with
    // when they arrived, so that `StopOnError` can tell which were queued.
    let mut queued: VecDeque<(Instant, JupyterMessage)> = VecDeque::new();
    let mut stop = StopOnError::default();
    loop {
        let (arrived, msg) = match queued.pop_front() {
            Some(next) => next,
            None => match wire::read(&mut conn, "shell").await {
                Some(msg) => (Instant::now(), msg),
                None => break,
            },
        };
        let abort =
            matches!(msg.content, JupyterMessageContent::ExecuteRequest(_)) && stop.aborts(arrived);
        shell.iopub.status(&msg, true);
        let (reply, failed) = {
            let answer = shell.answer(&msg, &kernel_info, abort);
            tokio::pin!(answer);
            loop {
                tokio::select! {
                    done = &mut answer => break done,
                    next = wire::read(&mut conn, "shell") => match next {
                        Some(next) => queued.push_back((Instant::now(), next)),
                        None => break answer.await,
                    },
                }
            }
        };
        stop.record(failed);
        if let Some(content) = reply {
            if let Err(e) = conn.send(wire::child(content, &msg)).await {
                eprintln!("cudash kernel: shell send failed: {e}");
            }
        }
        shell.iopub.status(&msg, false);
        if matches!(msg.content, JupyterMessageContent::ShutdownRequest(_)) {
            shutdown.notify_one();
            break;
        }
    }
}

/// After a cell fails with `stop_on_error`, the cells that had already
/// arrived behind it (Run All) are not run: each gets an `aborted` reply, as
/// from ipykernel. A cell sent after the client saw the error runs as usual.
///
/// What counts is when a request reached the kernel, not the date in its
/// header: the client's clock may differ from ours.
#[derive(Default)]
struct StopOnError {
    /// When the failing cell finished; `None` when not aborting.
    failed_at: Option<Instant>,
}

impl StopOnError {
    /// Whether an execute request that arrived at `arrived` is to be aborted.
    fn aborts(&mut self, arrived: Instant) -> bool {
        match self.failed_at {
            Some(t) if arrived <= t => true,
            _ => {
                self.failed_at = None;
                false
            }
        }
    }

    fn record(&mut self, failed: bool) {
        if failed {
            self.failed_at = Some(Instant::now());
        }
    }
}

impl Shell {
    /// The reply to one shell request (`None` for messages that get none),
    /// and whether it is a failed execute that stops the cells queued behind it.
    async fn answer(
        &mut self,
        msg: &JupyterMessage,
        kernel_info: &KernelInfoReply,
        abort: bool,
    ) -> (Option<JupyterMessageContent>, bool) {
        let mut failed = false;
        let reply = match &msg.content {
            JupyterMessageContent::ExecuteRequest(_) if abort => ExecuteReply {
                status: ReplyStatus::Aborted,
                execution_count: ExecutionCount::new(self.count),
                user_expressions: Some(Default::default()),
                ..Default::default()
            }
            .into(),
            JupyterMessageContent::ExecuteRequest(req) => {
                let reply = self.execute(msg, req).await;
                failed = req.stop_on_error && reply.status == ReplyStatus::Error;
                reply.into()
            }
            JupyterMessageContent::KernelInfoRequest(_) => kernel_info.clone().into(),
            JupyterMessageContent::CompleteRequest(req) => self.complete(req).await.into(),
            JupyterMessageContent::InspectRequest(req) => self.inspect(req).await.into(),
            JupyterMessageContent::IsCompleteRequest(req) => {
                let code = req.code.clone();
                match self.call(move |s| s.is_complete(&code)).await {
                    Some(Completeness::Complete) => IsCompleteReply::complete(),
                    Some(Completeness::Incomplete { indent }) => {
                        IsCompleteReply::incomplete(indent)
                    }
                    Some(Completeness::Invalid) => IsCompleteReply::invalid(),
                    None => IsCompleteReply::unknown(),
                }
                .into()
            }
            JupyterMessageContent::HistoryRequest(req) => {
                HistoryReply::new(self.history.answer(req)).into()
            }
            JupyterMessageContent::CommInfoRequest(_) => CommInfoReply::default().into(),
            // Older clients send shutdown on shell; it means the same.
            JupyterMessageContent::ShutdownRequest(req) => ShutdownReply {
                restart: req.restart,
                ..Default::default()
            }
            .into(),
            other => {
                eprintln!("cudash kernel: ignored `{}` on shell", other.message_type());
                return (None, false);
            }
        };
        (Some(reply), failed)
    }

    /// Runs `f` on the session thread and waits for its answer (`None` if that thread is gone).
    async fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session) -> R + Send + 'static,
    ) -> Option<R> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Job::Call(Box::new(move |s| {
                let _ = tx.send(f(s));
            })))
            .ok()?;
        rx.await.ok()
    }

    async fn execute(&mut self, msg: &JupyterMessage, req: &ExecuteRequest) -> ExecuteReply {
        let store = req.store_history && !req.silent;
        if store {
            self.count += 1;
        }
        let count = self.count;
        if !req.silent {
            self.iopub.send(wire::child(
                ExecuteInput {
                    code: req.code.clone(),
                    execution_count: ExecutionCount::new(count),
                },
                msg,
            ));
        }
        if let Some(name) = help_query(&req.code) {
            let reply = self.page_help(name, count).await;
            if store {
                self.history.push(count, &req.code, String::new());
            }
            return reply;
        }
        let (tx, mut events) = unbounded_channel();
        let sent = self.jobs.send(Job::Execute {
            code: req.code.clone(),
            events: tx,
        });
        let mut out = Publisher::new(&self.iopub, msg, count, req.silent);
        let error = if sent.is_err() {
            Some(stopped())
        } else {
            loop {
                let deadline = out.deadline();
                let due = async {
                    match deadline {
                        Some(d) => tokio::time::sleep_until(d).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    ev = events.recv() => match ev {
                        Some(Event::Output(o)) => out.push(o),
                        Some(Event::Done(e)) => break e,
                        None => break Some(stopped()),
                    },
                    _ = due => out.flush(),
                }
            }
        };
        out.flush();
        if store {
            self.history.push(count, &req.code, out.results.join("\n"));
        }
        let mut reply = ExecuteReply {
            execution_count: ExecutionCount::new(count),
            // Objects, not null: Jupyter's schema rejects null here.
            user_expressions: Some(Default::default()),
            ..Default::default()
        };
        if let Some(e) = error {
            let traceback = crate::session::jupyter::traceback(&e);
            if !req.silent {
                self.iopub.send(wire::child(
                    ErrorOutput {
                        ename: e.ename.clone(),
                        evalue: e.evalue.clone(),
                        traceback: traceback.clone(),
                    },
                    msg,
                ));
            }
            reply.status = ReplyStatus::Error;
            reply.error = Some(Box::new(ReplyError {
                ename: e.ename,
                evalue: e.evalue,
                traceback,
            }));
        }
        reply
    }

    /// `zeros?` or `x.sum?`, as in IPython: the help opens in the pager.
    async fn page_help(&self, name: &str, count: usize) -> ExecuteReply {
        let query = name.to_string();
        let help = self
            .call(move |s| s.inspect(&query, query.len()))
            .await
            .flatten();
        let mut reply = ExecuteReply {
            execution_count: ExecutionCount::new(count),
            user_expressions: Some(Default::default()),
            ..Default::default()
        };
        match help {
            Some(text) => reply.payload.push(Payload::Page {
                data: Media::new(vec![MediaType::Plain(text)]),
                start: 0,
            }),
            None => {
                reply.status = ReplyStatus::Error;
                let evalue = format!("no builtin, method or variable named `{name}`");
                reply.error = Some(Box::new(ReplyError {
                    ename: "NameError".into(),
                    traceback: vec![format!("NameError: {evalue}")],
                    evalue,
                }));
            }
        }
        reply
    }

    async fn complete(&self, req: &CompleteRequest) -> CompleteReply {
        let code = req.code.clone();
        let at = byte_offset(&code, req.cursor_pos);
        let found = self
            .call(move |s| {
                let c = s.complete(&code, at);
                let points = |b: usize| code[..b].chars().count();
                (c.matches, points(c.start), points(c.end))
            })
            .await;
        let (matches, cursor_start, cursor_end) =
            found.unwrap_or((Vec::new(), req.cursor_pos, req.cursor_pos));
        CompleteReply {
            matches,
            cursor_start,
            cursor_end,
            ..Default::default()
        }
    }

    async fn inspect(&self, req: &InspectRequest) -> InspectReply {
        let code = req.code.clone();
        let at = byte_offset(&code, req.cursor_pos);
        match self.call(move |s| s.inspect(&code, at)).await.flatten() {
            Some(text) => InspectReply {
                found: true,
                data: Media::new(vec![MediaType::Plain(text)]),
                ..Default::default()
            },
            None => InspectReply::default(),
        }
    }
}

/// The byte offset of code point `cursor` (Jupyter counts cursors in code points).
fn byte_offset(code: &str, cursor: usize) -> usize {
    code.char_indices()
        .nth(cursor)
        .map_or(code.len(), |(i, _)| i)
}

fn stopped() -> ErrorReport {
    let evalue = "the session thread has stopped (a bug); restart the kernel".to_string();
    ErrorReport {
        ename: "InternalError".into(),
        report: format!("InternalError: {evalue}\n"),
        evalue,
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{byte_offset, StopOnError};
    use crate::session::jupyter::help_query;

    #[test]
    fn stop_on_error_aborts_only_what_arrived_before_the_failure() {
        let before = Instant::now();
        let mut stop = StopOnError::default();
        assert!(!stop.aborts(before), "nothing failed yet");
        stop.record(true);
        let after = Instant::now() + Duration::from_millis(1);
        assert!(stop.aborts(before), "queued behind the failed cell");
        assert!(stop.aborts(before), "and the next one queued too");
        assert!(!stop.aborts(after), "sent after the error was seen");
        assert!(
            !stop.aborts(before),
            "aborting ended with the first new cell"
        );
        stop.record(false);
        assert!(!stop.aborts(before));
    }

    #[test]
    fn help_queries() {
        assert_eq!(help_query("zeros?"), Some("zeros"));
        assert_eq!(help_query(" ?x.sum?? \n"), Some("x.sum"));
        assert_eq!(help_query("zeros"), None);
        assert_eq!(help_query("?"), None);
        assert_eq!(help_query("a + b?"), None);
        assert_eq!(help_query("x..y?"), None);
    }

    #[test]
    fn cursor_positions_count_code_points() {
        let code = "é = 1; x";
        assert_eq!(byte_offset(code, 0), 0);
        assert_eq!(byte_offset(code, 1), 2);
        assert_eq!(byte_offset(code, code.chars().count()), code.len());
        assert_eq!(byte_offset(code, 100), code.len());
    }
}
