//! What notebooks show: tensors as tables under their device badge, `mem` as
//! a table and an SVG of the segments, and evcxr's display framing.

mod common;

use cudash::eval::Output;
use cudash::session::Session;

fn html_session() -> Session {
    let mut s = common::session();
    s.enable_html();
    s
}

/// The HTML of each output of `src` that has one.
fn htmls(s: &mut Session, src: &str) -> Vec<String> {
    let o = s.execute(src);
    assert!(o.error.is_none(), "{}", o.plain_text());
    o.outputs
        .iter()
        .filter_map(|o| match o {
            Output::Value(s) | Output::Display(s) => s.html.clone(),
            _ => None,
        })
        .collect()
}

#[test]
fn html_only_when_asked() {
    let o = common::session().execute("ones(2)\nmem");
    assert!(o.outputs.iter().all(|o| match o {
        Output::Value(s) | Output::Display(s) => s.html.is_none(),
        _ => true,
    }));
}

#[test]
fn a_matrix_is_a_table_under_its_badge() {
    let mut s = html_session();
    let [h] = &htmls(&mut s, "arange(6, dtype=f32).reshape(2, 3).to(cuda:1)")[..] else {
        panic!("one output")
    };
    assert!(h.contains(">cuda:1</span>"), "{h}");
    assert!(h.contains("<code>f32[2,3]</code>"), "{h}");
    assert_eq!(h.matches("<tr>").count(), 3, "header row and two rows: {h}");
    assert_eq!(h.matches("<td>").count(), 6, "{h}");
    for v in ["0.", "1.", "5."] {
        assert!(h.contains(&format!("<td>{v}</td>")), "{v} in {h}");
    }
}

#[test]
fn big_tensors_are_summarised_like_the_text() {
    let mut s = html_session();
    let [h] = &htmls(&mut s, "arange(10000).reshape(100, 100)")[..] else {
        panic!("one output")
    };
    // 3 rows, a gap, 3 rows (and 3 + gap + 3 columns) as in the text display.
    assert_eq!(h.matches("<tr>").count(), 1 + 7, "{h}");
    assert_eq!(h.matches("<td>").count(), 7 * 7, "{h}");
    assert!(h.contains("<td>⋱</td>") && h.contains("<td>⋯</td>") && h.contains("<td>⋮</td>"));
    assert!(h.contains("<td>9999</td>"), "{h}");
}

#[test]
fn higher_dimensions_are_one_table_per_slice() {
    let mut s = html_session();
    let [h] = &htmls(&mut s, "arange(12).reshape(2, 2, 3)")[..] else {
        panic!("one output")
    };
    assert_eq!(h.matches("<table").count(), 2, "{h}");
    assert!(h.contains("[0, :, :]") && h.contains("[1, :, :]"), "{h}");
    assert!(h.contains("<td>11</td>"), "{h}");
    let [h] = &htmls(&mut s, "zeros(10, 10, 10, 10)")[..] else {
        panic!("one output")
    };
    // 6 × 6 slices shown of 10 × 10; the gaps are marked, not drawn.
    assert_eq!(h.matches("<table").count(), 36, "{h}");
    assert!(h.contains("[9, 9, :, :]") && h.contains("⋮"), "{h}");
}

#[test]
fn scalars_and_empty_tensors() {
    let mut s = html_session();
    let h = htmls(&mut s, "ones(3).sum()\nzeros(0, 3)");
    assert!(h[0].contains("<code>3.</code>"), "{}", h[0]);
    assert!(h[1].contains("<code>[]</code>"), "{}", h[1]);
}

