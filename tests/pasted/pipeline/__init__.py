# A package of the program's own: its modules import each other relatively.
from .text import tokenize, Vocabulary
from .batching import *
