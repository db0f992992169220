//! The guard in front of the kernel's sockets.
//!
//! The ZeroMQ library reserves memory for a frame as soon as it reads the
//! frame's length, before a single byte of it arrives: one 9-byte header that
//! claims 2^62 bytes, from anyone who can reach the port, aborts the process.
//! So the kernel owns the ports the connection file names and relays each
//! connection to its ZeroMQ sockets, which listen on Unix sockets in a
//! directory only this user can enter. On the way in, `Scanner` follows the
//! ZMTP framing (it never looks inside a frame) and ends a connection whose
//! greeting is not ZMTP 3, whose flags are malformed, or whose frame or
//! message is over the limit. What the kernel sends back is relayed as is.

use std::path::{Path, PathBuf};

use jupyter_protocol::{ConnectionInfo, Transport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UnixListener, UnixStream};

/// The largest message (all its frames) a client may send: far above any
/// cell's source, and small enough that a laptop survives buffering it.
pub const MAX_MESSAGE: u64 = 256 << 20;

const GREETING: usize = 64;

/// Follows a ZMTP 3 byte stream from a client, frame by frame.
#[derive(Debug, Default)]
pub struct Scanner {
    state: State,
    /// Bytes of the current message so far (its frames before this one).
    message: u64,
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// Inside the 64-byte greeting, at this offset.
    At(usize),
    Flags,
    /// Reading the length: `need` bytes big-endian, `got` so far.
    Length {
        flags: u8,
        need: u8,
        got: u8,
        value: u64,
    },
    Body {
        left: u64,
    },
}

impl Default for State {
    fn default() -> Self {
        State::At(0)
    }
}

const MORE: u8 = 0b001;
const LONG: u8 = 0b010;
const COMMAND: u8 = 0b100;

impl Scanner {
    /// Takes the next bytes from the client; an error ends the connection.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Result<(), String> {
        while let Some(&b) = bytes.first() {
            match self.state {
                State::At(i) => {
                    let ok = match i {
                        0 => b == 0xFF,
                        9 => b == 0x7F,
                        10 => b >= 3,
                        _ => true,
                    };
                    if !ok {
                        return Err(format!("not a ZMTP 3 greeting (byte {i} is {b:#04x})"));
                    }
                    self.state = if i + 1 == GREETING {
                        State::Flags
                    } else {
                        State::At(i + 1)
                    };
                    bytes = &bytes[1..];
                }
                State::Flags => {
                    if b & !(MORE | LONG | COMMAND) != 0 {
                        return Err(format!("malformed frame flags {b:#04x}"));
                    }
                    let need = if b & LONG != 0 { 8 } else { 1 };
                    self.state = State::Length {
                        flags: b,
                        need,
                        got: 0,
                        value: 0,
                    };
                    bytes = &bytes[1..];
                }
                State::Length {
                    flags,
                    need,
                    got,
                    value,
                } => {
                    let value = value << 8 | u64::from(b);
                    bytes = &bytes[1..];
                    if got + 1 < need {
                        self.state = State::Length {
                            flags,
                            need,
                            got: got + 1,
                            value,
                        };
                        continue;
                    }
                    if flags & COMMAND == 0 {
                        self.message = self.message.saturating_add(value);
                        if self.message > MAX_MESSAGE {
                            return Err(format!(
                                "a message of {} bytes or more, over the {} MiB limit",
                                self.message,
                                MAX_MESSAGE >> 20
                            ));
                        }
                        if flags & MORE == 0 {
                            self.message = 0;
                        }
                    } else if value > 1 << 16 {
                        return Err(format!("a command frame of {value} bytes"));
                    }
                    self.state = if value == 0 {
                        State::Flags
                    } else {
                        State::Body { left: value }
                    };
                }
                State::Body { left } => {
                    let take = left.min(bytes.len() as u64);
                    bytes = &bytes[take as usize..];
                    self.state = if take == left {
                        State::Flags
                    } else {
                        State::Body { left: left - take }
                    };
                }
            }
        }
        Ok(())
    }
}

