"""`tqdm.auto` and `tqdm.notebook`: tqdm's text bar (in a notebook, on its
stderr stream, which Jupyter redraws in place; not the ipywidgets bar)."""

from tqdm import tqdm, trange
