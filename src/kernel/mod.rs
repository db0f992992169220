//! The Jupyter kernel: the same `Session` behind Jupyter's messaging protocol.
//!
//! Sockets (shell, control, iopub, stdin, heartbeat) live on one async thread;
//! the session lives on its own thread (`worker`) and is reached through
//! channels. Control stays responsive while a cell runs, so an interrupt stops
//! a loop and the session keeps its variables.

pub mod guard;
mod history;
pub mod install;
mod publish;
mod shell;
pub mod wire;
mod worker;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use jupyter_protocol::{
    ConnectionInfo, HelpLink, InterruptReply, IoPubWelcome, JupyterMessage, JupyterMessageContent,
    KernelInfoReply, LanguageInfo, ShutdownReply, Status,
};
use jupyter_zmq_client as zmq;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::sync::Notify;

use crate::session::Config;

/// Messages for iopub, sent in order by one task.
#[derive(Clone)]
pub struct Iopub(UnboundedSender<JupyterMessage>);

impl Iopub {
    pub fn send(&self, msg: JupyterMessage) {
        let _ = self.0.send(msg);
    }

    pub fn status(&self, parent: &JupyterMessage, busy: bool) {
        let s = if busy { Status::busy() } else { Status::idle() };
        self.send(wire::child(s, parent));
    }
}

/// `cudash kernel -f CONNECTION_FILE`: serves until a shutdown request.
///
/// Jupyter writes the file and passes it. When it does not exist, the kernel
/// writes one itself (as ipykernel does), for `jupyter console --existing
/// FILE`: loopback only, a fresh random key, ports chosen by the system, and
/// readable by this user alone.
pub fn run(config: Config, connection_file: &Path) -> u8 {
    let (info, write_to) = if connection_file.exists() {
        match read_connection_file(connection_file) {
            Ok(info) => (info, None),
            Err(e) => {
                eprintln!("cudash kernel: {e}");
                return 2;
            }
        }
    } else {
        match create_connection_file(connection_file) {
            Ok(f) => (
                fresh_connection_info(),
                Some((f, connection_file.to_path_buf())),
            ),
            Err(e) => {
                eprintln!(
                    "cudash kernel: cannot create the connection file {}: {e}",
                    connection_file.display()
                );
                return 2;
            }
        }
    };
    for warning in connection_warnings(&info) {
        eprintln!("cudash kernel: warning: {warning}");
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cudash kernel: cannot start: {e}");
            return 1;
        }
    };
    match runtime.block_on(serve(config, info, write_to)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cudash kernel: {e}");
            1
        }
    }
}

fn read_connection_file(path: &Path) -> Result<ConnectionInfo, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the connection file {}: {e}", path.display()))?;
    let info: ConnectionInfo = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a Jupyter connection file: {e}", path.display()))?;
    if !info.key.is_empty() && info.signature_scheme != "hmac-sha256" {
        return Err(format!(
            "signature scheme `{}` is not supported (only hmac-sha256)",
            info.signature_scheme
        ));
    }
    Ok(info)
}

fn fresh_connection_info() -> ConnectionInfo {
    let key = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    ConnectionInfo {
        ip: "127.0.0.1".into(),
        transport: jupyter_protocol::Transport::TCP,
        shell_port: 0,
        iopub_port: 0,
        stdin_port: 0,
        control_port: 0,
        hb_port: 0,
        key,
        signature_scheme: "hmac-sha256".into(),
        kernel_name: Some("cudash".into()),
    }
}

/// What a user should know about where the kernel listens and who may talk to it.
pub fn connection_warnings(info: &ConnectionInfo) -> Vec<String> {
    let mut w = Vec::new();
    if info.key.is_empty() {
        w.push("the connection file has no key: messages are not signed, so anyone who can reach the ports can run code".to_string());
    }
    let loopback = match info.transport {
        jupyter_protocol::Transport::IPC => true,
        jupyter_protocol::Transport::TCP => info
            .ip
            .parse::<std::net::IpAddr>()
            .map(|a| a.is_loopback())
            .unwrap_or(info.ip == "localhost"),
    };
    if !loopback {
        w.push(format!(
            "listening on {}, not on loopback: other machines can reach the kernel's ports",
            info.ip
        ));
    }
    w
}

