"""The third-party `regex` module (minGPT's tokenizer imports it), as
cudash gives it: Python's `re` (stdlib/re.py), whose matching already
reads the Unicode classes `regex` adds (`\\p{L}`, `\\p{N}`). Its other
extras (fuzzy matching, `\\X`, nested sets, `overlapped=`) are not here."""
from re import *
from re import Match, Pattern, error, escape, purge
