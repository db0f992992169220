//! A cell's outputs as Jupyter keeps them: stream text, results, displays and
//! the error. Made from a `Session` outcome the same way the kernel publishes
//! it, read from and written to nbformat JSON, and compared with timings masked.

use serde_json::{json, Value};

use super::multiline::{lines, text};
pub use crate::session::jupyter::{stream_text, traceback, NOTEBOOK_WIDTH};
use crate::session::{Outcome, Output, Shown};

#[derive(Debug, Clone, PartialEq)]
pub enum CellOutput {
    /// `print` (stdout) or a warning (stderr).
    Stream { stderr: bool, text: String },
    /// A value (`execute_result`).
    Result { text: String, html: Option<String> },
    /// `mem` and the like (`display_data`).
    Display { text: String, html: Option<String> },
    Error {
        ename: String,
        evalue: String,
        traceback: Vec<String>,
    },
}

/// What a notebook shows for a cell that produced `outcome`: consecutive
/// stream text joined, `clear_output` applied (with `wait`, at the next output).
pub fn from_outcome(outcome: Outcome) -> Vec<CellOutput> {
    let mut outs = Vec::new();
    let mut clear_at_next = false;
    let add = |outs: &mut Vec<CellOutput>, out: CellOutput, clear_at_next: &mut bool| {
        if std::mem::take(clear_at_next) {
            outs.clear();
        }
        push(outs, out);
    };
    for o in outcome.outputs {
        if let Some((stderr, text)) = stream_text(&o) {
            add(
                &mut outs,
                CellOutput::Stream { stderr, text },
                &mut clear_at_next,
            );
            continue;
        }
        match o {
            Output::Clear { wait: true } => clear_at_next = true,
            Output::Clear { wait: false } => outs.clear(),
            Output::Value(Shown { text, html }) => add(
                &mut outs,
                CellOutput::Result { text, html },
                &mut clear_at_next,
            ),
            Output::Display(Shown { text, html }) => add(
                &mut outs,
                CellOutput::Display { text, html },
                &mut clear_at_next,
            ),
            Output::Text(_) | Output::Warning(_) | Output::Stderr(_) | Output::Partial { .. } => {
                unreachable!("stream text is handled above")
            }
        }
    }
    if let Some(e) = outcome.error {
        let error = CellOutput::Error {
            traceback: traceback(&e),
            ename: e.ename,
            evalue: e.evalue,
        };
        add(&mut outs, error, &mut clear_at_next);
    }
    outs
}

/// Appends, joining stream text to the stream before it (as Jupyter shows it).
fn push(outs: &mut Vec<CellOutput>, out: CellOutput) {
    if let (
        Some(CellOutput::Stream { stderr, text }),
        CellOutput::Stream {
            stderr: new_stderr,
            text: more,
        },
    ) = (outs.last_mut(), &out)
    {
        if stderr == new_stderr {
            text.push_str(more);
            return;
        }
    }
    outs.push(out);
}

/// nbformat outputs (a JSON list).
pub fn to_json(outs: &[CellOutput], count: Option<usize>) -> Value {
    let data = |text: &str, html: &Option<String>| {
        let mut d = json!({ "text/plain": lines(text) });
        if let Some(h) = html {
            d["text/html"] = lines(h);
        }
        d
    };
    Value::Array(
        outs.iter()
            .map(|o| match o {
                CellOutput::Stream { stderr, text } => json!({
                    "output_type": "stream",
                    "name": if *stderr { "stderr" } else { "stdout" },
                    "text": lines(text),
                }),
                CellOutput::Result { text, html } => json!({
                    "output_type": "execute_result",
                    "execution_count": count,
                    "data": data(text, html),
                    "metadata": {},
                }),
                CellOutput::Display { text, html } => json!({
                    "output_type": "display_data",
                    "data": data(text, html),
                    "metadata": {},
                }),
                CellOutput::Error {
                    ename,
                    evalue,
                    traceback,
                } => json!({
                    "output_type": "error",
                    "ename": ename,
                    "evalue": evalue,
                    "traceback": traceback,
                }),
            })
            .collect(),
    )
}

