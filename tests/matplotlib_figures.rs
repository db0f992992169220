//! matplotlib's figures as cudash draws them (`stdlib/matplotlib_pyplot.py`):
//! what `savefig` writes, read back pixel by pixel. (What a program asks of
//! its figures, beside PyTorch's run with matplotlib, is in
//! tests/pasted/tutorial_basics.py.)

mod common;

/// An image shown with `imshow` fills the axes' box at its aspect, pixel
/// for pixel where the box is a whole multiple of it; a red line from one
/// corner of the data to the other crosses the box's middle; the frame
/// is black and the rest of the figure white.
#[test]
fn savefig_draws_images_lines_and_frames() {
    let lines = common::script_lines_on(
        0,
        "figure_pixels",
        r#"
import torch
import matplotlib.pyplot as plt
from PIL import Image
img = torch.zeros(2, 2, 3, dtype=torch.uint8)
img[0, 0] = torch.tensor([255, 0, 0], dtype=torch.uint8)
img[1, 1] = torch.tensor([0, 0, 255], dtype=torch.uint8)
fig = plt.figure(figsize=(2, 2), dpi=100)
ax = fig.add_axes([0.0, 0.0, 1.0, 1.0])
ax.imshow(img)
ax.axis("off")
fig.savefig("img.png")
p = Image.open("img.png")
print(p.size, p.getpixel((10, 10)), p.getpixel((150, 150)), p.getpixel((150, 10)))
fig = plt.figure(figsize=(2, 2), dpi=100)
ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
ax.plot([0, 1], [0, 1], color="red", linewidth=1)
fig.savefig("line.png")
p = Image.open("line.png")
red = [sum(1 for x in range(200) if p.getpixel((x, y)) == (255, 0, 0)) for y in (5, 60, 100, 140)]
print(red, p.getpixel((20, 100)), p.getpixel((10, 100)), p.getpixel((100, 179)))
plt.figure()
plt.imshow(torch.tensor([[0.0, 1.0]]), cmap="gray")
plt.savefig("gray.png")
p = Image.open("gray.png")
print(p.size, p.getpixel((200, 240)), p.getpixel((440, 240)))
try:
    plt.savefig("x.jpg")
except ValueError as e:
    print(e)
try:
    plt.imshow(torch.zeros(2, 2), cmap="nope")
except ValueError as e:
    print(str(e)[:40])
"#,
    );
    assert_eq!(
        lines,
        [
            "(200, 200) (255, 0, 0) (0, 0, 255) (0, 0, 0)",
            "[0, 1, 1, 1] (0, 0, 0) (255, 255, 255) (0, 0, 0)",
            "(640, 480) (0, 0, 0) (255, 255, 255)",
            "Format 'jpg' is one matplotlib writes and cudash does not; cudash writes png, pdf and svg",
            "'nope' is not a valid value for cmap; su",
        ]
    );
}

/// `savefig` writes a PDF (one page of the figure's size in points, its
/// pixels an image on it) and an SVG (the PNG in an `<image>`), takes a
/// binary file object such as `io.BytesIO` that `Image.open` reads back,
/// and adds ".png" to a name without an extension, as matplotlib does.
#[test]
fn savefig_writes_pdf_svg_and_file_objects() {
    let lines = common::script_lines_on(
        0,
        "figure_formats",
        r#"
import io
import matplotlib.pyplot as plt
from PIL import Image
fig = plt.figure(figsize=(3, 2), dpi=50)
plt.plot([0, 1], [0, 1], "g")
plt.savefig("f.pdf")
plt.savefig("f.svg")
plt.savefig("plain")
pdf = open("f.pdf", "rb").read()
print(pdf[:9], pdf[-6:], b"/MediaBox [0 0 216.00 144.00]" in pdf, b"/Width 150 /Height 100" in pdf)
svg = open("f.svg").read()
print(svg.count("<svg"), 'width="216pt"' in svg, "data:image/png;base64," in svg)
buf = io.BytesIO()
fig.savefig(buf, format="png")
buf.seek(0)
im = Image.open(buf)
ref = Image.open("plain.png")
print(im.size, im.format, im.getpixel((75, 50)) == ref.getpixel((75, 50)), buf.getvalue()[:4])
"#,
    );
    assert_eq!(
        lines,
        [
            "b'%PDF-1.4\\n' b'%%EOF\\n' True True",
            "1 True True",
            "(150, 100) PNG True b'\\x89PNG'",
        ]
    );
}

