//! `PIL.Image` as Pillow 13 gives it: the fixtures' images were written by
//! Pillow (`tests/fixtures/pil/make_images.py`) and each `.out` file is
//! what CPython with Pillow 13.0.0 printed running the program beside it;
//! the digests cover every pixel, so one sample off fails.

mod common;

use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pil")
        .join(name)
}

/// JPEGs (4:2:0, 4:2:2, 4:4:4, progressive, restart markers, gray, 3×2)
/// and PNGs (RGB, L, RGBA, 4-bit palette with and without transparency,
/// 4-bit gray, 1-bit) decoded to Pillow's pixels, and converted between
/// modes as Pillow converts; a file opened "rb"; what is not an image.
#[test]
fn images_open_with_pillows_pixels() {
    common::assert_prints_its_out_file(&fixture("open.py"));
}

/// `Image.resize` with each of Pillow's six filters, shrinking and
/// enlarging, on one axis, from a fractional box; RGBA through Pillow's
/// premultiplied alpha, palette images by nearest.
#[test]
fn resize_gives_pillows_pixels() {
    common::assert_prints_its_out_file(&fixture("resize.py"));
}

/// What cudash does not decode says what it is; a cut-off file is
/// Pillow's "truncated".
#[test]
fn files_it_cannot_decode_say_why() {
    let cut = std::env::temp_dir().join(format!("cudash-cut-{}.jpg", std::process::id()));
    let photo = std::fs::read(fixture("photo.jpg")).unwrap();
    std::fs::write(&cut, &photo[..1500]).unwrap();
    let src = format!(
        "from PIL import Image\nfor f in [{:?}, {:?}]:\n    try:\n        Image.open(f)\n    except OSError as e:\n        print(type(e).__name__, str(e).split(': ')[-1])\n",
        fixture("cmyk.jpg").display().to_string(),
        cut.display().to_string()
    );
    let lines = common::script_lines_on(0, "pil_errors", &src);
    std::fs::remove_file(&cut).unwrap();
    assert_eq!(
        lines,
        [
            "OSError cudash decodes gray and color JPEGs, not ones of 4 components (CMYK)",
            "OSError image file is truncated"
        ]
    );
}

/// An ImageFolder over PNGs and JPEGs (a file it skips, a nested folder),
/// `Resize`, `CenterCrop`, `Normalize`, seeded `RandomResizedCrop` and
/// flips, a shuffled DataLoader: the same classes, samples, pixels and
/// batches as torchvision 0.29.2 with torch 2.15 and Pillow 13.0.0.
#[test]
fn image_folder_and_its_transforms_give_torchvisions_tensors() {
    common::assert_prints_its_out_file(&fixture("vision.py"));
}

/// `torchvision.io.read_image` (and `read_file`, `decode_image`) of JPEGs
/// and PNGs in the modes cudash reads: torchvision 0.29.2's tensors.
#[test]
fn read_image_gives_torchvisions_tensors() {
    common::assert_prints_its_out_file(&fixture("io.py"));
}
