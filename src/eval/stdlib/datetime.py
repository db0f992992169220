"""Python's `datetime` (written for cudash, after CPython's pure-Python
`datetime`): `timedelta`, `date` and `datetime` without time zones (naive,
in the machine's local time, as `datetime.now()` gives), their arithmetic,
comparisons, `isoformat`, `strftime` (C's, through `time.strftime`, with
Python's `%f`), `str` and `repr` as Python prints them. What is not here
(`timezone`, `time`, `strptime`) raises AttributeError."""
import math as _math
import time as _time

MINYEAR = 1
MAXYEAR = 9999

_DAYS_IN_MONTH = [-1, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
_DAYS_BEFORE_MONTH = [-1, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]


def _is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_before_year(year):
    y = year - 1
    return y * 365 + y // 4 - y // 100 + y // 400


def _days_in_month(year, month):
    if month == 2 and _is_leap(year):
        return 29
    return _DAYS_IN_MONTH[month]


def _days_before_month(year, month):
    return _DAYS_BEFORE_MONTH[month] + (1 if month > 2 and _is_leap(year) else 0)


def _ymd2ord(year, month, day):
    return _days_before_year(year) + _days_before_month(year, month) + day


def _ord2ymd(n):
    """The (year, month, day) of day `n` (1 is 0001-01-01), as CPython's."""
    n -= 1
    n400, n = divmod(n, 146097)
    year = n400 * 400 + 1
    n100, n = divmod(n, 36524)
    n4, n = divmod(n, 1461)
    n1, n = divmod(n, 365)
    year += n100 * 100 + n4 * 4 + n1
    if n1 == 4 or n100 == 4:
        return year - 1, 12, 31
    leap = n1 == 3 and (n4 != 24 or n100 == 3)
    month = (n + 50) // 32
    preceding = _DAYS_BEFORE_MONTH[month] + (1 if month > 2 and leap else 0)
    if preceding > n:
        month -= 1
        preceding -= _DAYS_IN_MONTH[month] + (1 if month == 2 and leap else 0)
    return year, month, n - preceding + 1


def _check_date(year, month, day):
    for name, v in (("year", year), ("month", month), ("day", day)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
    if not MINYEAR <= year <= MAXYEAR:
        raise ValueError(f"year {year} is out of range")
    if not 1 <= month <= 12:
        raise ValueError("month must be in 1..12")
    dim = _days_in_month(year, month)
    if not 1 <= day <= dim:
        raise ValueError("day is out of range for month")


def _check_time(hour, minute, second, microsecond):
    if not 0 <= hour <= 23:
        raise ValueError("hour must be in 0..23")
    if not 0 <= minute <= 59:
        raise ValueError("minute must be in 0..59")
    if not 0 <= second <= 59:
        raise ValueError("second must be in 0..59")
    if not 0 <= microsecond <= 999999:
        raise ValueError("microsecond must be in 0..999999")


_US_PER_DAY = 86400 * 1000000


def _unsupported(op, a, b):
    raise TypeError(f"unsupported operand type(s) for {op}: '{type(a).__name__}' and '{type(b).__name__}'")
_EPOCH_ORD = 719163  # 1970-01-01


class _Ordered:
    """Order and hash by `_key()` (timedelta's, date's and datetime's)."""

    def __lt__(self, other):
        return self._key() < other._key()

    def __le__(self, other):
        return self._key() <= other._key()

    def __gt__(self, other):
        return self._key() > other._key()

    def __ge__(self, other):
        return self._key() >= other._key()

    def __hash__(self):
        return hash(self._key())


class timedelta(_Ordered):
    """A duration: days, seconds (0..86399) and microseconds (0..999999)."""

    def __init__(self, days=0, seconds=0, microseconds=0, milliseconds=0, minutes=0, hours=0, weeks=0):
        exact = all(isinstance(v, int) for v in (days, seconds, microseconds, milliseconds, minutes, hours, weeks))
        if exact:
            d = weeks * 7 + days
            sub = ((hours * 60 + minutes) * 60 + seconds) * 1000000 + milliseconds * 1000 + microseconds
        else:
            total = (weeks * 7 + days) * 86400.0 + hours * 3600.0 + minutes * 60.0 + seconds + milliseconds / 1e3 + microseconds / 1e6
            d = int(total // 86400)
            sub = round((total - d * 86400.0) * 1e6)
        self._set(d, sub)

    def _set(self, d, sub):
        extra, sub = divmod(sub, _US_PER_DAY)
        d += extra
        if abs(d) > 999999999:
            raise OverflowError(f"days={d}; must have magnitude <= 999999999")
        self._days = d
        self._seconds, self._microseconds = divmod(sub, 1000000)

    @classmethod
    def _of(cls, d, sub):
        td = cls()
        td._set(d, sub)
        return td

    @classmethod
    def _of_float(cls, us):
        d = int(us // _US_PER_DAY)
        return cls._of(d, round(us - d * float(_US_PER_DAY)))

    @property
    def days(self):
        return self._days

    @property
    def seconds(self):
        return self._seconds

    @property
    def microseconds(self):
        return self._microseconds

    def _sub(self):
        return self._seconds * 1000000 + self._microseconds

    def _us(self):
        return self._days * _US_PER_DAY + self._sub()

    def _key(self):
        return (self._days, self._sub())

    def total_seconds(self):
        return self._us() / 10**6

    def __repr__(self):
        parts = []
        if self._days:
            parts.append(f"days={self._days}")
        if self._seconds:
            parts.append(f"seconds={self._seconds}")
        if self._microseconds:
            parts.append(f"microseconds={self._microseconds}")
        return f"datetime.timedelta({', '.join(parts) if parts else '0'})"

    def __str__(self):
        mm, ss = divmod(self._seconds, 60)
        hh, mm = divmod(mm, 60)
        s = f"{hh}:{mm:02d}:{ss:02d}"
        if self._days:
            plural = "" if abs(self._days) == 1 else "s"
            s = f"{self._days} day{plural}, " + s
        if self._microseconds:
            s = s + f".{self._microseconds:06d}"
        return s

    def __add__(self, other):
        if isinstance(other, timedelta):
            return timedelta._of(self._days + other._days, self._sub() + other._sub())
        if isinstance(other, date):
            return other + self
        _unsupported("+", self, other)

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        if isinstance(other, timedelta):
            return timedelta._of(self._days - other._days, self._sub() - other._sub())
        _unsupported("-", self, other)

    def __neg__(self):
        return timedelta._of(-self._days, -self._sub())

    def __pos__(self):
        return self

    def __abs__(self):
        return -self if self._days < 0 else self

    def __mul__(self, other):
        if isinstance(other, int) and not isinstance(other, bool):
            return timedelta._of(self._days * other, self._sub() * other)
        if isinstance(other, float):
            return timedelta._of_float((self._days * float(_US_PER_DAY) + self._sub()) * other)
        _unsupported("*", self, other)

    def __rmul__(self, other):
        return self.__mul__(other)

    def __truediv__(self, other):
        if isinstance(other, timedelta):
            return self._us() / other._us()
        if isinstance(other, (int, float)):
            return timedelta._of_float((self._days * float(_US_PER_DAY) + self._sub()) / other)
        _unsupported("/", self, other)

    def __floordiv__(self, other):
        if isinstance(other, timedelta):
            return self._us() // other._us()
        if isinstance(other, int):
            return timedelta._of(0, self._us() // other)
        _unsupported("//", self, other)

    def __mod__(self, other):
        if isinstance(other, timedelta):
            return timedelta._of(0, self._us() % other._us())
        _unsupported("%", self, other)

    def __eq__(self, other):
        return isinstance(other, timedelta) and self._key() == other._key()


    def __bool__(self):
        return self._days != 0 or self._sub() != 0


timedelta.min = timedelta(-999999999)
timedelta.max = timedelta(days=999999999, hours=23, minutes=59, seconds=59, microseconds=999999)
timedelta.resolution = timedelta(microseconds=1)


class date(_Ordered):
    """A day of the proleptic Gregorian calendar."""

    def __init__(self, year, month, day):
        _check_date(year, month, day)
        self._year, self._month, self._day = year, month, day

    @property
    def year(self):
        return self._year

    @property
    def month(self):
        return self._month

    @property
    def day(self):
        return self._day

    @classmethod
    def today(cls):
        t = _time.localtime(_time.time())
        return cls(t[0], t[1], t[2])

    @classmethod
    def fromtimestamp(cls, t):
        lt = _time.localtime(t)
        return cls(lt[0], lt[1], lt[2])

    @classmethod
    def fromordinal(cls, n):
        y, m, d = _ord2ymd(n)
        return cls(y, m, d)

    @classmethod
    def fromisoformat(cls, s):
        if len(s) != 10 or s[4] != "-" or s[7] != "-":
            raise ValueError(f"Invalid isoformat string: {s!r}")
        return cls(int(s[0:4]), int(s[5:7]), int(s[8:10]))

    def toordinal(self):
        return _ymd2ord(self._year, self._month, self._day)

    def weekday(self):
        return (self.toordinal() + 6) % 7

    def isoweekday(self):
        return self.weekday() + 1

    def timetuple(self):
        yday = self.toordinal() - _ymd2ord(self._year, 1, 1) + 1
        return (self._year, self._month, self._day, 0, 0, 0, self.weekday(), yday, -1)

    def replace(self, year=None, month=None, day=None):
        return type(self)(self._year if year is None else year, self._month if month is None else month,
                          self._day if day is None else day)

    def isoformat(self):
        return f"{self._year:04d}-{self._month:02d}-{self._day:02d}"

    def __str__(self):
        return self.isoformat()

    def __repr__(self):
        return f"datetime.date({self._year}, {self._month}, {self._day})"

    def strftime(self, format):
        return _strftime(format, self.timetuple(), 0)

    def __format__(self, spec):
        return self.strftime(spec) if spec else str(self)

    def _key(self):
        return (self.toordinal(), 0)

    def __add__(self, other):
        if isinstance(other, timedelta):
            return date.fromordinal(self.toordinal() + other.days)
        _unsupported("+", self, other)

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        if isinstance(other, timedelta):
            return self + -other
        if isinstance(other, date) and not isinstance(other, datetime):
            return timedelta(self.toordinal() - other.toordinal())
        _unsupported("-", self, other)

    def __eq__(self, other):
        return isinstance(other, date) and isinstance(other, datetime) == isinstance(self, datetime) and self._key() == other._key()



def _strftime(format, timetuple, microsecond):
    """C's strftime, Python's `%f` (microseconds) first; `%z` and `%Z` are
    empty for a naive time, as Python's."""
    out = []
    i = 0
    while i < len(format):
        c = format[i]
        if c == "%" and i + 1 < len(format):
            e = format[i + 1]
            if e == "f":
                out.append(f"{microsecond:06d}")
            elif e in "zZ":
                pass
            else:
                out.append("%" + e)
            i += 2
        else:
            out.append(c)
            i += 1
    return _time.strftime("".join(out), timetuple)


class datetime(date):
    """A day and a time of day (naive: local time, no zone)."""

    def __init__(self, year, month, day, hour=0, minute=0, second=0, microsecond=0, tzinfo=None):
        if tzinfo is not None:
            raise TypeError("cudash's datetime has no time zones (tzinfo)")
        super().__init__(year, month, day)
        _check_time(hour, minute, second, microsecond)
        self._hour, self._minute, self._second, self._microsecond = hour, minute, second, microsecond

    @property
    def hour(self):
        return self._hour

    @property
    def minute(self):
        return self._minute

    @property
    def second(self):
        return self._second

    @property
    def microsecond(self):
        return self._microsecond

    @property
    def tzinfo(self):
        return None

    @classmethod
    def fromtimestamp(cls, t, tz=None):
        if tz is not None:
            raise TypeError("cudash's datetime has no time zones (tz)")
        whole = float(_math.trunc(t))
        frac = t - whole
        us = round(frac * 1e6)
        if us >= 1000000:
            whole += 1
            us -= 1000000
        elif us < 0:
            whole -= 1
            us += 1000000
        lt = _time.localtime(whole)
        return cls(lt[0], lt[1], lt[2], lt[3], lt[4], lt[5], us)

    @classmethod
    def utcfromtimestamp(cls, t):
        us = round(t * 1e6)
        days, rest = divmod(us, _US_PER_DAY)
        y, m, d = _ord2ymd(_EPOCH_ORD + days)
        secs, us = divmod(rest, 1000000)
        return cls(y, m, d, secs // 3600, secs // 60 % 60, secs % 60, us)

    @classmethod
    def now(cls, tz=None):
        return cls.fromtimestamp(_time.time(), tz)

    @classmethod
    def today(cls):
        return cls.now()

    @classmethod
    def utcnow(cls):
        return cls.utcfromtimestamp(_time.time())

    @classmethod
    def combine(cls, d, t=None):
        return cls(d.year, d.month, d.day)

    @classmethod
    def fromisoformat(cls, s):
        d = date.fromisoformat(s[:10])
        if len(s) == 10:
            return cls(d.year, d.month, d.day)
        rest = s[11:]
        us = 0
        if "." in rest:
            rest, frac = rest.split(".", 1)
            us = int((frac + "000000")[:6])
        fields = [int(x) for x in rest.split(":")]
        while len(fields) < 3:
            fields.append(0)
        return cls(d.year, d.month, d.day, fields[0], fields[1], fields[2], us)

    def date(self):
        return date(self._year, self._month, self._day)

    def timetuple(self):
        t = date.timetuple(self)
        return (t[0], t[1], t[2], self._hour, self._minute, self._second, t[6], t[7], -1)

    def _local_seconds(self):
        return (self.toordinal() - _EPOCH_ORD) * 86400 + self._hour * 3600 + self._minute * 60 + self._second

    def timestamp(self):
        """Seconds since the epoch of this local time (as C's mktime)."""
        local = self._local_seconds()
        t = local
        for _ in range(2):
            lt = _time.localtime(t)
            seen = (_ymd2ord(lt[0], lt[1], lt[2]) - _EPOCH_ORD) * 86400 + lt[3] * 3600 + lt[4] * 60 + lt[5]
            t = t + (local - seen)
        return t + self._microsecond / 1e6

    def replace(self, year=None, month=None, day=None, hour=None, minute=None, second=None, microsecond=None):
        pick = lambda new, old: old if new is None else new
        return type(self)(pick(year, self._year), pick(month, self._month), pick(day, self._day),
                          pick(hour, self._hour), pick(minute, self._minute), pick(second, self._second),
                          pick(microsecond, self._microsecond))

    def isoformat(self, sep="T", timespec="auto"):
        t = f"{self._hour:02d}:{self._minute:02d}:{self._second:02d}"
        if timespec == "hours":
            t = f"{self._hour:02d}"
        elif timespec == "minutes":
            t = f"{self._hour:02d}:{self._minute:02d}"
        elif timespec == "milliseconds":
            t += f".{self._microsecond // 1000:03d}"
        elif timespec == "microseconds" or (timespec == "auto" and self._microsecond):
            t += f".{self._microsecond:06d}"
        return date.isoformat(self) + sep + t

    def __str__(self):
        return self.isoformat(sep=" ")

    def __repr__(self):
        fields = [self._year, self._month, self._day, self._hour, self._minute, self._second, self._microsecond]
        while len(fields) > 3 and fields[-1] == 0:
            fields.pop()
        return f"datetime.datetime({', '.join(str(f) for f in fields)})"

    def strftime(self, format):
        return _strftime(format, self.timetuple(), self._microsecond)

    def _time_us(self):
        return ((self._hour * 60 + self._minute) * 60 + self._second) * 1000000 + self._microsecond

    def _key(self):
        return (self.toordinal(), self._time_us())

    def __add__(self, other):
        if isinstance(other, timedelta):
            days, us = divmod(self._time_us() + other._sub(), _US_PER_DAY)
            y, m, d = _ord2ymd(self.toordinal() + other.days + days)
            secs, us = divmod(us, 1000000)
            return datetime(y, m, d, secs // 3600, secs // 60 % 60, secs % 60, us)
        _unsupported("+", self, other)

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        if isinstance(other, timedelta):
            return self + -other
        if isinstance(other, datetime):
            return timedelta._of(self.toordinal() - other.toordinal(), self._time_us() - other._time_us())
        _unsupported("-", self, other)


datetime.min = datetime(1, 1, 1)
datetime.max = datetime(9999, 12, 31, 23, 59, 59, 999999)
date.min = date(1, 1, 1)
date.max = date(9999, 12, 31)
