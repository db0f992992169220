//! Python's `open()` for text files, as PyTorch programs use it to read a
//! corpus line by line (`with open(path, 'r', encoding="utf8") as f: for
//! line in f: ...`) and to write a log: modes `r`, `w`, `a` (with `t`);
//! `read`, `readline`, `readlines`, iteration over lines, `write`,
//! `writelines`, `close`, and `with`, which closes the file. Python's
//! errors (`FileNotFoundError: [Errno 2] No such file or directory: 'x'`,
//! `ValueError: I/O operation on closed file.`).

use std::io::Write;
use std::sync::{Arc, Mutex};

use super::args::Bound;
use super::pyfile::{closed, unsupported, FileRef, PyFile, State};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;

pub(super) fn os_error(e: &std::io::Error, path: &str) -> Error {
    let (class, errno) = match e.kind() {
        std::io::ErrorKind::NotFound => ("FileNotFoundError", 2),
        std::io::ErrorKind::PermissionDenied => ("PermissionError", 13),
        _ => ("OSError", e.raw_os_error().unwrap_or(5)),
    };
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => e.to_string(),
    };
    Error::Module {
        class,
        message: format!("[Errno {errno}] {text}: '{path}'"),
        help: None,
    }
}

/// `f.write(data)` of a file-like object of the program's (`io.BytesIO`,
/// or any object with `write`), as `torch.save(obj, f)` and `pickle.dump`
/// write to one.
pub(super) fn write_to_object(
    me: &mut Interp,
    f: &Value,
    data: Vec<u8>,
    span: Span,
) -> Result<(), Diagnostic> {
    let name = crate::lang::ast::Name::new("write".into(), span);
    let arg = super::args::ArgVal::positional(Value::Bytes(Arc::new(data)), span);
    me.call_method(f.clone(), &name, vec![arg], span)?;
    Ok(())
}

/// `f.read()` of a file-like object of the program's, as `torch.load(f)`
/// and `pickle.load` read one: bytes from where it is to its end.
pub(super) fn read_from_object(
    me: &mut Interp,
    f: &Value,
    span: Span,
) -> Result<Arc<Vec<u8>>, Diagnostic> {
    let name = crate::lang::ast::Name::new("read".into(), span);
    match me.call_method(f.clone(), &name, Vec::new(), span)? {
        Value::Bytes(b) => Ok(b),
        other => Err(Error::Module {
            class: "TypeError",
            message: format!(
                "a bytes-like object is required, not '{}'",
                super::format::python_type(&other)
            ),
            help: Some(
                "the file's `read()` must give bytes (`io.BytesIO`, not `io.StringIO`)".into(),
            ),
        }
        .at(span)),
    }
}

