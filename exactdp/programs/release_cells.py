"""The density of one released value as a function of it: the cells where its closed form holds.

:func:`~exactdp.programs.release_density.run_density` computes with exact numbers and
decides every order it needs (which end of a leaf's interval is active, where a cut lies,
the sign of a density factor's argument) by comparing them. Run with the released value
``v`` as a *polynomial in v* (:class:`VPoly`) and a test point ``v0``, the same code
computes the density as a function of ``v``: every number it compares is affine in ``v``
(offsets, cuts, test points are built from the released value by rational operations), so
each comparison is decided at ``v0`` and its root is recorded; between the nearest
recorded roots around ``v0`` every comparison has the same outcome, so the computation
takes the same path and its result, ``sum q(v) lam**e exp(lam (k v + w))`` (``q`` a
polynomial, ``k`` and ``w`` rational), is the density on that whole open *cell*.
:func:`cells` walks the real line cell by cell (an unexplored gap is explored from a point
inside it), so the cells cover it up to finitely many boundary points.

No float enters: the roots and test points are Fractions.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

from ..cost import refuse
from .run_canon import canonical

#: Most cells of one walk (each a recomputation of the densities).
MAX_CELLS = 400


class OnBoundary(Exception):  # noqa: N818 (internal control flow)
    """A comparison is an equality at the test point: pick another one."""


@dataclass
class CellContext:
    """The test point and the roots of the comparisons decided so far."""

    v0: Fraction
    roots: set[Fraction] = field(default_factory=set)


_ACTIVE: list[CellContext] = []


def _frac(x: object) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    raise TypeError(f"not a rational number: {x!r}")


_Ordered = TypeVar("_Ordered", bound="SignOrdered")


class SignOrdered:
    """Equality and truth (of the terms ``c``), subtraction (from ``lift`` and ``+``), the
    orders ``<``, ``<=``, ``>``, ``>=`` and ``abs`` of a polynomial in released values, from
    the sign of a difference decided at the
    active test point (the subclass's ``_sign``, which records the comparison's root or
    line): shared by :class:`VPoly` (one
    value) and :class:`~exactdp.programs.release_plane.UVPoly` (two)."""

    __slots__ = ()

    def _sign(self) -> int:
        raise NotImplementedError

    @staticmethod
    def lift(x: object) -> Any:
        raise NotImplementedError

    def __add__(self, other: Any) -> Any:
        raise NotImplementedError

    def __neg__(self) -> Any:
        raise NotImplementedError

    def __sub__(self, other: object) -> Any:
        return self + (-self.lift(other))

    def __bool__(self) -> bool:
        return bool(self.c)  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:  # a constant equals its Fraction
        if isinstance(other, (type(self), Fraction, int)):
            return self.c == self.lift(other).c  # type: ignore[attr-defined]
        return NotImplemented

    def __rsub__(self, other: object) -> Any:
        return self.lift(other) - self

    def __lt__(self, other: object) -> bool:
        return (self - other)._sign() < 0

    def __le__(self, other: object) -> bool:
        return (self - other)._sign() <= 0

    def __gt__(self, other: object) -> bool:
        return (self - other)._sign() > 0

    def __ge__(self, other: object) -> bool:
        return (self - other)._sign() >= 0

    def __abs__(self: _Ordered) -> _Ordered:
        return -self if self._sign() < 0 else self


class VPoly(SignOrdered):
    """A polynomial in the released value ``v`` with Fraction coefficients (low degree
    first). Arithmetic with Fractions and ints; ``==`` and ``hash`` are structural (a
    constant equals its Fraction); ``<`` and the other orders are decided at the active
    cell's test point, recording the root."""

    __slots__ = ("c", "_hash")

    def __init__(self, coeffs: tuple[Fraction, ...]) -> None:
        c = list(coeffs)
        while c and c[-1] == 0:
            c.pop()
        self.c = tuple(c)
        self._hash: int | None = None

    @classmethod
    def linear(cls, c0: Fraction, c1: Fraction) -> VPoly:
        """``VPoly((c0, c1))`` without its checks (the trailing zeros dropped alike).

        Examples
        --------
        >>> from fractions import Fraction as F
        >>> from exactdp.programs.release_cells import VPoly
        >>> VPoly.linear(F(1), F(0)).c, VPoly.linear(F(0), F(0)).c
        ((Fraction(1, 1),), ())
        """
        out = object.__new__(cls)
        out.c = (c0, c1) if c1 else (c0,) if c0 else ()
        out._hash = None
        return out

    @staticmethod
    def lift(x: object) -> VPoly:
        return x if isinstance(x, VPoly) else VPoly((_frac(x),))

    def at(self, v: Fraction) -> Fraction:
        out = Fraction(0)
        for a in reversed(self.c):
            out = out * v + a
        return out

    def __add__(self, other: object) -> VPoly:
        # the coefficients of equal degree summed; the longer one's others kept as they
        # are (adding a zero Fraction costs a gcd: the densities' walk adds millions)
        a, b = self.c, (other.c if isinstance(other, VPoly) else (_frac(other),))
        if len(a) < len(b):
            a, b = b, a
        out = list(a)
        for i, x in enumerate(b):
            if x:
                out[i] = out[i] + x
        return VPoly(tuple(out))

    __radd__ = __add__

    def __neg__(self) -> VPoly:
        return VPoly(tuple(-a for a in self.c))

    def __mul__(self, other: object) -> VPoly:
        o = VPoly.lift(other)
        if len(o.c) == 1:  # a constant factor: no sum of products
            k = o.c[0]
            return VPoly(tuple(a * k for a in self.c))
        out = [Fraction(0)] * max(0, len(self.c) + len(o.c) - 1)
        for i, a in enumerate(self.c):
            for j, b in enumerate(o.c):
                out[i + j] += a * b
        return VPoly(tuple(out))

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> VPoly:
        if isinstance(other, VPoly):
            if len(other.c) > 1:
                raise ValueError("a division by the released value: not exact here")
            other = other.c[0] if other.c else Fraction(0)
        k = _frac(other)
        return VPoly(tuple(a / k for a in self.c))

    def __hash__(self) -> int:  # kept: a Fraction's hash is a modular inverse
        h = self._hash
        if h is None:  # a constant hashes as its Fraction (they are equal); a polynomial
            # by its coefficients' reduced integers (no modular inverse)
            c = self.c
            if len(c) == 2:  # the common case, as the generator's tuple
                a, b = c
                h = hash(((a.numerator, a.denominator), (b.numerator, b.denominator)))
            else:
                h = hash(c[0] if c else Fraction(0)) if len(c) <= 1 \
                    else hash(tuple((a.numerator, a.denominator) for a in c))
            self._hash = h
        return h

    def _sign(self) -> int:
        if len(self.c) <= 1:
            a = self.c[0] if self.c else Fraction(0)
            return (a > 0) - (a < 0)
        if len(self.c) > 2 or not _ACTIVE:
            raise ValueError("an order between polynomials in the released value: outside "
                             "the exact class of released values")
        ctx = _ACTIVE[-1]
        ctx.roots.add(-self.c[0] / self.c[1])
        val = self.at(ctx.v0)
        if val == 0:
            raise OnBoundary
        return 1 if val > 0 else -1

    def __repr__(self) -> str:
        return "VPoly(" + " + ".join(f"{a}*v**{i}" for i, a in enumerate(self.c)) + ")"


