"""IPython, as far as PyTorch's tutorials import it when run as scripts
(written for cudash): `IPython.core.debugger.set_trace` (the "What is
torch.nn really?" tutorial imports it and leaves its call commented out)."""