/// `open(file, mode="r", encoding=None, newline=None)`.
pub(super) fn open(_: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let path = b
        .str("file")?
        .ok_or_else(|| Error::value("open() needs the file's path").at(b.span))?;
    let mode = b.str("mode")?.unwrap_or_else(|| "r".into());
    if let Some(enc) = b.str("encoding")? {
        let e = enc.to_ascii_lowercase().replace(['-', '_'], "");
        if !matches!(e.as_str(), "utf8" | "ascii") {
            return Err(Error::value_help(
                format!("cudash's open() reads UTF-8, not {enc}"),
                "leave `encoding` out, or give \"utf8\"",
            )
            .at(b.span_of("encoding")));
        }
    }
    // `newline`: None (Python's default) reads "\r\n" and "\r" as "\n"
    // (universal newlines); "" and "\n" leave the text as it is. Writing
    // "\n" on this system is "\n" either way.
    let universal = match b.get("newline") {
        None | Some((Value::None, _)) => true,
        Some((Value::Str(s), _)) if s.is_empty() || s.as_str() == "\n" => false,
        Some((other, span)) => {
            return Err(Error::value_help(
                format!(
                    "cudash's open() takes newline None, '' or '\\n', not {}",
                    super::format::repr_of(other)
                ),
                "leave `newline` out: lines end with \"\\n\"",
            )
            .at(*span))
        }
    };
    // `"rb"` and `"br"` are one mode, as Python reads them.
    let kind: String = mode.chars().filter(|&c| c != 't').collect();
    let kind = match kind.contains('b') && kind.len() == 2 {
        true => format!("{}b", kind.replace('b', "")),
        false => kind,
    };
    let at = |e: Error| e.at(b.span);
    let state =
        match kind.as_str() {
            "r" => {
                let bytes = std::fs::read(&path).map_err(|e| at(os_error(&e, &path)))?;
                let text = String::from_utf8(bytes).map_err(|e| {
                    at(Error::Module {
                        class: "UnicodeDecodeError",
                        message: format!(
                        "'utf-8' codec can't decode the byte at position {}: invalid start byte",
                        e.utf8_error().valid_up_to()
                    ),
                        help: None,
                    })
                })?;
                let text = match universal && text.contains('\r') {
                    true => text.replace("\r\n", "\n").replace('\r', "\n"),
                    false => text,
                };
                State::Reading { text, at: 0 }
            }
            "w" | "a" | "x" => {
                let mut options = std::fs::OpenOptions::new();
                match kind.as_str() {
                    "w" => options.write(true).create(true).truncate(true),
                    "a" => options.append(true).create(true),
                    _ => options.write(true).create_new(true),
                };
                State::Writing(options.open(&path).map_err(|e| at(os_error(&e, &path)))?)
            }
            // Binary: for torch.save and torch.load (`with open(p, "wb") as f:
            // torch.save(model, f)`), the file made or checked now, as Python's.
            "rb" => {
                std::fs::File::open(&path).map_err(|e| at(os_error(&e, &path)))?;
                State::Binary {
                    writing: false,
                    at: 0,
                    gzip: false,
                }
            }
            "wb" | "ab" => {
                let mut options = std::fs::OpenOptions::new();
                match kind.as_str() {
                    "wb" => options.write(true).create(true).truncate(true),
                    _ => options.append(true).create(true),
                };
                options.open(&path).map_err(|e| at(os_error(&e, &path)))?;
                State::Binary {
                    writing: true,
                    at: 0,
                    gzip: false,
                }
            }
            _ if mode.contains('b') => return Err(Error::value_help(
                format!(
                    "cudash's open() takes binary mode as \"rb\", \"wb\" or \"ab\", not '{mode}'"
                ),
                "a binary file is for `torch.save(obj, f)` (\"wb\") and `torch.load(f)` (\"rb\"); \
                 open text with \"r\", \"w\" or \"a\"",
            )
            .at(b.span_of("mode"))),
            _ => return Err(Error::value(format!("invalid mode: '{mode}'")).at(b.span_of("mode"))),
        };
    let file = PyFile {
        name: path,
        mode,
        state,
    };
    Ok(Value::File(Arc::new(Mutex::new(file))))
}

/// `gzip.open(filename, mode="rb")`: in binary mode a file `pickle.load`
/// reads unpacked and `pickle.dump` writes packed (the MNIST pickle of
/// PyTorch's "What is torch.nn really?"); in text mode (`"rt"`) its
/// unpacked lines, as `open`'s. Writing text (`"wt"`) is not here.
pub(super) fn gzip_open(args: &[super::args::ArgVal], span: Span) -> Result<Value, Diagnostic> {
    let arg = |k: usize, key: &str| {
        args.iter()
            .find(|a| a.keyword.as_ref().is_some_and(|n| n.name == key))
            .or_else(|| args.iter().filter(|a| a.keyword.is_none()).nth(k))
    };
    let path = arg(0, "filename")
        .and_then(|a| super::value::fspath(&a.value))
        .ok_or_else(|| Error::value("gzip.open() needs the file's path").at(span))?;
    let mode = match arg(1, "mode").map(|a| &a.value) {
        None => "rb".to_string(),
        Some(Value::Str(m)) => m.to_string(),
        Some(other) => {
            return Err(
                Error::wrong_type("gzip.open's mode", "a string", other.type_name()).at(span),
            )
        }
    };
    let at = |e: Error| e.at(span);
    let state = match mode.as_str() {
        "rb" | "r" => {
            std::fs::File::open(&path).map_err(|e| at(os_error(&e, &path)))?;
            State::Binary {
                writing: false,
                at: 0,
                gzip: true,
            }
        }
        "wb" | "w" | "ab" | "a" => {
            let mut options = std::fs::OpenOptions::new();
            match mode.starts_with('w') {
                true => options.write(true).create(true).truncate(true),
                false => options.append(true).create(true),
            };
            options.open(&path).map_err(|e| at(os_error(&e, &path)))?;
            State::Binary {
                writing: true,
                at: 0,
                gzip: true,
            }
        }
        "rt" => {
            use std::io::Read;
            let file = std::fs::File::open(&path).map_err(|e| at(os_error(&e, &path)))?;
            let mut text = String::new();
            flate2::read::MultiGzDecoder::new(file)
                .read_to_string(&mut text)
                .map_err(|e| at(os_error(&e, &path)))?;
            State::Reading { text, at: 0 }
        }
        _ => {
            return Err(Error::value_help(
                format!(
                    "cudash's gzip.open takes mode \"rb\", \"wb\", \"ab\" or \"rt\", not '{mode}'"
                ),
                "write text to a plain file with open(path, \"w\")",
            )
            .at(span))
        }
    };
    Ok(Value::File(Arc::new(Mutex::new(PyFile {
        name: path,
        mode,
        state,
    }))))
}

