"""Python's urllib.parse, the part programs reach for (written for
cudash): `urlparse` into its six parts (a `ParseResult`) and
`urlunparse` back."""
from collections import namedtuple

ParseResult = namedtuple("ParseResult", ["scheme", "netloc", "path", "params", "query", "fragment"])

_SCHEME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-."


def urlparse(url, scheme="", allow_fragments=True):
    netloc = query = fragment = params = ""
    i = url.find(":")
    if i > 0 and all(c in _SCHEME_CHARS for c in url[:i]) and url[0].isalpha():
        scheme, url = url[:i].lower(), url[i + 1:]
    if url[:2] == "//":
        end = len(url)
        for c in "/?#":
            k = url.find(c, 2)
            if k >= 0:
                end = min(end, k)
        netloc, url = url[2:end], url[end:]
    if allow_fragments and "#" in url:
        url, fragment = url.split("#", 1)
    if "?" in url:
        url, query = url.split("?", 1)
    if ";" in url[url.rfind("/") + 1:]:
        k = url.rfind(";")
        url, params = url[:k], url[k + 1:]
    return ParseResult(scheme, netloc, url, params, query, fragment)


def urlunparse(parts):
    scheme, netloc, url, params, query, fragment = parts
    if params:
        url = f"{url};{params}"
    if netloc or (scheme and url[:2] != "//"):
        if url and url[:1] != "/":
            url = "/" + url
        url = "//" + netloc + url
    if scheme:
        url = scheme + ":" + url
    if query:
        url = url + "?" + query
    if fragment:
        url = url + "#" + fragment
    return url