/// Outputs from nbformat JSON.
pub fn from_json(v: &Value) -> Result<Vec<CellOutput>, String> {
    let Some(list) = v.as_array() else {
        return Err("`outputs` is not a list".into());
    };
    let mut outs = Vec::new();
    for o in list {
        let html = o["data"].get("text/html").map(text);
        let out = match o["output_type"].as_str().unwrap_or("") {
            "stream" => CellOutput::Stream {
                stderr: o["name"] == "stderr",
                text: text(&o["text"]),
            },
            "execute_result" => CellOutput::Result {
                text: text(&o["data"]["text/plain"]),
                html,
            },
            "display_data" => CellOutput::Display {
                text: text(&o["data"]["text/plain"]),
                html,
            },
            "error" => CellOutput::Error {
                ename: text(&o["ename"]),
                evalue: text(&o["evalue"]),
                traceback: o["traceback"]
                    .as_array()
                    .map(|t| t.iter().map(text).collect())
                    .unwrap_or_default(),
            },
            other => return Err(format!("an output of type `{other}` cudash does not make")),
        };
        push(&mut outs, out);
    }
    Ok(outs)
}

/// The outputs as plain text for comparing: colours stripped, timings masked
/// (`<time>`), HTML left out (it is made from the same values as the text).
pub fn comparable(outs: &[CellOutput]) -> String {
    let mut s = String::new();
    for o in outs {
        match o {
            CellOutput::Stream { stderr, text } => {
                s.push_str(if *stderr { "[stderr]\n" } else { "[stdout]\n" });
                s.push_str(text);
            }
            CellOutput::Result { text, .. } => {
                s.push_str("[result]\n");
                s.push_str(text);
            }
            CellOutput::Display { text, .. } => {
                s.push_str("[display]\n");
                s.push_str(text);
            }
            CellOutput::Error {
                ename,
                evalue,
                traceback,
            } => {
                s.push_str(&format!("[error] {ename}: {evalue}\n"));
                s.push_str(&traceback.join("\n"));
            }
        }
        if !s.ends_with('\n') {
            s.push('\n');
        }
    }
    mask_for_check(&strip_ansi(&s))
}

/// What `--check` compares: the text with timings masked (`mask_times`) and
/// what differs between backends running the same script: the backend line
/// of the banner and `devices`, whether a device is simulated or emulated,
/// and whether device time is modelled or measured (and on which GPU).
pub fn mask_for_check(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in mask_times(s).lines() {
        if line.starts_with(crate::display::memory::COLLECTIVES) {
            // Said under `devices` on real GPUs only.
            continue;
        }
        let mut line = mask_time_basis(line);
        // A GPU's `device busy` says what its busy time is modelled on; the
        // simulator's is all modelled and says nothing.
        if line.trim_start().starts_with("device busy") {
            line = line.replace(", <device time>)", ")");
        }
        let line = &line;
        // What the device has free depends on the machine (a GPU's context
        // takes some; the simulator's capacity is `--sim-memory`).
        if let Some(at) = line.find("device free ") {
            out.push_str(&line[..at]);
            out.push_str("device free <free> of <total>\n");
            continue;
        }
        if let Some(rest) = line.strip_prefix("backend: ") {
            let name = rest.split(' ').next().unwrap_or("");
            let masked = if matches!(name, "sim" | "emu" | "cuda") {
                "<backend>"
            } else {
                rest
            };
            out.push_str("backend: ");
            out.push_str(masked);
        } else {
            // A simulated or emulated device's name is tagged; a GPU's is not.
            let untagged = line
                .replace("(simulated, ", "(")
                .replace("(emulated, ", "(");
            out.push_str(&mask_gpu_name(&mask_device_row(&untagged)));
        }
        out.push('\n');
    }
    out
}