/// The kernel's private side: where its ZeroMQ sockets listen. Removed on drop.
pub struct Inner {
    pub info: ConnectionInfo,
    dir: PathBuf,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A private directory for the inner sockets, and the connection info that
/// points the ZeroMQ sockets there.
pub fn inner(public: &ConnectionInfo) -> Result<Inner, String> {
    remove_dead();
    // Short: a Unix socket path may not exceed 107 bytes, and TMPDIR can be long.
    let dir = std::env::temp_dir().join(format!("{PREFIX}{}", uuid::Uuid::new_v4().simple()));
    private_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut info = public.clone();
    info.transport = Transport::IPC;
    info.ip = dir.join("s").to_string_lossy().into_owned();
    (info.shell_port, info.iopub_port, info.stdin_port) = (1, 2, 3);
    (info.control_port, info.hb_port) = (4, 5);
    Ok(Inner { info, dir })
}

const PREFIX: &str = "cudash-kernel-";

/// Directories left by kernels that were killed (no chance to clean up):
/// nothing answers on their shell socket any more, and they are over a minute
/// old (a kernel starting beside this one has not bound its sockets yet).
fn remove_dead() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let owned = {
            use std::os::unix::fs::MetadataExt;
            e.metadata().is_ok_and(|m| {
                let age = m.modified().ok().and_then(|t| t.elapsed().ok());
                m.uid() == unsafe { libc::getuid() } && age.is_some_and(|a| a.as_secs() > 60)
            })
        };
        if owned && e.file_name().to_string_lossy().starts_with(PREFIX) {
            let shell = e.path().join("s-1");
            if std::os::unix::net::UnixStream::connect(&shell).is_err() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(dir)
}

/// One public listener per channel, bound where the connection file says.
pub enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

/// Binds `ip`/`port` (port 0: one the system picks); returns the port bound.
pub async fn bind(transport: &Transport, ip: &str, port: u16) -> std::io::Result<(Listener, u16)> {
    Ok(match transport {
        Transport::TCP => {
            let l = TcpListener::bind((ip, port)).await?;
            let port = l.local_addr()?.port();
            (Listener::Tcp(l), port)
        }
        Transport::IPC => (
            Listener::Unix(UnixListener::bind(format!("{ip}-{port}"))?),
            port,
        ),
    })
}

/// Relays every connection on `listener` to the inner socket at `inner`.
pub async fn relay(listener: Listener, inner: String, channel: &'static str) {
    loop {
        let accepted = match &listener {
            Listener::Tcp(l) => l.accept().await.map(|(s, _)| Stream::Tcp(s)),
            Listener::Unix(l) => l.accept().await.map(|(s, _)| Stream::Unix(s)),
        };
        match accepted {
            Ok(client) => {
                let inner = inner.clone();
                tokio::spawn(async move {
                    if let Err(why) = pipe(client, &inner).await {
                        eprintln!("cudash kernel: closed a connection on {channel}: {why}");
                    }
                });
            }
            Err(e) => {
                eprintln!("cudash kernel: {channel}: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
}

enum Stream {
    Tcp(tokio::net::TcpStream),
    Unix(UnixStream),
}

async fn pipe(client: Stream, inner: &str) -> Result<(), String> {
    let kernel = UnixStream::connect(inner)
        .await
        .map_err(|e| format!("cannot reach the inner socket: {e}"))?;
    match client {
        Stream::Tcp(s) => {
            let _ = s.set_nodelay(true);
            let (r, w) = s.into_split();
            both_ways(r, w, kernel).await
        }
        Stream::Unix(s) => {
            let (r, w) = s.into_split();
            both_ways(r, w, kernel).await
        }
    }
}

async fn both_ways<R, W>(
    mut from_client: R,
    mut to_client: W,
    kernel: UnixStream,
) -> Result<(), String>
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let (mut from_kernel, mut to_kernel) = kernel.into_split();
    let inbound = async {
        let mut scanner = Scanner::default();
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let n = from_client
                .read(&mut buf)
                .await
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Ok(());
            }
            scanner.feed(&buf[..n])?;
            to_kernel
                .write_all(&buf[..n])
                .await
                .map_err(|e| e.to_string())?;
        }
    };
    let outbound = async {
        let _ = tokio::io::copy(&mut from_kernel, &mut to_client).await;
        Ok::<(), String>(())
    };
    // Either side ending ends the connection: dropping both halves closes the
    // client's socket and the inner one, and ZeroMQ forgets the peer.
    tokio::select! {
        r = inbound => r,
        r = outbound => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn greeting() -> Vec<u8> {
        let mut g = vec![0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 3, 1];
        g.extend(b"NULL");
        g.resize(GREETING, 0);
        g
    }

    #[test]
    fn a_well_formed_stream_passes_in_any_split() {
        let mut s = greeting();
        s.extend([0x04, 5]); // a command frame of 5 bytes
        s.extend(b"READY");
        s.extend([0x01, 3]); // "abc", more to come
        s.extend(b"abc");
        s.extend([0x02, 0, 0, 0, 0, 0, 0, 1, 0]); // a long frame of 256 bytes
        s.extend([7u8; 256]);
        for cut in 0..s.len() {
            let mut sc = Scanner::default();
            sc.feed(&s[..cut]).unwrap();
            sc.feed(&s[cut..]).unwrap();
            assert!(matches!(sc.state, State::Flags), "cut at {cut}");
        }
    }

    #[test]
    fn an_oversized_frame_is_refused_from_its_header() {
        let mut s = greeting();
        s.push(0x02);
        s.extend((1u64 << 62).to_be_bytes());
        let err = Scanner::default().feed(&s).unwrap_err();
        assert!(err.contains("over the 256 MiB limit"), "{err}");
    }

    #[test]
    fn frames_of_one_message_count_together() {
        let mut s = greeting();
        for _ in 0..3 {
            s.push(0x03); // long, more
            s.extend((100u64 << 20).to_be_bytes());
        }
        let mut sc = Scanner::default();
        // Only the headers matter here: feed each with its body skipped.
        let head = GREETING;
        sc.feed(&s[..head + 9]).unwrap();
        sc.state = State::Flags;
        sc.feed(&s[head + 9..head + 18]).unwrap();
        sc.state = State::Flags;
        assert!(sc.feed(&s[head + 18..]).unwrap_err().contains("message"));
    }

    #[test]
    fn bad_greetings_and_flags_are_refused() {
        assert!(Scanner::default().feed(b"GET / HTTP/1.1\r\n").is_err());
        let mut old = greeting();
        old[10] = 2;
        assert!(Scanner::default().feed(&old).is_err());
        let mut s = greeting();
        s.push(0x80);
        assert!(Scanner::default().feed(&s).is_err());
        let mut s = greeting();
        s.extend([0x06, 0, 0, 0, 0, 1, 0, 0, 0]); // a 16 MiB command
        assert!(Scanner::default().feed(&s).is_err());
    }
}