#: The released value as a polynomial: ``v``.
V = VPoly((Fraction(0), Fraction(1)))


@contextmanager
def cell_at(v0: Fraction) -> Iterator[CellContext]:
    """Decide the comparisons of polynomials in ``v`` at ``v0`` (recording their roots)."""
    ctx = CellContext(v0)
    _ACTIVE.append(ctx)
    try:
        yield ctx
    finally:
        _ACTIVE.pop()


@dataclass(frozen=True)
class Cell:
    """An open interval ``(lo, hi)`` of the released value (None: infinite) and what the
    computation gave there."""

    lo: Fraction | None
    hi: Fraction | None
    result: Any


def _points(a: Fraction | None, b: Fraction | None) -> Iterator[Fraction]:
    """Test points inside ``(a, b)``, the middle first."""
    for k in range(1, 40):
        if a is None and b is None:
            yield Fraction(k - 1, k)
        elif a is None:
            yield b - Fraction(k + 1, 2)  # type: ignore[operator]
        elif b is None:
            yield a + Fraction(k + 1, 2)
        else:
            yield a + (b - a) * Fraction(k, 2 * k + 1)


def cells(compute: Callable[[VPoly], Any], func: str) -> list[Cell]:
    """The cells of ``compute(V)`` covering the real line (sorted by ``lo``).

    Raises
    ------
    TooCostly
        More than :data:`MAX_CELLS` cells.
    """
    todo: list[tuple[Fraction | None, Fraction | None]] = [(None, None)]
    out: list[Cell] = []
    while todo:
        a, b = todo.pop()
        for v0 in _points(a, b):
            try:
                with cell_at(v0) as ctx:
                    result = compute(V)
                break
            except OnBoundary:
                continue
        else:  # pragma: no cover - 40 test points each on a root
            raise ValueError(f"{func}: no test point off the cell boundaries")
        below = [r for r in ctx.roots if r < v0 and (a is None or r > a)]
        above = [r for r in ctx.roots if r > v0 and (b is None or r < b)]
        lo = max(below) if below else a
        hi = min(above) if above else b
        out.append(Cell(lo, hi, result))
        if len(out) > MAX_CELLS:
            raise refuse(func, "the cells of the released value's density",
                         f"more than {MAX_CELLS} cells", f"{MAX_CELLS} cells",
                         "use fewer queries")
        if lo != a:
            todo.append((a, lo))
        if hi != b:
            todo.append((hi, b))
    return sorted(out, key=lambda c: (c.lo is not None, c.lo))


