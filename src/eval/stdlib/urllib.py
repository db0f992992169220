"""Python's urllib package (written for cudash): `import urllib.parse`
binds it, with its parts `parse` and `request` as they are imported."""
