"""torch.hub, the part that caches weights (written for cudash, after
PyTorch 2.15's `torch/hub.py`): `get_dir`/`set_dir` and
`load_state_dict_from_url`, which keeps each file in
`$TORCH_HOME/hub/checkpoints` (`~/.cache/torch` by default) and loads it
from there, downloading it first when it is not there (with `curl`;
cudash carries no HTTP client). The file's SHA-256 prefix is not checked
(`check_hash`): cudash computes no SHA-256. `torch.hub.load` of a GitHub
repository is not here."""
import os
import sys

import torch
import _cudash

_hub_dir = None


def _get_torch_home():
    return os.path.expanduser(
        os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch"))
    )


def get_dir():
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    _cudash.download(url, dst)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=True):
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = os.path.basename(url.split("?")[0].split("#")[0])
    if file_name is not None:
        filename = file_name
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        download_url_to_file(url, cached_file, None, progress=progress)
    return torch.load(cached_file, map_location=map_location, weights_only=weights_only)


def load(repo_or_dir, model, *args, **kwargs):
    raise NotImplementedError(
        "cudash's torch.hub caches and loads weights (load_state_dict_from_url); "
        "torch.hub.load, which runs a repository's hubconf.py, is not here"
    )