@lru_cache(maxsize=1024)
def own_cells(dist: Any, key: Hashable, func: str,
              density: Callable[[list, tuple, str], Any]) -> tuple[Cell, ...]:
    """The cells of one distribution's density of the pattern ``key``, ``density(runs,
    (V,), func)`` on its runs (cached: a suite row reads one vector against each of its
    neighbours; and by the runs up to a renumbering of their noises,
    :func:`~exactdp.programs.run_canon.canonical`: the same density)."""
    runs = dist.runs[key]
    canon = [canonical(r) for r in runs]
    if any(c is None for c in canon):
        return tuple(cells(lambda v: density(runs, (v,), func), func))
    return _renumbered_cells(tuple(c[1] for c in canon), [c[0] for c in canon],  # type: ignore[index]
                             func, density)


#: :func:`own_cells` by the keys of the renumbered runs (at most 4096, then cleared).
_RENUMBERED: dict[tuple, tuple[Cell, ...]] = {}


def _renumbered_cells(keys: tuple, runs: list, func: str,
                      density: Callable[[list, tuple, str], Any]) -> tuple[Cell, ...]:
    memo = (keys, func, density)
    if memo not in _RENUMBERED:
        if len(_RENUMBERED) > 4096:
            _RENUMBERED.clear()
        _RENUMBERED[memo] = tuple(cells(lambda v: density(runs, (v,), func), func))
    return _RENUMBERED[memo]


def _before(x: Fraction | None, y: Fraction | None) -> bool:
    """Whether the upper cell end ``x`` comes before ``y`` (None: infinite)."""
    return x is not None and (y is None or x < y)


def joint_cells(dist: Any, other: Any, key: Hashable, func: str,
                density: Callable[[list, tuple, str], Any]) -> list[Cell]:
    """The cells of the pair of densities of pattern ``key`` on two distributions, each
    cell's result the pair of results: the common refinement of the two distributions'
    own cells (:func:`own_cells`). A cell is a maximal interval on which the computation
    takes one path (a comparison whose outcome changes between two points has its root
    between them, and is recorded there), so the cells of the pair are the intersections
    of the two partitions: what :func:`cells` gives on the pair computed together.

    Raises
    ------
    TooCostly
        More than :data:`MAX_CELLS` cells.
    """
    a, b = own_cells(dist, key, func, density), own_cells(other, key, func, density)
    out: list[Cell] = []
    i = j = 0
    while i < len(a) and j < len(b):
        x, y = a[i].lo, b[j].lo
        lo = x if y is None else y if x is None else max(x, y)
        hi = a[i].hi if _before(a[i].hi, b[j].hi) or a[i].hi == b[j].hi else b[j].hi
        out.append(Cell(lo, hi, (a[i].result, b[j].result)))
        if a[i].hi == b[j].hi:
            i, j = i + 1, j + 1
        elif _before(a[i].hi, b[j].hi):
            i += 1
        else:
            j += 1
    if len(out) > MAX_CELLS:
        raise refuse(func, "the cells of the released value's density",
                     f"more than {MAX_CELLS} cells", f"{MAX_CELLS} cells", "use fewer queries")
    return out
