"""IPython.display, as cudash gives it (written for cudash, after IPython
9's `core/display.py`): `display(obj)` shows a figure's image or an
object's HTML (`_repr_html_`) in a notebook and prints the objects
elsewhere, as IPython does outside its shell; `HTML`, `Markdown`, `Image`
(a PNG file or its bytes) and `clear_output` (a terminal's line cleared;
nothing to clear in a notebook, which keeps each output)."""

import base64

import _cudash

__all__ = ["display", "clear_output", "HTML", "Markdown", "Image", "DisplayObject"]


class DisplayObject:
    def __init__(self, data=None, url=None, filename=None, metadata=None):
        if filename is not None and data is None:
            with open(filename, "rb" if self._binary else "r") as f:
                data = f.read()
        self.data = data
        self.url = url
        self.filename = filename
        self.metadata = metadata

    _binary = False

    def __repr__(self):
        return f"<IPython.core.display.{type(self).__name__} object>"


class HTML(DisplayObject):
    def _repr_html_(self):
        return self.data


class Markdown(DisplayObject):
    def _repr_markdown_(self):
        return self.data


class Image(DisplayObject):
    _binary = True

    def __init__(self, data=None, url=None, filename=None, format=None, embed=None, width=None,
                 height=None, **kwargs):
        if isinstance(data, str) and filename is None and url is None and not data.startswith("http"):
            filename, data = data, None
        super().__init__(data=data, url=url, filename=filename)
        self.width, self.height = width, height

    def _repr_html_(self):
        size = ""
        if self.width is not None:
            size += f' width="{self.width}"'
        if self.height is not None:
            size += f' height="{self.height}"'
        if self.data is None and self.url is not None:
            return f'<img src="{self.url}"{size}/>'
        encoded = base64.b64encode(self.data).decode("ascii")
        return f'<img src="data:image/png;base64,{encoded}"{size}/>'


def display(*objs, include=None, exclude=None, metadata=None, transient=None, display_id=None,
            raw=False, clear=False, **kwargs):
    """In a notebook, each object shown: a figure as its image, an object
    with `_repr_html_` as its HTML, anything else as its repr. Elsewhere
    the objects printed, as IPython prints them outside its shell."""
    if not _cudash.notebook():
        print(*objs)
        return
    for obj in objs:
        if hasattr(obj, "_canvas") and hasattr(obj, "savefig"):
            _cudash.show_png(repr(obj), obj._canvas())
            continue
        make_html = getattr(obj, "_repr_html_", None)
        html = make_html() if make_html is not None else None
        if html is not None:
            _cudash.show_html(repr(obj), html)
            continue
        print(repr(obj))


def clear_output(wait=False):
    """Outside a notebook, IPython's: the terminal's line cleared (twice, as
    it writes it for stdout and stderr); in a notebook nothing (each of
    cudash's outputs stays)."""
    if not _cudash.notebook():
        print("\033[2K\r", end="")
        print("\033[2K\r", end="")
