"""Python's `logging`, as cudash gives it (written for cudash, with the
behaviour of CPython's): loggers by dotted name under the root, levels,
handlers writing to a stream (sys.stderr by default) or a file, formats in
`%(name)s` style, `basicConfig`, and the module's own `info`, `warning`,
... on the root logger (which configure it first, as CPython's do).

A record knows no caller's frame here: a format asking for `%(lineno)d`,
`%(filename)s`, `%(funcName)s` or `%(pathname)s` is refused by name."""
import sys
import time

CRITICAL = 50
FATAL = CRITICAL
ERROR = 40
WARNING = 30
WARN = WARNING
INFO = 20
DEBUG = 10
NOTSET = 0

_level_names = {CRITICAL: "CRITICAL", ERROR: "ERROR", WARNING: "WARNING",
                INFO: "INFO", DEBUG: "DEBUG", NOTSET: "NOTSET"}
_name_levels = {"CRITICAL": CRITICAL, "FATAL": FATAL, "ERROR": ERROR, "WARN": WARNING,
                "WARNING": WARNING, "INFO": INFO, "DEBUG": DEBUG, "NOTSET": NOTSET}
_frame_fields = ["lineno", "filename", "funcName", "pathname", "module"]
_disabled_below = 0

BASIC_FORMAT = "%(levelname)s:%(name)s:%(message)s"


def getLevelName(level):
    if level in _level_names:
        return _level_names[level]
    if level in _name_levels:
        return _name_levels[level]
    return "Level %s" % level


def _check_level(level):
    if isinstance(level, int):
        return level
    if isinstance(level, str):
        if level not in _name_levels:
            raise ValueError("Unknown level: %r" % level)
        return _name_levels[level]
    raise TypeError("Level not an integer or a valid string: %r" % level)


class LogRecord:
    def __init__(self, name, level, msg, args):
        self.name = name
        self.levelno = level
        self.levelname = getLevelName(level)
        self.msg = msg
        self.args = args
        self.created = time.time()
        self.msecs = int((self.created - int(self.created)) * 1000)
        self.relativeCreated = (self.created - _start) * 1000
        self.process = 0
        self.message = None

    def getMessage(self):
        msg = str(self.msg)
        if self.args:
            if len(self.args) == 1 and isinstance(self.args[0], dict):
                msg = msg % self.args[0]
            else:
                msg = msg % self.args
        return msg


class Formatter:
    default_time_format = "%Y-%m-%d %H:%M:%S"
    default_msec_format = "%s,%03d"

    def __init__(self, fmt=None, datefmt=None, style="%"):
        if style != "%":
            raise ValueError("cudash's logging formats in the '%' style: " + "%(name)s")
        self._fmt = fmt if fmt is not None else "%(message)s"
        for field in _frame_fields:
            if "%(" + field + ")" in self._fmt:
                raise ValueError("cudash's logging records no caller's frame: the format "
                                 "cannot use %(" + field + ")")
        self.datefmt = datefmt

    def usesTime(self):
        return "%(asctime)" in self._fmt

    def formatTime(self, record, datefmt=None):
        ct = time.localtime(record.created)
        if datefmt:
            return time.strftime(datefmt, ct)
        return self.default_msec_format % (time.strftime(self.default_time_format, ct), record.msecs)

    def formatMessage(self, record):
        values = {"name": record.name, "levelname": record.levelname, "levelno": record.levelno,
                  "message": record.message, "msecs": record.msecs, "created": record.created,
                  "relativeCreated": record.relativeCreated, "process": record.process,
                  "msg": record.msg}
        if self.usesTime():
            values["asctime"] = record.asctime
        return self._fmt % values

    def format(self, record):
        record.message = record.getMessage()
        if self.usesTime():
            record.asctime = self.formatTime(record, self.datefmt)
        return self.formatMessage(record)


_default_formatter = Formatter()


class Handler:
    def __init__(self, level=NOTSET):
        self.level = _check_level(level)
        self.formatter = None
        self.name = None

    def setLevel(self, level):
        self.level = _check_level(level)

    def setFormatter(self, fmt):
        self.formatter = fmt

    def format(self, record):
        fmt = self.formatter if self.formatter is not None else _default_formatter
        return fmt.format(record)

    def handle(self, record):
        self.emit(record)

    def emit(self, record):
        raise NotImplementedError("emit must be implemented by Handler subclasses")

    def flush(self):
        pass

    def close(self):
        pass


class StreamHandler(Handler):
    terminator = "\n"

    def __init__(self, stream=None):
        Handler.__init__(self)
        self.stream = stream if stream is not None else sys.stderr

    def flush(self):
        self.stream.flush()

    def emit(self, record):
        self.stream.write(self.format(record) + self.terminator)
        self.flush()


class FileHandler(StreamHandler):
    def __init__(self, filename, mode="a", encoding=None, delay=False):
        self.baseFilename = filename
        self.mode = mode
        StreamHandler.__init__(self, open(filename, mode))

    def close(self):
        self.stream.close()


class NullHandler(Handler):
    def emit(self, record):
        pass