/// Times measured on a GPU are that run's: where `actual` has any, both
/// texts' timelines are compared by their lanes (names and order) only, and
/// neither copies' bandwidth nor how much of a span the device was busy is
/// compared. Both texts are `mask_for_check`'s.
pub fn mask_measured_timelines(expected: String, actual: String) -> (String, String) {
    let measured = actual.contains("\ntimeline (measured")
        || actual.starts_with("timeline (measured")
        || actual.contains(MEASURED);
    if !measured {
        return (expected, actual);
    }
    let masked = |s: &str| without_measures(&lanes_only(&s.replace(MEASURED, "<device time>")));
    (masked(&expected), masked(&actual))
}

/// `copies: 11.6 GB/s while copying, …` (modelled) and `copies: 16.0 MiB
/// per iteration …` (measured) as `copies: <bandwidth>`, and `device busy`'s
/// share of the span left out.
fn without_measures(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        match line.find("copies: ") {
            Some(at) if line[..at].trim().is_empty() => {
                out.push_str(&line[..at]);
                out.push_str("copies: <bandwidth>");
            }
            _ => out.push_str(&line.replace(", <share> of it", "")),
        }
        out.push('\n');
    }
    out
}

/// Each timeline drawing as its lane names: `timeline (<drawing>)`, then
/// `  host │<lane>│` for each lane, the axis as `<axis>`, the legend as it is.
fn lanes_only(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut drawing = false;
    for line in s.lines() {
        if line.starts_with("timeline (") {
            drawing = true;
            out.push_str("timeline (<drawing>)");
        } else if drawing && line.contains('│') {
            let name = line.split('│').next().unwrap_or("").trim_end();
            out.push_str(name);
            out.push_str(" │<lane>│");
        } else if drawing && line.trim_start().starts_with('0') {
            out.push_str("  <axis>");
        } else {
            drawing = false;
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// A row of the `devices` table (`cuda:0  NAME  cc  used / total  …`) as
/// `cuda:0 <gpu> used / <total> …`: which GPU, and how much memory it has,
/// depend on the machine (the simulator's come from `--sim-memory`), and
/// the name column's padding on the name.
fn mask_device_row(line: &str) -> String {
    let is_row = line.strip_prefix("cuda:").is_some_and(|rest| {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        digits > 0 && rest[digits..].starts_with("  ")
    });
    if !is_row {
        return line.to_string();
    }
    let toks: Vec<&str> = line.split_whitespace().collect();
    let Some(slash) = toks.iter().position(|t| *t == "/") else {
        return line.to_string();
    };
    if slash < 3 || toks.len() < slash + 3 {
        return line.to_string();
    }
    let mut out = vec![toks[0], "<gpu>"];
    out.extend(&toks[slash - 2..=slash]);
    out.push("<total>");
    out.extend(&toks[slash + 3..]);
    out.join(" ")
}

/// Which GPU a device is, where a line names it: `mem`'s heading
/// (`cuda:0 — NAME — caching allocator`) and a quoted name
/// (`get_device_name()`, `"NVIDIA …"`). The simulator models an H100; a GPU
/// is whichever the machine has.
fn mask_gpu_name(line: &str) -> String {
    const MEM: &str = " — caching allocator";
    if let (Some(dash), Some(end)) = (line.find(" — "), line.find(MEM)) {
        if line.starts_with("cuda:") && dash + 3 <= end {
            return format!("{} — <gpu>{}", &line[..dash], &line[end..]);
        }
    }
    match line.find("\"NVIDIA ") {
        Some(at) => match line[at + 1..].find('"') {
            Some(len) => format!("{}\"<gpu>\"{}", &line[..at], &line[at + 2 + len..]),
            None => line.to_string(),
        },
        None => line.to_string(),
    }
}

/// How `mask_time_basis` masks device time measured on a GPU.
const MEASURED: &str = "<measured device time>";

/// `modelled on GPU` (up to the next `;` or `)`) as `<device time>`, and
/// `measured with CUDA events on GPU` as `<measured device time>`, which
/// `mask_measured_timelines` compares as `<device time>`.
fn mask_time_basis(line: &str) -> String {
    let Some(at) = ["modelled on ", "measured with CUDA events on "]
        .iter()
        .find_map(|p| line.find(p))
    else {
        return line.to_string();
    };
    let rest = &line[at..];
    let end = rest.find([';', ')']).unwrap_or(rest.len());
    let mask = match rest.starts_with("measured") {
        true => MEASURED,
        false => "<device time>",
    };
    format!("{}{mask}{}", &line[..at], &rest[end..])
}

/// Text without ANSI colour sequences.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters, then one final byte in `@`..=`~`.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Timings differ between runs: each number followed by a unit of time
/// becomes `<time>`, and a share of device time (`61% of it`) `<share>`.
/// Trailing spaces go too.
pub fn mask_times(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        let toks: Vec<&str> = line.split(' ').collect();
        let mut words: Vec<&str> = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let is_num = toks[i].parse::<f64>().is_ok();
            let unit = toks
                .get(i + 1)
                .is_some_and(|u| matches!(u.trim_end_matches(','), "ns" | "µs" | "ms" | "s"));
            // `device busy`'s share of a measured span differs on a GPU.
            let share = toks[i].ends_with('%')
                && toks[i].trim_end_matches('%').parse::<f64>().is_ok()
                && toks.get(i + 1) == Some(&"of")
                && toks.get(i + 2).is_some_and(|t| t.starts_with("it"));
            if share {
                words.push("<share>");
                i += 1;
            } else if is_num && unit {
                words.push(if toks[i + 1].ends_with(',') {
                    "<time>,"
                } else {
                    "<time>"
                });
                i += 2;
            } else {
                words.push(toks[i]);
                i += 1;
            }
        }
        out.push_str(words.join(" ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_collectives_line_of_real_gpus_is_left_out() {
        let table = "index   name\ncuda:0  H100\ncuda:1  H100\n";
        for nccl in [None, Some("NCCL 2.21.5")] {
            let line = crate::display::memory::cuda_collectives(nccl);
            let on_gpu = format!("{table}{line}\n");
            assert_eq!(mask_for_check(table), mask_for_check(&on_gpu));
        }
    }

    #[test]
    fn a_measured_timeline_is_compared_by_its_lanes() {
        let modelled = "profile\ntimeline (modelled; 13.408 µs per column)\n  host           │░░░to░░   │  94%\n  cuda:0 default │▒▒▒H2D▒▒███│  99%\n                  0   750.859 µs\n  █ kernel  ▒ copy\n>>> x\n";
        let measured = "profile\ntimeline (measured with CUDA events; 9.1 µs per column)\n  host           │░░to░      │  60%\n  cuda:0 default │▒▒H2D▒█    │  70%\n                  0   512.000 µs\n  █ kernel  ▒ copy\n>>> x\n";
        let (e, a) = mask_measured_timelines(mask_for_check(modelled), mask_for_check(measured));
        assert_eq!(e, a);
        assert!(a.contains("  cuda:0 default │<lane>│\n"), "{a}");
        // Two modelled timelines are compared as drawn.
        let other = modelled.replace("░░░to░░   ", "░░░to░░░  ");
        let (e, a) = mask_measured_timelines(mask_for_check(modelled), mask_for_check(&other));
        assert_ne!(e, a);
        // A lane missing on the GPU is a difference still.
        let fewer = measured.replace("  host           │░░to░      │  60%\n", "");
        let (e, a) = mask_measured_timelines(mask_for_check(modelled), mask_for_check(&fewer));
        assert_ne!(e, a);
    }

    #[test]
    fn check_masks_the_backend_but_not_the_values() {
        let sim = "backend: sim (2 simulated device(s); no CUDA driver found)\n\
                   cuda:0  NVIDIA H100 (simulated, 16.0 GiB)  9.0\n[1.]  f32[1] @cuda:0\n";
        let emu = "backend: emu (2 emulated device(s), chosen with --backend emu)\n\
                   cuda:0  NVIDIA H100 (emulated, 16.0 GiB)  9.0\n[1.]  f32[1] @cuda:0\n";
        assert_eq!(mask_for_check(sim), mask_for_check(emu));
        assert_ne!(
            mask_for_check(sim),
            mask_for_check(&emu.replace("[1.]", "[2.]"))
        );
        assert_ne!(
            mask_for_check("backend: cpu\n"),
            mask_for_check("backend: sim (x)\n")
        );
        let modelled = "time: 2.0 µs per iteration (device time on cuda:0 stream `default`, \
                        modelled on NVIDIA H100 80GB HBM3; 1 iteration)\n";
        let measured = "time: 7.5 µs per iteration (device time on cuda:0 stream `default`, \
                        measured with CUDA events on NVIDIA H200; 1 iteration)\n";
        let masked =
            |e: &str, a: &str| mask_measured_timelines(mask_for_check(e), mask_for_check(a));
        let (e, a) = masked(modelled, measured);
        assert_eq!(e, a);
        let (e, a) = masked(
            modelled,
            &measured.replace("stream `default`", "stream `s`"),
        );
        assert_ne!(e, a);
    }

    #[test]
    fn check_masks_what_the_gpu_and_the_simulator_say_of_themselves() {
        // As an H100 and the simulator printed them (issue 19's first run).
        let sim = "cuda:0  NVIDIA H100 (simulated, 16.0 GiB)        9.0           0 B / 16.0 GiB         0 B         0 B\n\
                   cuda:0 — NVIDIA H100 (simulated, 16.0 GiB) — caching allocator\n\
                   \"NVIDIA H100 (simulated, 16.0 GiB)\"\n\
                   device busy  1.0 µs (kernels and copies, 3% of it)\n";
        let gpu = "cuda:0  NVIDIA H100 80GB HBM3                    9.0           0 B / 79.2 GiB         0 B         0 B\n\
                   cuda:0 — NVIDIA H100 80GB HBM3 — caching allocator\n\
                   \"NVIDIA H100 80GB HBM3\"\n\
                   device busy  2.0 µs (kernels and copies, 5% of it, modelled on NVIDIA H100 80GB HBM3)\n";
        assert_eq!(mask_for_check(sim), mask_for_check(gpu));
        // An H200 (session 30's run): a GPU other than the one modelled.
        let h200 = "cuda:0  NVIDIA H200                              9.0          0 B / 139.8 GiB         0 B         0 B\n\
                    cuda:0 — NVIDIA H200 — caching allocator\n\
                    \"NVIDIA H200\"\n\
                    device busy  2.0 µs (kernels and copies, 5% of it, modelled on NVIDIA H100 80GB HBM3)\n";
        assert_eq!(mask_for_check(sim), mask_for_check(h200));
        // Which device, and what follows the name, are still compared.
        assert_ne!(
            mask_for_check(h200),
            mask_for_check(&h200.replace("cuda:0 — NVIDIA H200", "cuda:1 — NVIDIA H200"))
        );
        assert_ne!(
            mask_for_check("\"NVIDIA H200\" x\n"),
            mask_for_check("\"NVIDIA H200\" y\n")
        );
        // What the device holds is still compared.
        let used = gpu.replacen("0 B / 79.2", "2.0 MiB / 79.2", 1);
        assert_ne!(mask_for_check(sim), mask_for_check(&used));
        let allocated = gpu.replacen("GiB         0 B", "GiB     2.0 MiB", 1);
        assert_ne!(mask_for_check(sim), mask_for_check(&allocated));
        assert_eq!(
            mask_for_check("  device free                16.0 GiB of 16.0 GiB\n"),
            mask_for_check("  device free                78.6 GiB of 79.2 GiB\n")
        );
        // A GPU's measured copies and busy share, beside the simulator's model.
        let modelled = "time: 2.0 µs per iteration (device time on cuda:0 stream `default`, \
                        modelled on NVIDIA H100 80GB HBM3; 5 iterations)\n      copies: 11.6 GB/s\n\
                        device busy  1.0 µs (kernels and copies)\n";
        let measured = "time: 7.5 µs per iteration (device time on cuda:0 stream `default`, \
                        measured with CUDA events on NVIDIA H100 80GB HBM3; 5 iterations)\n      \
                        copies: 3.7 GB/s\ndevice busy  1.0 µs (kernels and copies, 3% of it)\n";
        let masked =
            |e: &str, a: &str| mask_measured_timelines(mask_for_check(e), mask_for_check(a));
        let (e, a) = masked(modelled, measured);
        assert_eq!(e, a);
        // The simulator's own runs still compare its modelled bandwidth.
        let (e, a) = masked(modelled, &modelled.replace("11.6", "12.0"));
        assert_ne!(e, a);
    }

    fn shown(t: &str) -> Shown {
        Shown {
            text: t.into(),
            html: None,
        }
    }

    #[test]
    fn streams_join_and_clear_output_applies() {
        let outcome = Outcome {
            outputs: vec![
                Output::Text("a".into()),
                Output::Text("b".into()),
                Output::Warning("w".into()),
                Output::Value(shown("1")),
            ],
            error: None,
        };
        assert_eq!(
            from_outcome(outcome),
            vec![
                CellOutput::Stream {
                    stderr: false,
                    text: "a\nb\n".into()
                },
                CellOutput::Stream {
                    stderr: true,
                    text: "warning: w\n".into()
                },
                CellOutput::Result {
                    text: "1".into(),
                    html: None
                },
            ]
        );
        let cleared = Outcome {
            outputs: vec![
                Output::Text("old".into()),
                Output::Clear { wait: true },
                Output::Text("new".into()),
                Output::Clear { wait: true },
            ],
            error: None,
        };
        // With `wait`, the clear happens at the next output; none came after the second.
        assert_eq!(
            from_outcome(cleared),
            vec![CellOutput::Stream {
                stderr: false,
                text: "new\n".into()
            }]
        );
        let now = Outcome {
            outputs: vec![Output::Text("old".into()), Output::Clear { wait: false }],
            error: None,
        };
        assert!(from_outcome(now).is_empty());
    }

    #[test]
    fn json_round_trip() {
        let outs = vec![
            CellOutput::Stream {
                stderr: false,
                text: "x\ny\n".into(),
            },
            CellOutput::Display {
                text: "mem".into(),
                html: Some("<table>\n</table>".into()),
            },
            CellOutput::Error {
                ename: "NameError".into(),
                evalue: "no variable `q`".into(),
                traceback: vec!["\x1b[31mError\x1b[0m: no variable".into(), "  q".into()],
            },
        ];
        assert_eq!(from_json(&to_json(&outs, Some(3))).unwrap(), outs);
    }

    #[test]
    fn comparing_masks_times_and_colours() {
        let a = [CellOutput::Stream {
            stderr: false,
            text: "wall time    930.815 µs\n\x1b[1mdone\x1b[0m in 3 ms, ok\n".into(),
        }];
        let b = [CellOutput::Stream {
            stderr: false,
            text: "wall time    12.5 µs\ndone in 4.1 ms, ok\n".into(),
        }];
        assert_eq!(comparable(&a), comparable(&b));
        assert!(
            comparable(&a).contains("wall time    <time>"),
            "{}",
            comparable(&a)
        );
        let c = [CellOutput::Stream {
            stderr: false,
            text: "11.6 GB/s\n".into(),
        }];
        let d = [CellOutput::Stream {
            stderr: false,
            text: "45.3 GB/s\n".into(),
        }];
        assert_ne!(comparable(&c), comparable(&d), "only times are masked");
    }
}
