"""The density of two released values as a function of them: the polygonal cells where its
closed form holds.

The plane version of :mod:`exactdp.programs.release_cells`. Run with the released values
``(u, v)`` as *polynomials in u and v* (:class:`UVPoly`) and a test point ``(u0, v0)``,
:func:`~exactdp.programs.release_density.run_density` decides every comparison it makes at
the test point; every number it compares is affine in ``(u, v)`` (offsets, cuts and test
points are built from the released values by rational operations), so each comparison's
zero set is a *line*, recorded. On the open region where every recorded comparison keeps
its sign the computation takes the same path, and its result ``sum q(u, v) lam**e exp(lam
W(u, v))`` (``q`` a polynomial, ``W`` affine) is the density there.

:func:`plane_cells` collects the lines until they close: it computes at one test point
inside every face of the arrangement of the lines found so far (the faces are met by the
vertical lines through the middles of the slabs between the arrangement's vertices), adds
the lines each computation records, and repeats until no new line appears. Then each face
of the arrangement lies inside one region of constant path, so its result is the density
on the whole face.

No float enters: the lines, vertices and test points are Fractions.

References
----------
H. Edelsbrunner, *Algorithms in Combinatorial Geometry*, Springer 1987, chapter 5
(arrangements of lines; the slab decomposition meets every face).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..cost import refuse
from .release_cells import OnBoundary, SignOrdered

#: Most lines of one arrangement (each face a recomputation of the densities).
MAX_LINES = 64

#: A line ``a + b u + c v = 0``, normalised: the first nonzero of ``(b, c)`` is 1.
Line = tuple[Fraction, Fraction, Fraction]


def _frac(x: object) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    raise TypeError(f"not a rational number: {x!r}")


@dataclass
class PlaneContext:
    """The test point and the lines of the comparisons decided so far."""

    point: tuple[Fraction, Fraction]
    lines: set[Line] = field(default_factory=set)


_ACTIVE: list[PlaneContext] = []
_NONE = object()


def normal(a: Fraction, b: Fraction, c: Fraction) -> Line:
    """The line ``a + b u + c v = 0`` normalised (first nonzero of ``(b, c)`` is 1)."""
    k = b if b else c
    return (a / k, b / k, c / k)


class UVPoly(SignOrdered):
    """A polynomial in the released values ``u, v`` with Fraction coefficients: ``{(i, j):
    c}`` for ``c u**i v**j``. Arithmetic with Fractions and ints; ``==`` and ``hash`` are
    structural (a constant equals its Fraction); ``<`` and the other orders are decided at
    the active test point, recording the line (affine forms only).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> w = U + 2 * V - 1
    >>> w.at(F(1), F(1)), (w * w).at(F(0), F(1)), (w - w) == 0
    (Fraction(2, 1), Fraction(1, 1), True)
    >>> with plane_at((F(0), F(1))) as ctx:
    ...     (w > 0, sorted(ctx.lines))
    (True, [(Fraction(-1, 1), Fraction(1, 1), Fraction(2, 1))])
    """

    __slots__ = ("c", "_hash")

    def __init__(self, coeffs: dict[tuple[int, int], Fraction]) -> None:
        self.c = {k: a for k, a in coeffs.items() if a}
        self._hash: int | None = None

    @staticmethod
    def lift(x: object) -> UVPoly:
        return x if isinstance(x, UVPoly) else UVPoly({(0, 0): _frac(x)})

    def constant(self) -> Fraction | None:
        """The value when constant, else None."""
        if all(k == (0, 0) for k in self.c):
            return self.c.get((0, 0), Fraction(0))
        return None

    def degree(self) -> int:
        return max((i + j for i, j in self.c), default=0)

    def at(self, u: Fraction, v: Fraction) -> Fraction:
        return sum((a * u**i * v**j for (i, j), a in self.c.items()), Fraction(0))

    def __add__(self, other: object) -> UVPoly:
        o = UVPoly.lift(other)
        out = dict(self.c)
        for k, a in o.c.items():
            out[k] = out.get(k, Fraction(0)) + a
        return UVPoly(out)

    __radd__ = __add__

    def __neg__(self) -> UVPoly:
        return UVPoly({k: -a for k, a in self.c.items()})

    def __mul__(self, other: object) -> UVPoly:
        o = UVPoly.lift(other)
        out: dict[tuple[int, int], Fraction] = {}
        for (i, j), a in self.c.items():
            for (k, m), b in o.c.items():
                out[(i + k, j + m)] = out.get((i + k, j + m), Fraction(0)) + a * b
        return UVPoly(out)

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> UVPoly:
        k = UVPoly.lift(other).constant() if isinstance(other, UVPoly) else _frac(other)
        if k is None:
            raise ValueError("a division by a released value: not exact here")
        return UVPoly({key: a / k for key, a in self.c.items()})

    def __hash__(self) -> int:  # a constant hashes as its Fraction
        if self._hash is None:
            k = self.constant()
            self._hash = hash(k) if k is not None else hash(tuple(sorted(self.c.items())))
        return self._hash

    def _sign(self) -> int:
        k = self.constant()
        if k is not None:
            return (k > 0) - (k < 0)
        if self.degree() > 1 or not _ACTIVE:
            raise ValueError("an order between polynomials in the released values: outside "
                             "the exact class of released values")
        ctx = _ACTIVE[-1]
        z = Fraction(0)
        ctx.lines.add(normal(self.c.get((0, 0), z), self.c.get((1, 0), z),
                             self.c.get((0, 1), z)))
        val = self.at(*ctx.point)
        if val == 0:
            raise OnBoundary
        return 1 if val > 0 else -1

    def __repr__(self) -> str:
        return "UVPoly(" + " + ".join(f"{a}*u**{i}*v**{j}" for (i, j), a in
                                      sorted(self.c.items())) + ")"


#: The released values as polynomials.
U = UVPoly({(1, 0): Fraction(1)})
V = UVPoly({(0, 1): Fraction(1)})


@contextmanager
def plane_at(point: tuple[Fraction, Fraction]) -> Iterator[PlaneContext]:
    """Decide the comparisons of affine forms in ``(u, v)`` at ``point`` (recording their
    lines)."""
    ctx = PlaneContext(point)
    _ACTIVE.append(ctx)
    try:
        yield ctx
    finally:
        _ACTIVE.pop()


def side(line: Line, p: tuple[Fraction, Fraction]) -> int:
    """The sign of ``a + b u + c v`` at ``p``."""
    x = line[0] + line[1] * p[0] + line[2] * p[1]
    return (x > 0) - (x < 0)


#: Integer multiples of lines by the lines' ids (a Fraction's hash is a modular inverse:
#: slow), each kept with its line so that an id is never reused while it is here.
_INT_LINES: dict[int, tuple[Line, tuple[int, int, int]]] = {}


def _int_line(line: Line) -> tuple[int, int, int]:
    got = _INT_LINES.get(id(line))
    if got is not None and got[0] is line:
        return got[1]
    if len(_INT_LINES) > 65536:
        _INT_LINES.clear()
    d = math.lcm(*(x.denominator for x in line))
    out = (int(line[0] * d), int(line[1] * d), int(line[2] * d))
    _INT_LINES[id(line)] = (line, out)
    return out


class Sides:
    """:func:`side` of many lines at one point, in exact integers (the point's homogeneous
    coordinates ``(X, Y, W)``, ``W > 0``, and each line's integer multiple), remembered.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> at = Sides((F(1, 2), F(-1, 3)))
    >>> at((F(0), F(1), F(1))), at((F(-1, 6), F(1), F(1))), at((F(1), F(0), F(1)))
    (1, 0, 1)
    """

    __slots__ = ("xyw", "memo")

    def __init__(self, p: tuple[Fraction, Fraction]) -> None:
        w = math.lcm(p[0].denominator, p[1].denominator)
        self.xyw = (p[0].numerator * (w // p[0].denominator),
                    p[1].numerator * (w // p[1].denominator), w)
        self.memo: dict[int, int] = {}  # by the line's id (its line kept in _INT_LINES)

    def __call__(self, line: Line) -> int:
        a, b, c = _int_line(line)
        out = self.memo.get(id(line))
        if out is None:
            x, y, w = self.xyw
            t = a * w + b * x + c * y
            out = self.memo[id(line)] = (t > 0) - (t < 0)
        return out


def meet(l1: Line, l2: Line) -> tuple[Fraction, Fraction] | None:
    """The point where two lines cross (None: parallel)."""
    det = l1[1] * l2[2] - l1[2] * l2[1]
    if det == 0:
        return None
    return ((l1[2] * l2[0] - l1[0] * l2[2]) / det, (l1[0] * l2[1] - l1[1] * l2[0]) / det)


def _gaps(xs: list[Fraction]) -> list[Fraction]:
    """A point inside every open gap of the sorted distinct ``xs`` (and beyond both ends)."""
    if not xs:
        return [Fraction(1, 3)]
    return [xs[0] - 1, *((a + b) / 2 for a, b in zip(xs, xs[1:], strict=False)), xs[-1] + 1]


def face_points(lines: set[Line]) -> list[tuple[Fraction, Fraction]]:
    """One test point inside every face of the arrangement of ``lines`` (some faces get
    several): on the vertical line through the middle of each slab between the vertices'
    (and the vertical lines') abscissae, one point in every gap between the other lines."""
    ls = sorted(lines)
    xs = {p[0] for i, a in enumerate(ls) for b in ls[:i] if (p := meet(a, b)) is not None}
    xs |= {-a for a, b, c in ls if c == 0}  # vertical lines u = -a
    out = []
    for x in _gaps(sorted(xs)):
        ys = sorted({-(a + b * x) / c for a, b, c in ls if c})
        out += [(x, y) for y in _gaps(ys)]
    return out


@dataclass(frozen=True)
class Face:
    """An open face of the arrangement: its signs against every line, a point inside it,
    and what the computation gave there."""

    signs: tuple[tuple[Line, int], ...]
    point: tuple[Fraction, Fraction]
    result: Any


class _Paths:
    """The computations made, each with its lines and its signs on them, as sets of
    integer codes (``3 id + sign + 1``, ``id`` the line's number here): a point whose own
    codes include a computation's takes the same path (the same result), a subset test."""

    def __init__(self) -> None:
        self.ids: dict[Line, int] = {}
        self.coefs: list[tuple[int, int, int]] = []
        self.known: list[tuple[frozenset[int], Any]] = []

    def codes(self, p: tuple[Fraction, Fraction], lines: set[Line] | None = None
              ) -> set[int]:
        """The codes of ``p`` on every line numbered (and ``lines``, numbered first)."""
        for line in lines or ():
            if line not in self.ids:
                self.ids[line] = len(self.coefs)
                self.coefs.append(_int_line(line))
        x, y, w = Sides(p).xyw
        out = set()
        for i, (a, b, c) in enumerate(self.coefs):
            t = a * w + b * x + c * y
            out.add(3 * i + (t > 0) - (t < 0) + 1)
        return out

    def find(self, codes: set[int]) -> Any:
        return next((r for key, r in self.known if key <= codes), _NONE)

    def add(self, p: tuple[Fraction, Fraction], lines: set[Line], result: Any) -> None:
        mine = self.codes(p, lines)
        self.known.append((frozenset(c for c in mine if c // 3 in
                                     {self.ids[ln] for ln in lines}), result))


def plane_cells(compute: Callable[[UVPoly, UVPoly], Any], func: str,
                start: set[Line] | None = None,
                guard: Callable[[int], None] | None = None,
                max_lines: int = MAX_LINES) -> tuple[set[Line], list[Face]]:
    """The lines of ``compute(U, V)``'s comparisons and the faces of their arrangement,
    each with its result (the same path on the whole face). ``guard(lines)`` is called
    before each round of computations (the caller's cost model: it raises to refuse).

    Raises
    ------
    TooCostly
        More than ``max_lines`` lines (:data:`MAX_LINES` unless given).
    """
    lines: set[Line] = set(start or ())
    done: dict[tuple[Fraction, Fraction], Any] = {}
    paths = _Paths()  # a point on the same side of a computation's lines is read, not run
    while True:
        if guard is not None:
            guard(len(lines))
        new: set[Line] = set()
        for p in face_points(lines):
            if p in done:
                continue
            known = paths.find(paths.codes(p))
            if known is not _NONE:
                done[p] = known
                continue
            ctx = PlaneContext(p)
            try:
                with plane_at(p) as ctx:
                    done[p] = compute(U, V)
                paths.add(p, ctx.lines, done[p])
            except OnBoundary:  # on a line not found yet (the first point): add it
                pass
            new |= ctx.lines - lines
        if not new:
            break
        lines |= new
        if len(lines) > max_lines:
            raise refuse(func, "the cells of the two released values' density",
                         f"more than {max_lines} lines", f"{max_lines} lines",
                         "use fewer queries")
    faces: dict[tuple, Face] = {}
    ls = sorted(lines)
    for p in face_points(lines):
        at = Sides(p)
        signs = tuple((line, at(line)) for line in ls)
        if signs not in faces:
            faces[signs] = Face(signs, p, done[p])
    return coarsen(list(faces.values()))


def coarsen(faces: list[Face]) -> tuple[set[Line], list[Face]]:
    """The arrangement without its *inessential* lines: those across which every two
    adjacent faces (their signs differing at that line only) hold the same result. The
    faces of the lines kept are unions of old faces joined across inessential lines only,
    so each holds one result (of any old face inside it)."""
    if not faces:
        return set(), []
    ls = [line for line, _ in faces[0].signs]
    index = {tuple(s for _, s in f.signs): f for f in faces}
    keep = []
    for i, line in enumerate(ls):
        for key, f in index.items():
            other = index.get(key[:i] + (-key[i],) + key[i + 1:])
            if other is not None and other.result != f.result:
                keep.append(line)
                break
    out: dict[tuple, Face] = {}
    for f in faces:
        at = Sides(f.point)
        signs = tuple((line, at(line)) for line in keep)
        if signs not in out:
            out[signs] = Face(signs, f.point, f.result)
    return set(keep), list(out.values())
