//! The one thread that owns the `Session`. Socket tasks talk to it through
//! channels: a job in, events (outputs as they happen, then the end) out.

use std::cell::RefCell;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};

use tokio::sync::mpsc::UnboundedSender;

use crate::session::Output;
use crate::session::{Config, ErrorReport, Session};

/// What a running cell reports, in order: its outputs, then `Done` once.
pub enum Event {
    Output(Output),
    Done(Option<ErrorReport>),
}

pub enum Job {
    /// Run a cell, streaming its outputs to `events`.
    Execute {
        code: String,
        events: UnboundedSender<Event>,
    },
    /// Anything else that needs the session (completion, inspection), answered
    /// through the channel the closure captured.
    Call(Box<dyn FnOnce(&mut Session) + Send>),
}

/// What the kernel learns from the session as it starts.
pub struct Started {
    pub interrupt: Arc<AtomicBool>,
    pub banner: String,
}

/// Starts the session thread. Jobs run one at a time, in the order sent.
pub fn spawn(config: Config) -> std::io::Result<(mpsc::Sender<Job>, Started)> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    let (tell, started) = mpsc::channel::<Result<Started, String>>();
    std::thread::Builder::new()
        .name("cudash-session".into())
        // Parsing and evaluation recurse; the REPL's thread has the same stack.
        .stack_size(crate::INTERPRETER_STACK)
        .spawn(move || run(config, inbox, tell))?;
    let started = started
        .recv()
        .map_err(|_| std::io::Error::other("the session thread stopped while starting"))?
        .map_err(std::io::Error::other)?;
    Ok((jobs, started))
}

fn run(config: Config, inbox: mpsc::Receiver<Job>, tell: mpsc::Sender<Result<Started, String>>) {
    let mut session = match Session::new(config) {
        Ok(s) => s,
        Err(msg) => {
            let _ = tell.send(Err(msg));
            return;
        }
    };
    session.enable_html();
    let route: Rc<RefCell<Option<UnboundedSender<Event>>>> = Rc::default();
    let sink = Rc::clone(&route);
    session.set_output_sink(move |o| {
        if let Some(tx) = sink.borrow().as_ref() {
            let _ = tx.send(Event::Output(o));
        }
    });
    let _ = tell.send(Ok(Started {
        interrupt: session.interrupt_handle(),
        banner: session.banner(),
    }));
    for job in inbox {
        match job {
            Job::Execute { code, events } => {
                *route.borrow_mut() = Some(events.clone());
                let run = std::panic::catch_unwind(AssertUnwindSafe(|| session.execute(&code)));
                *route.borrow_mut() = None;
                let error = match run {
                    Ok(outcome) => outcome.error,
                    Err(_) => Some(ErrorReport::internal()),
                };
                let _ = events.send(Event::Done(error));
            }
            Job::Call(f) => {
                if std::panic::catch_unwind(AssertUnwindSafe(|| f(&mut session))).is_err() {
                    eprintln!("cudash kernel: internal error answering a request (a bug)");
                }
            }
        }
    }
}
