# IPython's display functions in a script, as notebooks' training loops
# call them (a live plot redrawn each epoch): `display` prints the objects
# (a figure as `Figure(640x480)`), `clear_output` clears the terminal's
# line with ANSI escapes written as Python's octal escapes; and the repr
# of a string escapes what is not printable.
import matplotlib.pyplot as plt
from IPython import display
import IPython

for i in range(2):
    plt.plot([0, i])
    display.clear_output(wait=True)
    display.display(plt.gcf())
display.display(IPython.display.HTML("<b>x</b>"), 3, "text")
print(repr(plt.gcf()), str(plt.gcf()))
print(repr("\033[1m\0\101\7x\08"), len("\0"), "\1010", repr("tab\there\x7f\x9f é"))
n = 2
print(repr(f"\033[1m{n}\101\x41\u00e9\t{n!r:>3}\a"))
