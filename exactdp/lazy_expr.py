"""Sympy sums whose terms are built when first read (:func:`deferred_poly_expr`).

A permute-and-flip probability at n = 20 is a sum of ~1,000 sympy terms, and making those
objects costs several times the exact polynomial behind them (issue 36). A deferred sum is
an :class:`sympy.Add` whose arguments are made on the first access to anything of it (an
attribute, ``==``, ``hash``, printing, pickling); it then turns, in place, into the very
``Add`` that :func:`exactdp.xform.poly_expr` builds (same class, arguments, hash), so
nothing downstream sees a difference. Only sums of at least two canonical terms are
deferred (their result is an ``Add`` whatever the coefficients); anything else is built at
once.

How: the object is an instance of a private subclass of ``Add`` (same memory layout) whose
``_args`` slot holds the builder. Its ``__getattribute__`` builds the terms, stores them in
the slot and sets the object's class to ``Add``; ``__eq__``, ``__ne__``, ``__hash__`` and
``__reduce_ex__`` (looked up on the class, not through ``__getattribute__``) do the same
first. Python tries the right operand's ``__eq__`` first when its class is a subclass of
the left one's, so ``add == deferred`` builds it too.
"""

from __future__ import annotations

from collections.abc import Callable

import flint
import sympy
from sympy.core.basic import Basic

from .xform import Atoms, paused_gc, poly_expr

_ARGS = Basic.__dict__["_args"]  # the slot descriptor: reads and writes bypass the hooks
_ADD = sympy.Add


def _build(obj: _DeferredAdd) -> None:
    """Turn a deferred sum into its ``Add`` in place (no-op once done)."""
    if type(obj) is not _DeferredAdd:
        return
    make = _ARGS.__get__(obj)
    if not callable(make):  # built meanwhile by another thread: the args are in place
        return
    expr = make()
    if type(expr) is not _ADD:  # never: only sums of >= 2 canonical terms are deferred
        raise RuntimeError(f"deferred sum built a {type(expr).__name__}, not an Add")
    _ARGS.__set__(obj, expr._args)
    object.__setattr__(obj, "__class__", _ADD)


class _DeferredAdd(sympy.Add):
    """An ``Add`` whose arguments are built on first access (see the module docstring)."""

    __slots__ = ()

    def __getattribute__(self, name: str):
        _build(self)
        return object.__getattribute__(self, name)

    def __eq__(self, other: object) -> bool:
        _build(self)
        return self == other

    def __ne__(self, other: object) -> bool:
        _build(self)
        return self != other

    def __hash__(self) -> int:
        _build(self)
        return hash(self)

    def __reduce_ex__(self, protocol):
        _build(self)
        return self.__reduce_ex__(protocol)


def deferred_add(make: Callable[[], sympy.Expr]) -> sympy.Expr:
    """A sum built by ``make()`` when first read; ``make`` must return an ``Add``
    (:class:`RuntimeError` at the first read otherwise). Commutative, like every sum of
    numbers and exponentials this package builds."""
    obj = object.__new__(_DeferredAdd)
    _ARGS.__set__(obj, make)
    object.__setattr__(obj, "_assumptions", _ADD.default_assumptions)
    object.__setattr__(obj, "_mhash", None)
    object.__setattr__(obj, "is_commutative", True)
    return obj


def deferred_poly_expr(poly: flint.fmpq_poly | flint.fmpz_poly, atoms: Atoms) -> sympy.Expr:
    """:func:`~exactdp.xform.poly_expr` ``(poly, atoms)``, its terms built when the result
    is first read (under :func:`~exactdp.xform.paused_gc`): deferred when the polynomial
    has at least two nonzero coefficients and every atom up to its degree is canonical
    (then ``poly_expr`` returns an ``Add``; :attr:`~exactdp.xform.Atoms.plain` says so
    without building the atoms), built at once otherwise."""
    num = poly.coeffs()
    nonzero = 0
    for c in num:
        if c != 0:
            nonzero += 1
            if nonzero == 2:
                break
    if nonzero < 2:
        return poly_expr(poly, atoms)
    if not atoms.plain:  # the atoms are built to be looked at
        table = atoms.table(len(num))
        if not all(table[k][2] for k in range(1, len(num))):
            return poly_expr(poly, atoms)

    def make() -> sympy.Expr:
        with paused_gc():
            return poly_expr(poly, atoms)

    return deferred_add(make)
