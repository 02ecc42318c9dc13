"""Exact probabilities built per output on first access (:class:`LazyProbabilities`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

import sympy


class LazyProbabilities(Sequence):
    """Exact probabilities built per output on first access: a read-only sequence that
    behaves as the tuple of its expressions (``==`` and ``hash`` with tuples, ``repr``,
    ``+``, slicing to a tuple).

    ``keys[r]`` names output r's expression (outputs with equal keys share one, built once
    by ``build(key)``); a mechanism's exact hook returns one when building every sympy
    expression costs far more than the exact polynomials behind them (permute-and-flip:
    issue 21). Whatever raises (a refusal, a size limit) has been raised before it exists.
    """

    __slots__ = ("_build", "_built", "_keys")

    def __init__(self, keys: tuple, build: Callable[[Any], sympy.Expr]):
        self._keys = keys
        self._build = build
        self._built: dict[Any, sympy.Expr] = {}

    def _get(self, key: Any) -> sympy.Expr:
        hit = self._built.get(key)
        if hit is None:
            hit = self._built[key] = self._build(key)
        return hit

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, i: int) -> sympy.Expr: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[sympy.Expr, ...]: ...

    def __getitem__(self, i: int | slice) -> sympy.Expr | tuple[sympy.Expr, ...]:
        if isinstance(i, slice):
            return tuple(self._get(k) for k in self._keys[i])
        return self._get(self._keys[i])

    def __iter__(self) -> Iterator[sympy.Expr]:
        return (self._get(k) for k in self._keys)

    def _tuple(self) -> tuple[sympy.Expr, ...]:
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyProbabilities):
            other = other._tuple()
        return self._tuple() == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._tuple())

    def __add__(self, other: object) -> tuple:
        if isinstance(other, Sequence):
            return self._tuple() + tuple(other)
        return NotImplemented

    def __radd__(self, other: object) -> tuple:
        if isinstance(other, Sequence):
            return tuple(other) + self._tuple()
        return NotImplemented

    def __repr__(self) -> str:
        return repr(self._tuple())

    def __reduce__(self):
        return (tuple, (self._tuple(),))