/// A new file, readable and writable by this user only; never one that exists.
fn create_connection_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

fn write_connection_file(mut f: std::fs::File, info: &ConnectionInfo) -> std::io::Result<()> {
    use std::io::Write;
    let text = serde_json::to_string_pretty(info).map_err(std::io::Error::other)?;
    f.write_all(text.as_bytes())
}

async fn serve(
    config: Config,
    info: ConnectionInfo,
    write_to: Option<(std::fs::File, std::path::PathBuf)>,
) -> Result<(), String> {
    let (jobs, started) =
        worker::spawn(config).map_err(|e| format!("cannot start the session: {e}"))?;
    let interrupt = started.interrupt;
    // A SIGINT (a kernelspec without `interrupt_mode: message`, or Ctrl-C in
    // the terminal that started the kernel) interrupts the cell too.
    crate::session::interrupt_on_ctrl_c(&interrupt);
    let session_id = uuid::Uuid::new_v4().to_string();
    // The ports the connection file names belong to the guard, which relays
    // to the ZeroMQ sockets on the private side (see `guard`).
    let mut public = info;
    let inner = guard::inner(&public)?;
    let info = inner.info.clone();
    let mut listeners = Vec::new();
    let (transport, ip) = (public.transport.clone(), public.ip.clone());
    for (channel, port, inner_port) in [
        ("shell", &mut public.shell_port, info.shell_port),
        ("iopub", &mut public.iopub_port, info.iopub_port),
        ("stdin", &mut public.stdin_port, info.stdin_port),
        ("control", &mut public.control_port, info.control_port),
        ("heartbeat", &mut public.hb_port, info.hb_port),
    ] {
        let (listener, bound) = guard::bind(&transport, &ip, *port)
            .await
            .map_err(|e| format!("cannot open the {channel} socket at {ip} port {port}: {e}"))?;
        *port = bound;
        listeners.push((channel, listener, format!("{}-{inner_port}", info.ip)));
    }
    if let Some((file, path)) = write_to {
        write_connection_file(file, &public)
            .map_err(|e| format!("cannot write the connection file {}: {e}", path.display()))?;
        eprintln!(
            "cudash kernel: wrote {} (loopback, readable by you only); connect with\n  jupyter console --existing {}",
            path.display(),
            path.display()
        );
    }
    let err = |what: &'static str| {
        move |e: zmq::RuntimeError| format!("cannot open the {what} socket: {e}")
    };
    let shell = zmq::create_kernel_shell_connection(&info, &session_id)
        .await
        .map_err(err("shell"))?;
    let control = zmq::create_kernel_control_connection(&info, &session_id)
        .await
        .map_err(err("control"))?;
    let mut iopub_conn = zmq::create_kernel_iopub_xpub_connection(&info, &session_id)
        .await
        .map_err(err("iopub"))?;
    let mut stdin = zmq::create_kernel_stdin_connection(&info, &session_id)
        .await
        .map_err(err("stdin"))?;
    let mut heartbeat = zmq::create_kernel_heartbeat_connection(&info)
        .await
        .map_err(err("heartbeat"))?;
    for (channel, listener, inner_path) in listeners {
        tokio::spawn(guard::relay(listener, inner_path, channel));
    }

    let (tx, mut rx) = unbounded_channel::<JupyterMessage>();
    let iopub = Iopub(tx);
    // One task owns iopub: it publishes what the others queue, and greets each
    // new subscriber with `iopub_welcome` (JEP 65), which tells a client its
    // subscription is live. An XPUB socket only learns of subscribers by reading.
    tokio::spawn(async move {
        loop {
            tokio::select! {
                msg = rx.recv() => match msg {
                    Some(msg) => {
                        if let Err(e) = iopub_conn.send(msg).await {
                            eprintln!("cudash kernel: iopub send failed: {e}");
                        }
                    }
                    None => break,
                },
                sub = iopub_conn.recv_subscription() => match sub {
                    Ok(zmq::SubscriptionEvent::Subscribe(topic)) => {
                        let welcome = JupyterMessage::new(IoPubWelcome::new(topic), None);
                        if let Err(e) = iopub_conn.send(welcome).await {
                            eprintln!("cudash kernel: iopub send failed: {e}");
                        }
                    }
                    Ok(zmq::SubscriptionEvent::Unsubscribe(_)) => {}
                    // A frame that is not a subscription: nothing to do.
                    Err(zmq::RuntimeError::ZmqMessageError(_)) => {}
                    Err(e) => {
                        eprintln!("cudash kernel: iopub socket failed: {e}");
                        break;
                    }
                },
            }
        }
    });
    tokio::spawn(async move { while heartbeat.single_heartbeat().await.is_ok() {} });
    // Nothing asks for input (no `input()` in the language); keep the socket
    // bound so clients connect, and drop whatever arrives.
    tokio::spawn(async move { while wire::read(&mut stdin, "stdin").await.is_some() {} });

    let kernel_info = Arc::new(kernel_info(&started.banner));
    let shutdown = Arc::new(Notify::new());

    let control_task = tokio::spawn(control_loop(
        control,
        iopub.clone(),
        Arc::clone(&kernel_info),
        interrupt,
        Arc::clone(&shutdown),
    ));
    let shell_task = tokio::spawn(shell::serve(
        shell,
        iopub.clone(),
        jobs,
        kernel_info,
        Arc::clone(&shutdown),
    ));
    shutdown.notified().await;
    // Let the last replies and iopub messages leave before the sockets close.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    control_task.abort();
    shell_task.abort();
    drop(inner);
    Ok(())
}

