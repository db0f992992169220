"""matplotlib for cudash (written for cudash): the package's `use`,
`get_backend`, `rcParams` and `is_interactive`. cudash draws with a
non-interactive backend of its own, as matplotlib's Agg does where there is
no display: `pyplot.show()` shows nothing, `savefig` writes a PNG, a
PDF or an SVG of the figure's pixels (matplotlib.pyplot has what is drawn)."""

rcParams = {
    "figure.figsize": [6.4, 4.8],
    "figure.dpi": 100.0,
    "savefig.dpi": "figure",
    "lines.linewidth": 1.5,
    "image.cmap": "viridis",
    "axes.prop_cycle": None,
    "interactive": False,
    "animation.html": "none",
    "animation.embed_limit": 20.0,
}
_state = {"backend": "agg"}


def use(backend, force=True):
    """Any backend is accepted; cudash's draws PNG files only."""
    _state["backend"] = str(backend).lower()


def get_backend():
    return _state["backend"]


def is_interactive():
    return rcParams["interactive"]


def rc(group, **kwargs):
    for k, v in kwargs.items():
        rcParams[group + "." + k] = v
