"""Python's urllib.request, the part programs fetch files with (written
for cudash): `urlretrieve(url, filename)` saves what is at the URL (over
http(s) with `curl`, a `file://` URL copied), as torchvision's downloads
do. `urlopen` needs Python's bytes, which cudash does not have: it says
so, and names `urlretrieve`."""
import os
import tempfile
import _cudash


class URLError(OSError):
    pass


def urlretrieve(url, filename=None, reporthook=None, data=None):
    """Saves `url` as `filename` (a new temporary file if None); returns
    `(filename, headers)` (cudash keeps no headers: an empty dict)."""
    if data is not None:
        raise NotImplementedError("cudash's urlretrieve fetches with GET; it sends no data")
    if filename is None:
        filename = os.path.join(tempfile.mkdtemp(), os.path.basename(url) or "download")
    try:
        _cudash.download(url, os.fspath(filename))
    except RuntimeError as e:
        raise URLError(str(e)) from None
    return os.fspath(filename), {}


class OpenerDirector:
    """What `build_opener()` gives: programs set `addheaders` on it and
    `install_opener` it before downloading (cudash's downloads send curl's
    own headers)."""

    def __init__(self):
        self.addheaders = [("User-agent", "Python-urllib/3.11")]

    def open(self, fullurl, data=None, timeout=None):
        return urlopen(fullurl, data, timeout)


_opener = [None]


def build_opener(*handlers):
    return OpenerDirector()


def install_opener(opener):
    _opener[0] = opener


def urlopen(url, data=None, timeout=None, **kwargs):
    raise NotImplementedError(
        "cudash has no bytes objects, so no urlopen(url).read(); "
        "urllib.request.urlretrieve(url, filename) saves the file, and open(filename) reads it")
