"""Validated score vectors: exact or float, lazily.

A :class:`ScoreVector` keeps the user's scores as given. Float input (a numpy float array or
a list of Python floats) stays a float64 array until an exact view is asked for, so that a
distribution over ``10**6`` float scores never builds ``10**6`` sympy objects; integer input
stays integer. The exact view converts floats by their exact binary value (with one
:class:`~exactdp.numbers.ExactConversionWarning`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import mpmath
import numpy as np
import sympy

from ._validate import argument_error
from .exact import compare, is_zero
from .numbers import FloatTracker, exact_vector, sequence_items
from .printing import format_number, value_repr

_FLOATS = (float, np.floating)
_INTS = (int, np.integer)
_EMPTY = "non-empty (the range is empty)"


_GROUP_MIN_N = 256  # below it grouping saves nothing


def _short_repr(value: object) -> str:
    """A score in a cut repr: its own text when short, else its decimals (``1.0e+60``)."""
    text = value_repr(value)
    return text if len(text) <= 24 else "~" + format_number(value, 6)


@dataclass(frozen=True, eq=False)
class GapGroups:
    """Integer scores grouped by value (:meth:`ScoreVector.gap_groups`).

    ``gaps[k]`` is the k-th distinct gap ``q* - q_r`` (float64, exact below ``2**53``),
    ``counts[k]`` how many outputs have it, ``bins[k]`` its bin and ``key[r]`` output r's
    bin; :meth:`gather` spreads one value per distinct gap back to the n outputs.
    """

    gaps: np.ndarray
    counts: np.ndarray
    bins: np.ndarray
    key: np.ndarray

    def gather(self, values: np.ndarray) -> np.ndarray:
        """``out[r] = values[k]`` for the group k of output r (float64, shape (n,))."""
        table = np.zeros(int(self.bins[-1]) + 1)
        table[self.bins] = values
        return table.take(self.key)


def _exact_in_float(arr: np.ndarray) -> bool:
    """Whether every entry of an integer array is exactly a float64 (``|v| <= 2**53``)."""
    return -(2**53) <= int(arr.min()) and int(arr.max()) <= 2**53


def _bad_position(arr: np.ndarray, name: str, func: str | None = None) -> None:
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise argument_error(func, f"{name}[{i}]", "a finite real number", arr[i])


def _int_array(arr: np.ndarray) -> np.ndarray | None:
    """An integer array as int64 (or uint64 above the int64 range), read-only; ``None``
    when ``q* - q_r`` would overflow 64-bit arithmetic (then Python ints are used).

    A contiguous int64 array is not copied (it is made read-only, see :func:`_read_only`)."""
    if arr.dtype.kind == "u":
        top = int(arr.max())
        out = arr.astype(np.uint64 if top >= 2**63 else np.int64, copy=False)
    else:
        out = arr.astype(np.int64, copy=False)
        if int(out.max()) - int(out.min()) >= 2**63:
            return None
    return _read_only(out)


def _read_only(arr: np.ndarray) -> np.ndarray:
    """``arr`` contiguous and read-only. An array already contiguous is not copied: it is
    itself made read-only, so that the scores cannot change under a distribution (as for
    float64 input since the start; pass ``q.copy()`` to keep ``q`` writable)."""
    out = np.ascontiguousarray(arr)
    out.setflags(write=False)
    return out


def _float_array(arr: np.ndarray, name: str, func: str | None = None) -> np.ndarray:
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    lo, hi = arr.min(), arr.max()  # NaN propagates; both finite means every entry is
    if not (math.isfinite(lo) and math.isfinite(hi)):
        _bad_position(arr, name, func)
    return _read_only(arr)


def _from_list(cls, items: list, name: str, func: str | None = None):
    """Lists of Python ints or of Python floats: one type check in C, one numpy conversion
    (no per-element Python loop). Anything else returns ``None`` (the general route)."""
    types = set(map(type, items))
    if types == {int}:
        try:
            arr = np.array(items, dtype=np.int64)
        except OverflowError:  # some |q_r| >= 2**63: exact Python ints
            return cls(tuple(items), "int", name)
        ints = _int_array(arr)
        if ints is None:
            return cls(tuple(items), "int", name)
        return cls(ints, "int", name)
    if types == {float}:
        return cls(_float_array(np.array(items, dtype=np.float64), name, func), "float", name)
    return None


@dataclass(frozen=True, eq=False)
class ScoreVector:
    """A validated, non-empty score (quality) vector ``q`` over a range of ``n`` outputs.

    Build it with :meth:`from_input` (or :func:`as_scores`). ``kind`` is ``"float"`` for
    float64 input, ``"int"`` for integer input and ``"exact"`` for everything else.

    ``data`` holds the validated input: a read-only float64 array (``"float"``), a
    read-only int64 / uint64 array or a tuple of Python ints (``"int"``; Python ints when
    ``q* - q_r`` does not fit 64 bits), or a tuple of sympy numbers (``"exact"``). Integer
    and float arrays and lists of Python ints or floats are validated with numpy, without a
    Python loop per element; ``raw`` gives the Python values (ints as Python ints). A
    contiguous float64 or int64 array is not copied: it is made read-only instead (pass
    ``q.copy()`` to keep ``q`` writable).

    Examples
    --------
    >>> from exactdp import as_scores
    >>> q = as_scores([3, "1/2", 0])
    >>> q.n, q.kind
    (3, 'exact')
    >>> q.exact
    (3, 1/2, 0)
    >>> q.gaps_exact
    (0, 5/2, 3)
    """

    data: np.ndarray | tuple[Any, ...]
    kind: str
    name: str = "scores"

    def __repr__(self) -> str:  # value_repr: a score of 10**5000 has no int text
        data = value_repr(self.data) if isinstance(self.data, tuple) else repr(self.data)
        text = f"ScoreVector(data={data}, kind={self.kind!r}, name={self.name!r})"
        if len(text) <= 200:
            return text
        # at most 200 characters: the size first, then the first scores
        first = self.data[:6]
        first = tuple(first.tolist()) if isinstance(first, np.ndarray) else tuple(first)
        head = ", ".join(_short_repr(v) for v in first)
        return (f"ScoreVector(n={self.n}, kind={self.kind!r}, name={self.name!r}, "
                f"data=({head}, ...))")

    # ------------------------------------------------------------------ building
    @classmethod
    def from_input(
        cls, scores: object, name: str = "scores", func: str | None = None
    ) -> ScoreVector:
        """Validate user scores; ``func`` (the public function called) prefixes messages.

        Raises
        ------
        ValueError
            Empty vector, NaN or infinite entries, booleans, complex values, symbols,
            non-numeric strings, or a non-1-D array (the message names the position).
        """
        if isinstance(scores, ScoreVector):
            return scores
        if isinstance(scores, (str, bytes, dict, set)):
            raise argument_error(
                func, name, f"a sequence of numbers, not a {type(scores).__name__}", scores)
        if isinstance(scores, np.ndarray):
            if scores.ndim != 1:
                raise argument_error(func, f"{name}.shape", "(n,) (a 1-D vector)", scores.shape)
            if scores.size == 0:
                raise argument_error(func, name, _EMPTY)
            if scores.dtype.kind == "f":
                return cls(_float_array(scores, name, func), "float", name)
            if scores.dtype.kind in "iu":
                ints = _int_array(scores)
                if ints is None:
                    return cls(tuple(scores.tolist()), "int", name)
                return cls(ints, "int", name)
            if scores.dtype.kind == "b":
                raise argument_error(func, name, "numbers (booleans are not scores)", scores)
            if scores.dtype.kind == "c":
                raise argument_error(func, name, "real (complex values are not allowed)", scores)
            scores = scores.tolist()
        items = sequence_items(scores, name, "a sequence of numbers", _EMPTY, func=func)
        fast = _from_list(cls, items, name, func)
        if fast is not None:
            return fast
        if all(isinstance(v, _INTS) and not isinstance(v, (bool, np.bool_)) for v in items):
            return cls(tuple(int(v) for v in items), "int", name)
        if all(isinstance(v, _FLOATS) for v in items):
            arr = np.array([float(v) for v in items], dtype=np.float64)
            return cls(_float_array(arr, name, func), "float", name)
        return cls(exact_vector(items, name, func=func), "exact", name)

    @cached_property
    def raw(self) -> np.ndarray | tuple[Any, ...]:
        """The validated scores: float64 array (``"float"``), tuple of Python ints
        (``"int"``) or tuple of sympy numbers (``"exact"``)."""
        if self.kind == "int" and isinstance(self.data, np.ndarray):
            return tuple(self.data.tolist())
        return self.data

    @property
    def _int_arr(self) -> np.ndarray | None:
        """The integer scores as a 64-bit numpy array, when they are held that way."""
        return self.data if self.kind == "int" and isinstance(self.data, np.ndarray) else None

    # ------------------------------------------------------------------ basic views
    @property
    def n(self) -> int:
        """Size of the range."""
        return len(self.data)

    def __len__(self) -> int:
        return self.n

    @cached_property
    def exact(self) -> tuple[sympy.Expr, ...]:
        """The scores as exact sympy numbers (floats by their binary value, with a warning)."""
        if self.kind == "exact" and isinstance(self.data, tuple):  # always, for "exact"
            return self.data
        if self.kind == "int":
            return tuple(sympy.Integer(v) for v in self.raw)
        tracker = FloatTracker()  # every entry of a float vector is a float
        tracker.note(float(self.raw[0]), f"{self.name}[0]")
        tracker.count = self.n
        tracker.warn(self.name, stacklevel=4)
        return tuple(sympy.Rational(*float(v).as_integer_ratio()) for v in self.raw)

    @cached_property
    def values(self) -> tuple[int | sympy.Expr, ...]:
        """The scores as a tuple of exact numbers: Python ints for integer scores, sympy
        numbers otherwise (floats by their binary value). How results such as
        :class:`~exactdp.analysis.witness.Witness` hold a score vector."""
        if self.kind == "int":
            return tuple(self.raw)
        return self.exact

    @cached_property
    def floats(self) -> np.ndarray:
        """The scores as a float64 array (exact scores rounded to nearest)."""
        if self.kind == "float" and isinstance(self.data, np.ndarray):  # always, for "float"
            return self.data
        if self.kind == "int":
            arr = self._int_arr
            if arr is not None:  # rounded to nearest (exact up to 2**53)
                return arr.astype(np.float64)
            return np.array([_to_float(v) for v in self.raw], dtype=np.float64)
        return np.array([float(sympy.N(v, 20)) for v in self.raw], dtype=np.float64)

    @cached_property
    def is_rational(self) -> bool:
        """True when every score is rational (the x-form exists)."""
        if self.kind in ("int", "float"):
            return True
        return all(v.is_Rational for v in self.raw)

    # ------------------------------------------------------------------ maxima and gaps
    @cached_property
    def _max_exact(self) -> sympy.Expr:
        vals = self.exact
        if self.is_rational:
            return max(vals)
        best = vals[0]
        for v in vals[1:]:
            if _exact_greater(v, best):
                best = v
        return best

    @cached_property
    def gaps_exact(self) -> tuple[sympy.Expr, ...]:
        """Exact gaps ``q* - q_r >= 0`` in input order (zero exactly on the maximizers)."""
        top = self._max_exact
        out = []
        for v in self.exact:
            g = top - v
            if not g.is_Rational and is_zero(g):  # exact zero test, or UndecidedSignError
                g = sympy.Integer(0)
            out.append(g)
        return tuple(out)

    @cached_property
    def gaps_float(self) -> np.ndarray:
        """Gaps ``q* - q_r`` as float64 (computed exactly first for integer/exact input).

        May contain ``inf`` when the gap overflows float64 (the coin probability is then 0).
        """
        if self.kind == "float":
            q = self.floats
            with np.errstate(over="ignore"):
                return q.max() - q
        if self.kind == "int":
            arr = self._int_arr
            if arr is not None:  # exact in 64-bit integers, then rounded once
                return (arr.max() - arr).astype(np.float64)
            top = max(self.raw)
            return np.array([_to_float(top - v) for v in self.raw], dtype=np.float64)
        return np.array([_to_float(g) for g in self.gaps_exact], dtype=np.float64)

    def fresh_gaps_float(self) -> np.ndarray:
        """The gaps ``q* - q_r`` as a new float64 array the caller may overwrite (same
        values as :attr:`gaps_float`, which is cached; this one is not)."""
        arr = self.floats if self.kind == "float" else self._int_arr
        if arr is None or (arr.dtype != np.float64 and not _exact_in_float(arr)):
            return self.gaps_float.copy()
        top = arr.max()
        with np.errstate(over="ignore"):
            # float input: the same subtraction as gaps_float; integers below 2**53 are
            # exact floats, so the one correctly rounded subtraction is the exact gap rounded
            return np.subtract(np.float64(top), arr, dtype=np.float64)

    def gap_groups(self) -> GapGroups | None:
        """The integer scores grouped by value, when they take few distinct values.

        Returns
        -------
        GapGroups or None
            ``None`` unless the scores are an int64 array whose range ``max - min + 1`` is at
            most ``n`` (then one ``bincount`` groups them in O(n)).
        """
        arr = self._int_arr
        n = self.n
        if arr is None or arr.dtype != np.int64 or n < _GROUP_MIN_N:
            return None
        lo, hi = int(arr.min()), int(arr.max())
        span = hi - lo + 1
        if span > n:
            return None
        if 0 <= lo and hi < 2 * span:  # index by the value itself (no array q - min)
            key, off = arr, 0
        else:
            key, off = arr - lo, lo
        counts = np.bincount(key)
        bins = np.flatnonzero(counts)
        gaps = (hi - off - bins).astype(np.float64)
        return GapGroups(gaps, counts[bins], bins, key)

    def distinct_count(self) -> int:
        """How many distinct scores (``numpy.unique`` for arrays; no sympy for floats)."""
        if self.kind == "float":
            return int(np.unique(self.floats).size)
        arr = self._int_arr
        if arr is not None:
            return int(np.unique(arr).size)
        return len(set(self.raw if self.kind == "int" else self.gaps_exact))

    def distinct_gaps(self) -> tuple[list, list[int], list[int]]:
        """The exact gaps ``q* - q_r`` grouped by value: ``(values, counts, inverse)``.

        ``values[inverse[r]]`` is output r's gap and ``counts[k]`` how many outputs share
        ``values[k]``. Python ints for integer scores (one ``numpy.unique`` for an int64
        array: no sympy), the exact :attr:`gaps_exact` otherwise.
        """
        arr = self._int_arr
        if arr is not None:
            uniq, inverse, counts = np.unique(arr, return_inverse=True, return_counts=True)
            top = int(uniq[-1])
            return ([top - v for v in uniq.tolist()], counts.tolist(),
                    inverse.ravel().tolist())
        gaps: Any = (tuple(max(self.raw) - v for v in self.raw)
                     if self.kind == "int" else self.gaps_exact)
        where: dict = {}
        values: list = []
        counts_l: list[int] = []
        inv: list[int] = []
        for g in gaps:
            k = where.get(g)
            if k is None:
                k = where[g] = len(values)
                values.append(g)
                counts_l.append(0)
            counts_l[k] += 1
            inv.append(k)
        return values, counts_l, inv

    def gaps_mp(self, dps: int) -> list[mpmath.mpf]:
        """Gaps as mpmath numbers at ``dps`` digits (exact inputs rounded once)."""
        with mpmath.workdps(dps):
            if self.kind == "float":
                q = [mpmath.mpf(float(v)) for v in self.raw]
                top = max(q)
                return [top - v for v in q]
            if self.kind == "int":
                top = max(self.raw)
                return [mpmath.mpf(top - v) for v in self.raw]
            return [_to_mpf(g, dps) for g in self.gaps_exact]

    @cached_property
    def argmax_set(self) -> tuple[int, ...]:
        """Indices of the maximizers (exact ties)."""
        if self.kind == "float":
            q = self.floats
            return tuple(int(i) for i in np.flatnonzero(q == q.max()))
        arr = self._int_arr
        if arr is not None:
            return tuple(np.flatnonzero(arr == arr.max()).tolist())
        return tuple(i for i, g in enumerate(self.gaps_exact) if g == 0)

    def integer_gaps(self) -> tuple[int, tuple[int, ...]]:
        """``(L, G)`` with ``G_r = L*(q* - q_r)`` non-negative integers, L the least such
        (computed once per vector: a neighbour search reads them several times).

        Raises
        ------
        ValueError
            If some score is irrational (no x-form exists).
        """
        return self._integer_gaps

    @cached_property
    def _integer_gaps(self) -> tuple[int, tuple[int, ...]]:
        if not self.is_rational:
            raise ValueError(
                f"{self.name}: the x-form needs rational scores; got irrational values"
            )
        if self.kind == "int":
            arr = self._int_arr
            if arr is not None:
                return 1, tuple((arr.max() - arr).tolist())
            top = max(self.raw)
            return 1, tuple(top - v for v in self.raw)
        gaps = self.gaps_exact
        L = 1
        for g in gaps:
            L = math.lcm(L, int(sympy.Rational(g).q))
        return L, tuple(int(g * L) for g in gaps)


def _exact_greater(a: sympy.Expr, b: sympy.Expr) -> bool:
    """``a > b`` decided exactly (:func:`exactdp.exact.compare`; raises if undecidable)."""
    return compare(a, b) > 0


def _to_float(g) -> float:
    try:
        return float(g)
    except OverflowError:
        return math.inf


def _to_mpf(g: sympy.Expr, dps: int) -> mpmath.mpf:
    if g.is_Rational:
        return mpmath.mpf(int(g.p)) / int(g.q)
    return mpmath.mpf(sympy.N(g, dps + 10))


def as_scores(scores: object, name: str = "scores", func: str | None = None) -> ScoreVector:
    """Validate ``scores`` into a :class:`ScoreVector` (idempotent); ``func`` names the
    public function in error messages.

    Examples
    --------
    >>> from exactdp import as_scores
    >>> as_scores([1, "0.1"]).exact
    (1, 1/10)
    >>> as_scores([2, 0, 1]).argmax_set
    (0,)
    """
    return ScoreVector.from_input(scores, name, func)


#: The values of :attr:`exactdp.Mechanism.score_domain`.
SCORE_DOMAINS = ("real", "integer")
#: The values of :attr:`exactdp.Mechanism.adjacency`: every score moves by at most the
#: sensitivity (``||q - q'||_inf <= Delta``), or one score moves (``q' = q +- t e_i``,
#: ``|t| <= Delta``: histograms, sums; Dwork & Roth 2014, section 2.3).
ADJACENCIES = ("all", "one")


def check_score_domain(domain: str, sv: ScoreVector, func: str, name: str = "scores",
                       owner: str = "the mechanism") -> None:
    """Refuse, naming ``func`` and the argument ``name``, scores outside ``domain`` (one of
    :data:`SCORE_DOMAINS`): under ``"integer"`` a non-integer score, decided exactly (``2.0``
    is an integer; ``1/2`` and ``sqrt(2)`` are not). ``owner`` names who declares it.

    Raises
    ------
    ValueError
        One line: the first offending position and its value.
    """
    if domain != "integer" or sv.kind == "int":
        return
    if sv.kind == "float":
        bad = [i for i, v in enumerate(sv.floats.tolist()) if not float(v).is_integer()]
    else:
        bad = [i for i, v in enumerate(sv.exact) if v.is_integer is not True]
    if bad:
        i = bad[0]
        raise argument_error(func, f"{name}[{i}]", f"an integer ({owner} declares "
                             "score_domain='integer')", sv.exact[i])
