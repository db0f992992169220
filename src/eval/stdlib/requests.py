"""requests, the part PyTorch's examples download datasets with (written
for cudash): `requests.get(url)` fetches the body over http(s) with `curl`
into a temporary file. `r.raw` is that body as a stream with a `name`, so
`tarfile.open(fileobj=r.raw, mode="r:gz")` reads the archive (the graph
examples' Cora download); `r.text`, `r.json()`, `r.status_code`, `r.ok`,
`r.raise_for_status()`, `r.url`, and `with requests.get(...) as r:`.
cudash has no bytes objects: `r.content`, `iter_content` and
`r.raw.read()` say so. As in requests, only http and https URLs are
fetched (`file://` has no connection adapter)."""
import json as _json
import os
import tempfile
import _cudash


class RequestException(OSError):
    pass


class ConnectionError(RequestException):
    pass


class HTTPError(RequestException):
    pass


class InvalidSchema(RequestException, ValueError):
    pass


class MissingSchema(RequestException, ValueError):
    pass


class exceptions:
    RequestException = RequestException
    ConnectionError = ConnectionError
    HTTPError = HTTPError
    InvalidSchema = InvalidSchema
    MissingSchema = MissingSchema


class _Raw:
    """The body as a stream (`r.raw`): what `tarfile.open(fileobj=...)`
    and `shutil.copyfileobj` are given; its `name` is the file holding it."""

    def __init__(self, name):
        self.name = name
        self.closed = False
        self._file = None

    def read(self, size=-1):
        if self._file is None:
            self._file = open(self.name, "rb")
        return self._file.read(size)

    def close(self):
        self.closed = True
        if self._file is not None:
            self._file.close()


class Response:
    def __init__(self, url, path):
        self.url = url
        self.status_code = 200
        self.ok = True
        self.reason = "OK"
        self.encoding = "utf-8"
        self.headers = {}
        self.raw = _Raw(path)

    def __repr__(self):
        return f"<Response [{self.status_code}]>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        self.raw.close()

    def raise_for_status(self):
        if 400 <= self.status_code < 600:
            side = "Client" if self.status_code < 500 else "Server"
            raise HTTPError(f"{self.status_code} {side} Error: {self.reason} for url: {self.url}")

    @property
    def text(self):
        with open(self.raw.name) as f:
            return f.read()

    def json(self):
        return _json.loads(self.text)

    @property
    def content(self):
        with open(self.raw.name, "rb") as f:
            return f.read()

    def iter_content(self, chunk_size=1, decode_unicode=False):
        # The body in pieces of `chunk_size` bytes (the whole of it for None).
        data = self.content
        step = len(data) if chunk_size is None else chunk_size
        pieces = [data[k:k + step] for k in range(0, len(data), max(step, 1))]
        if decode_unicode:
            return [p.decode(self.encoding, "replace") for p in pieces]
        return pieces


def get(url, params=None, stream=False, timeout=None, headers=None, allow_redirects=True, **kwargs):
    """The response to a GET of `url` (its body fetched whole)."""
    if params:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        url = url + ("&" if "?" in url else "?") + query
    if "://" not in url:
        raise MissingSchema(f"Invalid URL {url!r}: No scheme supplied. Perhaps you meant https://{url}?")
    if not (url.startswith("http://") or url.startswith("https://")):
        raise InvalidSchema(f"No connection adapters were found for {url!r}")
    path = os.path.join(tempfile.mkdtemp(), os.path.basename(url.split("?")[0]) or "body")
    try:
        _cudash.download(url, path)
    except RuntimeError as e:
        # An HTTP error is a response (`r.ok` False, `raise_for_status()`
        # raises); a server that does not answer is a ConnectionError.
        said = str(e)
        if "returned error: " not in said:
            raise ConnectionError(said) from None
        code = int(said.split("returned error: ")[1].split()[0].strip(">"))
        with open(path, "w") as f:
            f.write("")
        r = Response(url, path)
        r.status_code = code
        r.ok = False
        r.reason = _REASONS.get(code, "")
        return r
    return Response(url, path)


_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            405: "Method Not Allowed", 429: "Too Many Requests", 500: "Internal Server Error",
            502: "Bad Gateway", 503: "Service Unavailable"}