/// `f.read(size=-1)`, `f.write(b)`, `f.seek(offset, whence=0)` and
/// `f.tell()` of a file opened in binary mode: bytes, read from where the
/// file is and written at its end; None for the methods every file has.
fn binary_method(
    name: &str,
    path: &str,
    writing: bool,
    pos: &mut u64,
    b: &Bound,
) -> Result<Option<Value>, Diagnostic> {
    use std::io::{Read, Seek, SeekFrom};
    let at = |e: Error| e.at(b.span);
    let io = |e: std::io::Error| at(os_error(&e, path));
    match name {
        "read" if !writing => {
            let size = b.int("size")?.unwrap_or(-1);
            let mut f = std::fs::File::open(path).map_err(io)?;
            f.seek(SeekFrom::Start(*pos)).map_err(io)?;
            let mut out = Vec::new();
            match u64::try_from(size) {
                Ok(n) => f.take(n).read_to_end(&mut out),
                Err(_) => f.read_to_end(&mut out),
            }
            .map_err(io)?;
            *pos += out.len() as u64;
            Ok(Some(Value::Bytes(Arc::new(out))))
        }
        "readline" | "readlines" | "read" => Err(at(unsupported(match writing {
            true => "read",
            false => "cudash reads a binary file with read(size)",
        }))),
        "write" if writing => {
            let data = match b.get("s") {
                Some((Value::Bytes(d), _)) => Arc::clone(d),
                Some((v, span)) => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                            "a bytes-like object is required, not '{}'",
                            super::format::python_type(v)
                        ),
                        help: Some("a file opened \"wb\" writes bytes: `s.encode()`".into()),
                    }
                    .at(*span))
                }
                None => return Err(at(Error::value("write() needs bytes"))),
            };
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(io)?;
            f.write_all(&data).map_err(io)?;
            *pos += data.len() as u64;
            Ok(Some(Value::Int(data.len() as i64)))
        }
        "write" | "writelines" => Err(at(unsupported("write"))),
        "seek" => {
            let offset = b.int("offset")?.unwrap_or(0);
            let size = || std::fs::metadata(path).map(|m| m.len() as i64).map_err(io);
            let to = match b.int("whence")?.unwrap_or(0) {
                0 => offset,
                1 => *pos as i64 + offset,
                2 => size()? + offset,
                w => {
                    return Err(at(Error::value(format!(
                        "invalid whence ({w}, should be 0, 1 or 2)"
                    ))))
                }
            };
            if to < 0 {
                return Err(at(Error::value(format!("negative seek position {to}"))));
            }
            *pos = to as u64;
            Ok(Some(Value::Int(to)))
        }
        "tell" => Ok(Some(Value::Int(*pos as i64))),
        _ => Ok(None),
    }
}

