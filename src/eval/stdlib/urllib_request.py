"""Python's urllib.request, the part programs fetch files with (written
for cudash): `urlretrieve(url, filename)` saves what is at the URL (over
http(s) with `curl`, a `file://` URL copied), as torchvision's downloads
do; `urlopen(url)` a response whose `read()` gives the body's bytes
(fetched whole first)."""
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


class _Response:
    """What `urlopen` gives: `read(size=-1)` the body's bytes, a context
    manager that closes it; `url`, `status` (200), `getcode()`."""

    def __init__(self, url, path):
        self.url = url
        self.status = 200
        self._file = open(path, "rb")

    def read(self, size=-1):
        return self._file.read(size)

    def getcode(self):
        return self.status

    def geturl(self):
        return self.url

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def urlopen(url, data=None, timeout=None, **kwargs):
    """The response to a GET of `url`: `urlopen(url).read()` is its bytes."""
    if not isinstance(url, str):
        url = url.full_url
    if data is not None:
        raise NotImplementedError("cudash's urlopen fetches with GET; it sends no data")
    filename, _ = urlretrieve(url)
    return _Response(url, filename)
