//! Messages on the wire: reading with signature checks, and making replies.
//!
//! `jupyter-zmq-client` signs, verifies and frames; this reads through its
//! `RawMessage` so that a message that fails its check is logged and dropped
//! (never run), and so that requests that leave out optional fields (as
//! `jupyter_client` does for `history`) still parse.

use jupyter_protocol::{JupyterMessage, JupyterMessageContent};
use jupyter_zmq_client::{Connection, RawMessage};
use serde_json::Value;

/// The next well-formed, correctly signed message, or `None` once the socket is closed.
pub async fn read<S: zeromq::SocketRecv>(
    conn: &mut Connection<S>,
    channel: &str,
) -> Option<JupyterMessage> {
    loop {
        let frames = match conn.socket.recv().await {
            Ok(f) => f,
            Err(e) => {
                eprintln!("cudash kernel: {channel} socket closed: {e}");
                return None;
            }
        };
        match decode_frames(frames, &conn.mac) {
            Ok(msg) => return Some(msg),
            Err(why) => eprintln!("cudash kernel: dropped a message on {channel}: {why}"),
        }
    }
}

/// The connection key as the signature check uses it (`None`: unsigned).
pub type Mac = Option<ring::hmac::Key>;

pub fn mac(key: &str) -> Mac {
    (!key.is_empty()).then(|| ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key.as_bytes()))
}

/// One multipart message off a socket: signature checked first, then decoded.
/// Never panics, whatever the frames hold (the `kernel_message` fuzz target).
pub fn decode_frames(frames: zeromq::ZmqMessage, mac: &Mac) -> Result<JupyterMessage, String> {
    let raw = RawMessage::from_multipart(frames, mac).map_err(|e| match e {
        jupyter_zmq_client::RuntimeError::VerifyError(_) => {
            "its signature does not match the connection key".to_string()
        }
        other => format!("malformed ({other})"),
    })?;
    decode(raw)
}

fn decode(raw: RawMessage) -> Result<JupyterMessage, String> {
    let part = |i: usize| -> Result<Value, String> {
        serde_json::from_slice(&raw.jparts[i]).map_err(|e| format!("bad JSON in part {i}: {e}"))
    };
    let header: jupyter_protocol::Header =
        serde_json::from_slice(&raw.jparts[0]).map_err(|e| format!("bad header: {e}"))?;
    let parent_header = serde_json::from_slice(&raw.jparts[1]).ok();
    let metadata = part(2)?;
    let mut content = part(3)?;
    fill_defaults(&header.msg_type, &mut content);
    let content = JupyterMessageContent::from_type_and_content(&header.msg_type, content)
        .map_err(|e| format!("bad {} content: {e}", header.msg_type))?;
    Ok(JupyterMessage {
        zmq_identities: raw.zmq_identities,
        header,
        parent_header,
        metadata,
        content,
        buffers: raw.jparts[4..].to_vec(),
        channel: None,
    })
}

/// Fields the protocol lets clients leave out, given their documented defaults.
fn fill_defaults(msg_type: &str, content: &mut Value) {
    let Some(obj) = content.as_object_mut() else {
        return;
    };
    let mut default = |k: &str, v: Value| {
        obj.entry(k.to_string()).or_insert(v);
    };
    match msg_type {
        "history_request" => {
            default("output", false.into());
            default("raw", true.into());
            default("session", 0.into());
            default("start", 0.into());
            default("stop", 0.into());
            default("n", i32::MAX.into());
            default("pattern", "*".into());
            default("unique", false.into());
        }
        "execute_request" => {
            default("silent", false.into());
            default("store_history", true.into());
            default("user_expressions", serde_json::json!({}));
        }
        "inspect_request" => default("detail_level", 0.into()),
        "shutdown_request" => default("restart", false.into()),
        _ => {}
    }
}

/// A reply or iopub message whose parent is `parent`.
pub fn child(content: impl Into<JupyterMessageContent>, parent: &JupyterMessage) -> JupyterMessage {
    let mut msg = JupyterMessage::new(content, Some(parent));
    msg.header.username = "cudash".into();
    msg
}
