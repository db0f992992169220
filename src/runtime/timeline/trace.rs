//! `profile "run.json" { }`: the timeline as a Chrome trace (the Trace Event
//! Format, which Perfetto and chrome://tracing open), written as the items
//! are recorded, so a long block never holds its trace in memory.
//!
//! The host is process 0; device `d` is process `d + 1`, with one thread
//! (track) per stream. Kernels, copies and host waits are complete events
//! (`"ph": "X"`), host syncs instant events (`"ph": "i"`); times are in
//! microseconds of the simulator's model.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::{Item, Kind, Lane};

pub struct TraceWriter {
    out: BufWriter<File>,
    /// Processes already named (`process_name` metadata).
    named: Vec<u32>,
    /// The first write error; later writes are skipped and `finish` returns it.
    error: Option<std::io::Error>,
    first: bool,
}

impl TraceWriter {
    /// Creates (or truncates) `path` and writes the opening of the trace.
    pub fn create(path: &Path) -> std::io::Result<TraceWriter> {
        let mut out = BufWriter::new(File::create(path)?);
        out.write_all(b"{\"displayTimeUnit\": \"ns\",\n\"otherData\": {\"producer\": \"cudash\", \"clock\": \"modelled\"},\n\"traceEvents\": [\n")?;
        Ok(TraceWriter {
            out,
            named: Vec::new(),
            error: None,
            first: true,
        })
    }

    fn event(&mut self, json: &str) {
        if self.error.is_some() {
            return;
        }
        let sep: &[u8] = if self.first { b"" } else { b",\n" };
        self.first = false;
        if let Err(e) = self
            .out
            .write_all(sep)
            .and_then(|_| self.out.write_all(json.as_bytes()))
        {
            self.error = Some(e);
        }
    }

    /// Names a lane's track (and its process, the first time).
    pub fn lane(&mut self, lane: Lane, name: &str) {
        let (pid, tid) = ids(lane);
        if !self.named.contains(&pid) {
            self.named.push(pid);
            let process = match lane {
                Lane::Host | Lane::Worker(_) | Lane::PinThread => "host".to_string(),
                Lane::Rank(r) => format!("rank {r}"),
                Lane::Stream(k) => format!("cuda:{}", k.device),
            };
            self.event(&format!(
                "{{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": {pid}, \"args\": {{\"name\": {}}}}}",
                quote(&process)
            ));
            self.event(&format!(
                "{{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": {pid}, \"args\": {{\"sort_index\": {pid}}}}}"
            ));
        }
        self.event(&format!(
            "{{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": {pid}, \"tid\": {tid}, \"args\": {{\"name\": {}}}}}",
            quote(name)
        ));
    }

    /// A kernel, copy or host wait as a complete event. Written straight
    /// to the buffer: a long block writes one per op.
    pub fn item(&mut self, lane: Lane, item: &Item) {
        if self.error.is_some() {
            return;
        }
        let (pid, tid) = ids(lane);
        let r = self.write_item(pid, tid, item);
        if let Err(e) = r {
            self.error = Some(e);
        }
    }

    fn write_item(&mut self, pid: u32, tid: u32, item: &Item) -> std::io::Result<()> {
        let sep = if self.first { "" } else { ",\n" };
        self.first = false;
        let o = &mut self.out;
        write!(o, "{sep}{{\"ph\": \"X\", \"name\": ")?;
        match item.kind {
            Kind::Kernel => write_str(o, item.op)?,
            Kind::Copy(dir) => write!(o, "\"{dir} copy\"")?,
            Kind::HostWait => {
                o.write_all(b"\"wait (")?;
                write_escaped(o, item.op)?;
                o.write_all(b")\"")?;
            }
            Kind::HostWork => write_str(o, item.op)?,
            Kind::Launch => {
                o.write_all(b"\"launch (")?;
                write_escaped(o, item.op)?;
                o.write_all(b")\"")?;
            }
            Kind::Before => o.write_all(b"\"queued before the profile\"")?,
        }
        let cat = match item.kind {
            Kind::Kernel => "kernel",
            Kind::Copy(_) => "copy",
            Kind::HostWait => "sync",
            Kind::HostWork => "host",
            Kind::Launch => "launch",
            Kind::Before => "before",
        };
        write!(
            o,
            ", \"cat\": \"{cat}\", \"pid\": {pid}, \"tid\": {tid}, \"ts\": {:.3}, \"dur\": {:.3}, \"args\": {{\"op\": ",
            item.start * 1e6,
            (item.end - item.start) * 1e6
        )?;
        write_str(o, item.op)?;
        if item.bytes > 0 {
            write!(o, ", \"bytes\": {}", item.bytes)?;
        }
        if let Some(d) = &item.detail {
            o.write_all(b", \"detail\": ")?;
            write_str(o, d)?;
        }
        o.write_all(b"}}")
    }

    /// A host sync as an instant event on the host's track.
    pub fn instant(&mut self, op: &str, at: f64) {
        self.event(&format!(
            "{{\"ph\": \"i\", \"s\": \"t\", \"name\": {}, \"cat\": \"sync\", \"pid\": 0, \"tid\": 0, \"ts\": {}}}",
            quote(&format!("sync ({op})")),
            micros(at)
        ));
    }

    /// Closes the event list and the file.
    pub fn finish(mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(b"\n]}\n")?;
        self.out.flush()
    }
}

/// The process and thread of a lane.
fn ids(lane: Lane) -> (u32, u32) {
    match lane {
        Lane::Host => (0, 0),
        Lane::Worker(w) => (0, w + 1),
        Lane::PinThread => (0, u32::MAX),
        Lane::Rank(r) => (10_000 + r, 0),
        Lane::Stream(k) => (k.device + 1, k.stream),
    }
}

/// Seconds as microseconds with nanosecond precision.
fn micros(s: f64) -> String {
    format!("{:.3}", s * 1e6)
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// `s` as a JSON string literal, written to `o`.
fn write_str(o: &mut impl Write, s: &str) -> std::io::Result<()> {
    o.write_all(b"\"")?;
    write_escaped(o, s)?;
    o.write_all(b"\"")
}

/// `s` escaped for a JSON string; op names and shapes need no escaping, so
/// that is the fast path.
fn write_escaped(o: &mut impl Write, s: &str) -> std::io::Result<()> {
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        return o.write_all(s.as_bytes());
    }
    let q = quote(s);
    o.write_all(&q.as_bytes()[1..q.len() - 1])
}
