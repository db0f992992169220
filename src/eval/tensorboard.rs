//! The event files of `torch.utils.tensorboard.SummaryWriter`
//! (`stdlib/torch_utils_tensorboard.py`): TensorBoard's format, a
//! TFRecord file of `Event` protocol buffers, written by
//! `_cudash.tb_open(log_dir, suffix)` (the file and its first event, the
//! version) and `_cudash.tb_scalar(path, tag, value, step, wall_time)`
//! (one `Summary` of one simple value), as PyTorch's writer lays them out;
//! `_cudash.hostname()` names the default run's directory.

use std::io::Write;
use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// The names this module answers.
pub const NAMES: [&str; 3] = ["_cudash.tb_open", "_cudash.tb_scalar", "_cudash.hostname"];

impl Interp {
    pub(super) fn call_tensorboard(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let arg = |k: usize| args.get(k).map(|a| &a.value);
        let text = |k: usize| match arg(k) {
            Some(Value::Str(s)) => Ok(s.to_string()),
            _ => Err(at(Error::value(format!(
                "{name}: argument {k} is a string"
            )))),
        };
        let number = |k: usize| {
            arg(k)
                .and_then(Value::as_number)
                .ok_or_else(|| at(Error::value(format!("{name}: argument {k} is a number"))))
        };
        let io = |e: std::io::Error, path: &str| {
            at(Error::Io {
                action: "write the event file".into(),
                path: path.to_string(),
                reason: e.to_string(),
            })
        };
        match name {
            "_cudash.hostname" => Ok(Value::Str(Arc::new(hostname()))),
            "_cudash.tb_open" => {
                let (dir, suffix) = (text(0)?, text(1)?);
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64());
                let file = format!(
                    "events.out.tfevents.{}.{}.{}.0{suffix}",
                    now as u64,
                    hostname(),
                    std::process::id()
                );
                let path = std::path::Path::new(&dir).join(file);
                let path = path.to_string_lossy().to_string();
                let mut event = Vec::new();
                double(&mut event, 1, now);
                bytes(&mut event, 3, b"brain.Event:2");
                let mut f = std::fs::File::create(&path).map_err(|e| io(e, &path))?;
                f.write_all(&record(&event)).map_err(|e| io(e, &path))?;
                Ok(Value::Str(Arc::new(path)))
            }
            _ => {
                let (path, tag) = (text(0)?, text(1)?);
                let (value, step, wall) = (number(2)?, number(3)?, number(4)?);
                let mut item = Vec::new();
                bytes(&mut item, 1, tag.as_bytes());
                item.push(2 << 3 | 5); // simple_value: a float
                item.extend_from_slice(&(value as f32).to_le_bytes());
                let mut summary = Vec::new();
                bytes(&mut summary, 1, &item);
                let mut event = Vec::new();
                double(&mut event, 1, wall);
                event.push(2 << 3); // step: a varint
                varint(&mut event, step as i64 as u64);
                bytes(&mut event, 5, &summary);
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .map_err(|e| io(e, &path))?;
                f.write_all(&record(&event)).map_err(|e| io(e, &path))?;
                Ok(Value::None)
            }
        }
    }
}

/// The machine's name, as the file's name carries it.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Field `field` of wire type 2: its length, then its bytes.
fn bytes(out: &mut Vec<u8>, field: u8, b: &[u8]) {
    out.push(field << 3 | 2);
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Field `field` of wire type 1: a double.
fn double(out: &mut Vec<u8>, field: u8, x: f64) {
    out.push(field << 3 | 1);
    out.extend_from_slice(&x.to_le_bytes());
}

/// One TFRecord: the length and its masked CRC, the data and its masked CRC.
fn record(data: &[u8]) -> Vec<u8> {
    let len = (data.len() as u64).to_le_bytes();
    let mut out = Vec::with_capacity(data.len() + 16);
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc(data).to_le_bytes());
    out
}

/// TFRecord's masked CRC-32C (Castagnoli).
fn masked_crc(data: &[u8]) -> u32 {
    let crc = crc32c(data);
    (crc.rotate_right(15)).wrapping_add(0xa282_ead8)
}

fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0x82F6_3B78 & mask);
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_is_castagnolis() {
        // The check value of CRC-32C.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }
}
