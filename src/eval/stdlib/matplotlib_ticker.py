"""matplotlib.ticker for cudash (written for cudash): the locators and
formatters programs give an axis (`ax.xaxis.set_major_locator(
ticker.MultipleLocator(1))`). cudash draws no tick labels, so they are
kept, not used."""


class Locator:
    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs


class MultipleLocator(Locator):
    pass


class MaxNLocator(Locator):
    pass


class FixedLocator(Locator):
    pass


class NullLocator(Locator):
    pass


class AutoLocator(Locator):
    pass


class Formatter(Locator):
    pass


class FuncFormatter(Formatter):
    pass


class FormatStrFormatter(Formatter):
    pass


class StrMethodFormatter(Formatter):
    pass


class NullFormatter(Formatter):
    pass


class PercentFormatter(Formatter):
    pass