/// `f.read(size=-1)`, `f.readline()`, `f.readlines()`, `f.write(s)`,
/// `f.writelines(lines)`, `f.close()`.
pub(super) fn file_method(
    me: &mut Interp,
    name: &'static str,
    f: &FileRef,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let at = |e: Error| e.at(b.span);
    let mut file = lock(f);
    let text = |s: String| Value::Str(Arc::new(s));
    let path = file.name.clone();
    if let State::Binary {
        writing,
        at: pos,
        gzip: false,
    } = &mut file.state
    {
        if let Some(v) = binary_method(name, &path, *writing, pos, b)? {
            return Ok(v);
        }
    }
    match name {
        "read" => {
            let size = b.int("size")?.unwrap_or(-1);
            let (all, pos) = file.text().map_err(at)?;
            let rest = &all[*pos..];
            let taken = match usize::try_from(size) {
                Ok(n) => rest.char_indices().nth(n).map_or(rest, |(k, _)| &rest[..k]),
                Err(_) => rest,
            };
            let taken = taken.to_string();
            *pos += taken.len();
            Ok(text(taken))
        }
        "readline" => file.readline().map(text).map_err(at),
        "readlines" => file
            .rest_lines()
            .map(|lines| Value::list(lines.into_iter().map(text).collect()))
            .map_err(at),
        "write" | "writelines" => {
            let given = b.get("s").or_else(|| b.get("lines"));
            let pieces: Vec<String> = match (name, given) {
                ("write", Some((Value::Str(s), _))) => vec![s.to_string()],
                ("writelines", Some((v, span))) => match v.elements() {
                    Some(Ok(items)) => items
                        .iter()
                        .map(|i| match i {
                            Value::Str(s) => Ok(s.to_string()),
                            other => Err(Error::wrong_type(
                                "a line of writelines()",
                                "a str",
                                other.type_name(),
                            )
                            .at(*span)),
                        })
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(Error::wrong_type(
                            "writelines()",
                            "a list of str",
                            v.type_name(),
                        )
                        .at(*span))
                    }
                },
                (_, Some((v, span))) => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                            "write() argument must be str, not {}",
                            super::format::python_type(v)
                        ),
                        help: Some("format it first: `f.write(f\"{x}\\n\")`".into()),
                    }
                    .at(*span))
                }
                (_, None) => return Err(at(Error::value(format!("{name}() needs text")))),
            };
            let out = match &mut file.state {
                State::Writing(out) => out,
                State::Standard { stderr } => {
                    let stderr = *stderr;
                    drop(file);
                    let written: usize = pieces.iter().map(|p| p.chars().count()).sum();
                    me.write_text(stderr, &pieces.concat());
                    return Ok(match name {
                        "write" => Value::Int(written as i64),
                        _ => Value::None,
                    });
                }
                State::Reading { .. } => return Err(at(unsupported("not writable"))),
                State::Binary { .. } => return Err(at(super::pyfile::no_bytes())),
                State::Closed => return Err(at(closed())),
            };
            let mut written = 0;
            for p in &pieces {
                out.write_all(p.as_bytes())
                    .map_err(|e| at(Error::value(format!("writing failed: {e}"))))?;
                written += p.chars().count();
            }
            Ok(match name {
                "write" => Value::Int(written as i64),
                _ => Value::None,
            })
        }
        "close" => {
            file.close();
            Ok(Value::None)
        }
        // A text file's place is a byte offset of its text (Python's is an
        // opaque cookie; `f.seek(0)` to read it again is what programs do).
        "seek" | "tell" => {
            let (all, pos) = file.text().map_err(at)?;
            if name == "tell" {
                return Ok(Value::Int(*pos as i64));
            }
            let offset = b.int("offset")?.unwrap_or(0);
            let whence = b.int("whence")?.unwrap_or(0);
            let to = match whence {
                0 => offset,
                _ if offset != 0 => {
                    return Err(at(unsupported("can't do nonzero cur-relative seeks")))
                }
                1 => *pos as i64,
                _ => all.len() as i64,
            };
            match usize::try_from(to)
                .ok()
                .filter(|&k| all.is_char_boundary(k))
            {
                Some(k) => {
                    *pos = k;
                    Ok(Value::Int(to))
                }
                None => Err(at(Error::value(format!("cannot seek to {to} in the text")))),
            }
        }
        // `sys.stderr.isatty()`: whether the stream is a terminal's (only
        // where cudash prints on this process's own streams); a file's is not.
        "isatty" => Ok(Value::bool(match file.state {
            State::Standard { stderr } => me.hooks.terminal && super::terminal::is_terminal(stderr),
            State::Closed => return Err(at(closed())),
            _ => false,
        })),
        "fileno" => match file.state {
            State::Standard { stderr } => Ok(Value::Int(if stderr { 2 } else { 1 })),
            _ => Err(at(unsupported("fileno: cudash's files have no descriptor"))),
        },
        "flush" => match &mut file.state {
            State::Writing(out) => out
                .flush()
                .map(|()| Value::None)
                .map_err(|e| at(Error::value(format!("flushing failed: {e}")))),
            State::Standard { stderr } => {
                let stderr = *stderr;
                drop(file);
                me.flush_stream(stderr);
                Ok(Value::None)
            }
            State::Closed => Err(at(closed())),
            _ => Ok(Value::None),
        },
        _ => Err(at(Error::value(format!("a file has no method {name}")))),
    }
}
