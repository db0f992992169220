"""`IPython.core` (written for cudash): its `debugger` module."""
