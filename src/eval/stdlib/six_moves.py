"""`six.moves` on Python 3 (written for cudash): Python 3's own names."""
import urllib.parse
import urllib.request
import pickle as cPickle
from functools import reduce

range = range
zip = zip
map = map
filter = filter
