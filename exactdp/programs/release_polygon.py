"""A pointed polygon given by closed half-planes: its vertices and extreme rays, in exact
integers.

The polygon is ``{(x, y): a + b x + c y >= 0}`` for each half-plane ``(a, b, c)`` (integer
coefficients: :func:`int_half` scales rational ones). Its vertices are the crossings of
two boundary lines that satisfy every half-plane, in homogeneous integers ``(X, Y, W)``
(the point ``(X / W, Y / W)``, ``W > 0``, reduced); its extreme rays are the boundary
lines' directions, either sign, in its recession cone ``{d: b d_x + c d_y >= 0}``, reduced
to coprime integers. A nonempty polygon without a vertex (a strip, a half-plane) is not
pointed: None, and the caller adds the half-planes of a box corner. The geometry of
:func:`~exactdp.programs.release_face.region` (in Fractions) and of the box loop of
:func:`~exactdp.programs.release_sign2d.nonnegative` (in integers): no Fraction inside.

References
----------
A. Schrijver, *Theory of Linear and Integer Programming*, 1986, section 8.9 (a pointed
polyhedron is the convex hull of its vertices plus the cone of its extreme rays).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

#: A closed half-plane ``a + b x + c y >= 0`` with integer coefficients.
IHalf = tuple[int, int, int]
#: The point ``(X / W, Y / W)``, integers, ``W > 0``.
IPoint = tuple[int, int, int]


def int_half(h: Sequence[Fraction | int]) -> IHalf:
    """``h`` scaled to coprime integers (the same half-plane).

    Parameters
    ----------
    h : sequence of three rationals
        ``(a, b, c)`` of ``a + b x + c y >= 0``.

    Returns
    -------
    tuple of int
        The same half-plane with coprime integer coefficients.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> int_half((F(1, 2), F(-3, 4), F(0)))
    (2, -3, 0)
    """
    d = math.lcm(*(Fraction(x).denominator for x in h))
    a, b, c = (int(x * d) for x in h)
    g = math.gcd(a, b, c) or 1
    return a // g, b // g, c // g


def meet(h1: IHalf, h2: IHalf) -> IPoint | None:
    """Where the boundary lines of two half-planes cross.

    Parameters
    ----------
    h1, h2 : IHalf
        Two half-planes.

    Returns
    -------
    IPoint or None
        The crossing ``(X, Y, W)``, reduced, ``W > 0``; None when the lines are parallel.

    Examples
    --------
    >>> meet((-1, 1, 0), (-2, 0, 3))  # x = 1 and y = 2/3
    (3, 2, 3)
    """
    det = h1[1] * h2[2] - h1[2] * h2[1]
    if det == 0:
        return None
    x, y = h1[2] * h2[0] - h1[0] * h2[2], h1[0] * h2[1] - h1[1] * h2[0]
    if det < 0:
        x, y, det = -x, -y, -det
    g = math.gcd(x, y, det)
    return x // g, y // g, det // g


def corners(hs: Sequence[IHalf]) -> tuple[tuple[IPoint, ...], tuple[tuple[int, int], ...]] | None:
    """The vertices and extreme rays of the intersection of ``hs`` (module docstring).

    Parameters
    ----------
    hs : sequence of IHalf
        The half-planes.

    Returns
    -------
    tuple or None
        ``(vertices, rays)``, each sorted; None when the intersection is empty or has no
        vertex.

    Examples
    --------
    >>> corners([(0, 1, 0), (0, 0, 1), (2, -1, -1)])  # the triangle x, y >= 0, x + y <= 2
    (((0, 0, 1), (0, 2, 1), (2, 0, 1)), ())
    >>> corners([(0, 1, 0), (0, 0, 1)])  # the quadrant
    (((0, 0, 1),), ((0, 1), (1, 0)))
    """
    verts = set()
    for i, h in enumerate(hs):
        for h2 in hs[:i]:
            p = meet(h, h2)
            if p is not None and all(k[0] * p[2] + k[1] * p[0] + k[2] * p[1] >= 0
                                     for k in hs):
                verts.add(p)
    if not verts:
        return None
    rays = set()
    for h in hs:
        for d in ((-h[2], h[1]), (h[2], -h[1])):
            if (d[0] or d[1]) and all(k[1] * d[0] + k[2] * d[1] >= 0 for k in hs):
                g = math.gcd(*d)
                rays.add((d[0] // g, d[1] // g))
    return tuple(sorted(verts)), tuple(sorted(rays))


def solid(vertices: Sequence[tuple], rays: Sequence[tuple]) -> bool:
    """Whether a pointed polygon has interior points: three vertices not on one line, or a
    vertex and two independent rays, or two vertices and a ray off their line.

    Parameters
    ----------
    vertices : sequence of (X, Y, W)
        Its vertices, homogeneous (integers, or rationals with ``W = 1``).
    rays : sequence of (dx, dy)
        Its extreme rays.

    Returns
    -------
    bool
        True when the polygon has interior points.

    Examples
    --------
    >>> solid([(0, 0, 1), (2, 0, 1)], [(0, 1)]), solid([(0, 0, 1), (2, 0, 1)], [(1, 0)])
    (True, False)
    """
    p = vertices[0]
    dirs = [(q[0] * p[2] - p[0] * q[2], q[1] * p[2] - p[1] * q[2]) for q in vertices[1:]]
    dirs += list(rays)
    return any(a[0] * b[1] - a[1] * b[0] != 0 for i, a in enumerate(dirs) for b in dirs[:i])