#[test]
fn mem_is_a_table_and_a_drawing_of_the_segments() {
    let mut s = html_session();
    let h = htmls(
        &mut s,
        "a = ones(1000, device=cuda:0)\nb = empty(1024, 1024, device=cuda:0)\nmem",
    );
    let [h] = &h[..] else { panic!("one display") };
    assert!(
        h.contains("<table") && h.contains("allocated (tensors)"),
        "{h}"
    );
    assert!(h.contains("<svg") && h.contains("</svg>"), "{h}");
    let (svg, legend) = h.split_once("</svg>").unwrap();
    // One bar per segment (a small and a large one), blocks named on hover.
    assert_eq!(svg.matches("segment ").count(), 2, "{h}");
    assert!(svg.contains("a: requested 3.9 KiB"), "{h}");
    assert!(svg.contains("b: requested 4.0 MiB"), "{h}");
    // A block wide enough carries its owner's name, and a legend under the
    // drawing names every block's owner: a static render (nbconvert,
    // GitHub) has no hover.
    assert!(svg.contains(">b</text>"), "{svg}");
    assert!(
        legend.contains("segment 0: +0 B 4.0 KiB a: requested 3.9 KiB<br>"),
        "{legend}"
    );
    assert!(legend.contains("b: requested 4.0 MiB"), "{legend}");
    let cpu = htmls(&mut s, "mem cpu");
    assert!(cpu[0].contains("pinned (page-locked)"), "{}", cpu[0]);
}

#[test]
fn text_is_escaped() {
    use cudash::display::html::escape;
    assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
}

#[test]
fn evcxr_display_frames_text_and_html() {
    let mut s = html_session();
    let o = s.execute("x = ones(2, device=cuda:1)\nx\nmem cuda:1");
    let c = o.evcxr_content();
    assert!(c.starts_with("EVCXR_BEGIN_CONTENT text/plain\n"), "{c}");
    assert!(c.contains("[1., 1.]  f32[2] @cuda:1"), "{c}");
    assert!(
        c.contains("\nEVCXR_END_CONTENT\nEVCXR_BEGIN_CONTENT text/html\n"),
        "{c}"
    );
    assert!(
        c.contains("<svg") && c.ends_with("EVCXR_END_CONTENT\n"),
        "{c}"
    );
    let x = s.get("x").expect("x is bound");
    assert!(x.evcxr_content().contains("<table"));
    let err = s.execute("x + ones(2)").evcxr_content();
    assert!(err.contains("DeviceError"), "{err}");
}

#[test]
fn profile_draws_a_timeline_with_the_terminals_legend_and_a_monospace_table() {
    let mut s = html_session();
    let h = htmls(
        &mut s,
        "x = ones(1000, device=cuda)\nprofile { y = (x * 2).sum().item() }",
    );
    let [h] = &h[..] else { panic!("one display") };
    assert!(h.contains("<pre style=\"font-family: ui-monospace"), "{h}");
    for item in [
        "kernel</text>",
        "copy</text>",
        "host waits</text>",
        "host sync</text>",
        "% busy",
    ] {
        assert!(h.contains(item), "legend lacks {item}: {h}");
    }
}

#[test]
fn mem_history_is_an_svg_whose_columns_name_their_statements() {
    let mut s = html_session();
    let pages = htmls(
        &mut s,
        "x = ones(1000, device=cuda)\nbig = zeros(4000000, device=cuda)\ndel big\nmem history",
    );
    let page = pages.last().expect("mem history shows HTML");
    assert!(
        page.starts_with("<svg") && page.ends_with("</svg>"),
        "{page}"
    );
    // Hovering a column names the statement with the most allocated in it.
    assert!(
        page.contains("<title>event 4: 16.0 MiB allocated, 18.0 MiB reserved at most; highest at cell 1, line 2: `big = zeros(4000000, device=cuda)` (zeros)</title>"),
        "{page}"
    );
    assert!(
        page.contains("peak allocated 16.0 MiB at event 4"),
        "{page}"
    );
}

#[test]
fn a_parameter_shows_under_pytorchs_line_in_html_too() {
    let mut s = html_session();
    let [h] = &htmls(&mut s, "Linear(2, 1).bias")[..] else {
        panic!("one output")
    };
    assert!(h.starts_with("<div>Parameter containing:</div>"), "{h}");
    let [h] = &htmls(&mut s, "ones(2)")[..] else {
        panic!("one output")
    };
    assert!(!h.contains("Parameter"), "{h}");
}