/// Control: interrupt, shutdown and kernel_info, answered even while a cell runs.
async fn control_loop(
    mut control: zmq::KernelControlConnection,
    iopub: Iopub,
    kernel_info: Arc<KernelInfoReply>,
    interrupt: Arc<AtomicBool>,
    shutdown: Arc<Notify>,
) {
    while let Some(msg) = wire::read(&mut control, "control").await {
        iopub.status(&msg, true);
        let reply = match &msg.content {
            JupyterMessageContent::InterruptRequest(_) => {
                interrupt.store(true, Ordering::Relaxed);
                Some(wire::child(InterruptReply::new(), &msg))
            }
            JupyterMessageContent::ShutdownRequest(req) => Some(wire::child(
                ShutdownReply {
                    restart: req.restart,
                    ..Default::default()
                },
                &msg,
            )),
            JupyterMessageContent::KernelInfoRequest(_) => {
                Some(wire::child((*kernel_info).clone(), &msg))
            }
            other => {
                eprintln!(
                    "cudash kernel: ignored `{}` on control",
                    other.message_type()
                );
                None
            }
        };
        if let Some(reply) = reply {
            if let Err(e) = control.send(reply).await {
                eprintln!("cudash kernel: control send failed: {e}");
            }
        }
        iopub.status(&msg, false);
        if matches!(msg.content, JupyterMessageContent::ShutdownRequest(_)) {
            // Stop the running cell too; the process ends right after.
            interrupt.store(true, Ordering::Relaxed);
            shutdown.notify_one();
            return;
        }
    }
}

fn kernel_info(banner: &str) -> KernelInfoReply {
    let version = env!("CARGO_PKG_VERSION").to_string();
    let link = |text: &str, url: &str| HelpLink {
        text: text.into(),
        url: url.into(),
    };
    KernelInfoReply {
        status: Default::default(),
        protocol_version: "5.3".into(),
        implementation: "cudash".into(),
        implementation_version: version.clone(),
        language_info: LanguageInfo {
            name: "cudash".into(),
            version,
            mimetype: Some("text/x-cudash".into()),
            file_extension: Some(".cudash".into()),
            // The syntax reads like Python's; its lexer and editor mode fit well.
            pygments_lexer: Some("python".into()),
            codemirror_mode: Some(jupyter_protocol::CodeMirrorMode::python()),
            nbconvert_exporter: Some("script".into()),
        },
        banner: format!("{banner}\nType `help` for the language, `help NAME` for one builtin."),
        help_links: vec![
            link(
                "CUDA semantics (PyTorch)",
                "https://docs.pytorch.org/docs/stable/notes/cuda.html",
            ),
            link(
                "CUDA C++ Programming Guide: streams",
                "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#streams",
            ),
        ],
        debugger: false,
        error: None,
    }
}