/// In a notebook `plt.show()` shows each open figure as an image (a PNG
/// in a data URL) beside matplotlib's text for it, and closes it, as the
/// inline backend does; in a terminal it shows nothing.
#[test]
fn show_in_a_notebook_is_an_image() {
    let src = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\nprint(len(plt.get_fignums()))";
    let mut s = common::session();
    s.enable_html();
    let o = s.execute(src);
    assert!(o.error.is_none(), "{}", o.plain_text());
    let shown: Vec<_> = o
        .outputs
        .iter()
        .filter_map(|o| match o {
            cudash::eval::Output::Display(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].text, "<Figure size 640x480 with 1 Axes>");
    let html = shown[0].html.as_deref().unwrap_or_default();
    assert!(
        html.starts_with("<img src=\"data:image/png;base64,iVBORw0KGgo"),
        "{html}"
    );
    assert_eq!(o.plain_text().lines().last(), Some("0"));

    let o = common::session().execute(src);
    assert!(o.error.is_none(), "{}", o.plain_text());
    assert!(!o
        .outputs
        .iter()
        .any(|o| matches!(o, cudash::eval::Output::Display(_))));
    assert_eq!(o.plain_text().lines().last(), Some("1"));
}

/// The DCGAN tutorial's animation in a notebook: `HTML(ani.to_jshtml())`
/// as a cell's last expression shows the player (IPython's `HTML` by its
/// `_repr_html_`), each frame a PNG of the figure with that frame's artists
/// alone drawn; `display()` shows it too. Frame 0 shows the red image,
/// frame 1 the blue one. A FuncAnimation's frames are its function's.
#[test]
fn an_animation_plays_in_a_notebook() {
    let src = r#"import torch
import matplotlib.pyplot as plt
import matplotlib.animation as animation
from IPython.display import HTML, display
red = torch.zeros(2, 2, 3, dtype=torch.uint8); red[..., 0] = 255
blue = torch.zeros(2, 2, 3, dtype=torch.uint8); blue[..., 2] = 255
fig = plt.figure(figsize=(1, 1), dpi=20)
plt.axis("off")
ims = [[plt.imshow(red, animated=True)], [plt.imshow(blue, animated=True)]]
ani = animation.ArtistAnimation(fig, ims, interval=1000, repeat_delay=1000, blit=True)
frames = ani._frame_pixels()
print([tuple(f[10, 10].tolist()) for f in frames])
line, = plt.plot([], [])
def step(k):
    line.set_data([0, 1], [0, k])
lines = animation.FuncAnimation(fig, step, frames=3, interval=50)
print(len(lines._frame_pixels()), line.get_ydata())
display(HTML("<b>shown</b>"))
HTML(ani.to_jshtml())"#;
    let mut s = common::session();
    s.enable_html();
    let o = s.execute(src);
    assert!(o.error.is_none(), "{}", o.plain_text());
    let text = o.plain_text();
    assert!(
        text.contains("[(255, 0, 0), (0, 0, 255)]\n3 [0.0, 2.0]"),
        "{text}"
    );
    let htmls: Vec<String> = o
        .outputs
        .iter()
        .filter_map(|o| match o {
            cudash::eval::Output::Display(s) | cudash::eval::Output::Value(s) => s.html.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(htmls.len(), 2, "{htmls:?}");
    assert_eq!(htmls[0], "<b>shown</b>");
    assert_eq!(
        htmls[1]
            .matches("data:image/png;base64,iVBORw0KGgo")
            .count(),
        2
    );
    assert!(htmls[1].contains("<input"), "{}", htmls[1]);

    // In a script, `display` prints the object's repr, and saving is refused.
    let lines = common::script_lines_on(
        0,
        "animation_script",
        "from IPython.display import HTML, display\nimport matplotlib.pyplot as plt\n\
         import matplotlib.animation as animation\ndisplay(HTML('<b>x</b>'))\n\
         ani = animation.FuncAnimation(plt.figure(), lambda k: None, frames=2)\n\
         try:\n    ani.save('a.gif', writer='pillow')\nexcept ValueError as e:\n    print(str(e)[:40])",
    );
    assert_eq!(
        lines,
        [
            "<IPython.core.display.HTML object>",
            "cudash writes no animation files (a.gif)"
        ]
    );
}