class Logger:
    def __init__(self, name, level=NOTSET):
        self.name = name
        self.level = _check_level(level)
        self.parent = None
        self.propagate = True
        self.handlers = []
        self.disabled = False

    def setLevel(self, level):
        self.level = _check_level(level)

    def getEffectiveLevel(self):
        logger = self
        while logger is not None:
            if logger.level:
                return logger.level
            logger = logger.parent
        return NOTSET

    def isEnabledFor(self, level):
        if self.disabled or level <= _disabled_below:
            return False
        return level >= self.getEffectiveLevel()

    def addHandler(self, hdlr):
        if hdlr not in self.handlers:
            self.handlers.append(hdlr)

    def removeHandler(self, hdlr):
        if hdlr in self.handlers:
            self.handlers.remove(hdlr)

    def hasHandlers(self):
        logger = self
        while logger is not None:
            if logger.handlers:
                return True
            if not logger.propagate:
                return False
            logger = logger.parent
        return False

    def getChild(self, suffix):
        if self is root:
            return getLogger(suffix)
        return getLogger(self.name + "." + suffix)

    def debug(self, msg, *args, **kwargs):
        if self.isEnabledFor(DEBUG):
            self._log(DEBUG, msg, args)

    def info(self, msg, *args, **kwargs):
        if self.isEnabledFor(INFO):
            self._log(INFO, msg, args)

    def warning(self, msg, *args, **kwargs):
        if self.isEnabledFor(WARNING):
            self._log(WARNING, msg, args)

    def warn(self, msg, *args, **kwargs):
        self.warning(msg, *args)

    def error(self, msg, *args, **kwargs):
        if self.isEnabledFor(ERROR):
            self._log(ERROR, msg, args)

    def exception(self, msg, *args, **kwargs):
        # CPython adds the traceback of the error being handled; cudash
        # logs the message alone.
        self.error(msg, *args)

    def critical(self, msg, *args, **kwargs):
        if self.isEnabledFor(CRITICAL):
            self._log(CRITICAL, msg, args)

    def fatal(self, msg, *args, **kwargs):
        self.critical(msg, *args)

    def log(self, level, msg, *args, **kwargs):
        if not isinstance(level, int):
            raise TypeError("level must be an integer")
        if self.isEnabledFor(level):
            self._log(level, msg, args)

    def _log(self, level, msg, args):
        record = LogRecord(self.name, level, msg, args)
        logger = self
        found = 0
        while logger is not None:
            for hdlr in logger.handlers:
                found = found + 1
                if record.levelno >= hdlr.level:
                    hdlr.handle(record)
            if not logger.propagate:
                logger = None
            else:
                logger = logger.parent
        if found == 0 and record.levelno >= WARNING:
            # CPython's last resort: the message alone, on stderr.
            sys.stderr.write(record.getMessage() + "\n")

    def __repr__(self):
        return "<%s %s (%s)>" % (type(self).__name__, self.name, getLevelName(self.getEffectiveLevel()))


class RootLogger(Logger):
    def __init__(self, level):
        Logger.__init__(self, "root", level)

    def __repr__(self):
        return "<RootLogger root (%s)>" % getLevelName(self.getEffectiveLevel())


root = RootLogger(WARNING)
_loggers = {}
_start = time.time()


def getLogger(name=None):
    if not name or name == "root":
        return root
    if name in _loggers:
        return _loggers[name]
    logger = Logger(name)
    # The nearest ancestor by dotted name made so far, else the root; the
    # loggers made before it below it now have it as their parent.
    logger.parent = root
    parts = name.split(".")
    i = len(parts) - 1
    while i > 0:
        above = ".".join(parts[:i])
        if above in _loggers:
            logger.parent = _loggers[above]
            i = 0
        i = i - 1
    prefix = name + "."
    for other in _loggers.values():
        if other.name.startswith(prefix) and (other.parent is root or not other.parent.name.startswith(prefix)):
            other.parent = logger
    _loggers[name] = logger
    return logger


def basicConfig(**kwargs):
    force = kwargs.pop("force", False)
    if force:
        for h in list(root.handlers):
            root.removeHandler(h)
            h.close()
    if len(root.handlers) == 0:
        handlers = kwargs.pop("handlers", None)
        filename = kwargs.pop("filename", None)
        filemode = kwargs.pop("filemode", "a")
        stream = kwargs.pop("stream", None)
        if handlers is not None and (filename is not None or stream is not None):
            raise ValueError("'stream' or 'filename' should not be specified together with 'handlers'")
        if handlers is None:
            if filename is not None:
                handlers = [FileHandler(filename, filemode)]
            else:
                handlers = [StreamHandler(stream)]
        fmt = kwargs.pop("format", BASIC_FORMAT)
        datefmt = kwargs.pop("datefmt", None)
        kwargs.pop("style", None)
        kwargs.pop("encoding", None)
        formatter = Formatter(fmt, datefmt)
        for h in handlers:
            if h.formatter is None:
                h.setFormatter(formatter)
            root.addHandler(h)
        level = kwargs.pop("level", None)
        if level is not None:
            root.setLevel(level)
        if kwargs:
            raise ValueError("Unrecognised argument(s): %s" % ", ".join(kwargs.keys()))


def _root_ready():
    if len(root.handlers) == 0:
        basicConfig()


def debug(msg, *args, **kwargs):
    _root_ready()
    root.debug(msg, *args)


def info(msg, *args, **kwargs):
    _root_ready()
    root.info(msg, *args)


def warning(msg, *args, **kwargs):
    _root_ready()
    root.warning(msg, *args)


def warn(msg, *args, **kwargs):
    warning(msg, *args)


def error(msg, *args, **kwargs):
    _root_ready()
    root.error(msg, *args)


def exception(msg, *args, **kwargs):
    error(msg, *args)


def critical(msg, *args, **kwargs):
    _root_ready()
    root.critical(msg, *args)


def fatal(msg, *args, **kwargs):
    critical(msg, *args)


def log(level, msg, *args, **kwargs):
    _root_ready()
    root.log(level, msg, *args)


def disable(level=CRITICAL):
    global _disabled_below
    _disabled_below = _check_level(level)


def shutdown():
    for h in list(root.handlers):
        h.flush()
    for logger in _loggers.values():
        for h in logger.handlers:
            h.flush()

