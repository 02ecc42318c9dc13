"""The one list of the mechanisms: :data:`REGISTRY`, filled by the :func:`register` decorator.

A mechanism registers itself where it is defined::

    @register("em", label="EM")
    @dataclass(frozen=True)
    class ExponentialMechanism(Mechanism): ...

One class may serve several entries (``ReportNoisyMax`` with three noises: one decorator
per entry, each fixing ``noise``). ``exactdp.mechanisms`` imports every module of the
package when it is imported, so a new module ``exactdp/mechanisms/<name>.py`` is in
:data:`REGISTRY` with no other file touched. The CLI (``exactdp table`` and ``exactdp report
--mechanisms``), the report, the tests' common registry and the API page read
:data:`REGISTRY`, each using the kinds it handles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, is_dataclass
from types import MappingProxyType
from typing import Any

from .base import Mechanism
from .parameters import Parameter

#: What the outputs of a registered mechanism are: one of the n inputs, an ordered k-tuple
#: of distinct inputs, a sequence of answers to the n queries (the sparse vector technique),
#: or outputs that include released real values ("continuous": no probability table; the
#: privacy loss is the supremum of the log density ratio, :func:`exactdp.privacy_loss`).
KINDS = ("selection", "top-k", "sequence", "continuous")

_ENTRIES: dict[str, MechanismSpec] = {}

#: Short name -> :class:`MechanismSpec` of every registered mechanism (read-only).
REGISTRY: Mapping[str, MechanismSpec] = MappingProxyType(_ENTRIES)


@dataclass(frozen=True)
class MechanismSpec:
    """A registry entry: a mechanism class with some parameters fixed.

    Attributes
    ----------
    key : str
        The short name (``"pf"``, ``"rnm-laplace"``): the CLI's ``--mechanisms`` word.
    cls : type
        The mechanism class.
    label : str
        The column title in tables and the report (``"PF"``, ``"RNM-Laplace"``).
    kind : str
        What the outputs are (:data:`KINDS`).
    fixed : mapping
        Parameters this entry fixes (``{"noise": "laplace"}``).
    example : mapping
        Parameters of a representative instance, for entries not set by epsilon alone
        (``{"sigma": 2}`` for Gaussian noise); the common tests run on it.
    """

    key: str
    cls: type[Mechanism]
    label: str
    kind: str = "selection"
    fixed: Mapping[str, Any] = field(default_factory=dict)
    example: Mapping[str, Any] = field(default_factory=dict)

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        """The declared parameters the entry leaves free, in constructor order."""
        return tuple(p for p in self.cls.parameters() if p.name not in self.fixed)

    @property
    def calibrated(self) -> bool:
        """Whether epsilon alone sets the noise: :meth:`at_epsilon` builds the mechanism."""
        return self.cls.calibrated()

    def make(self, **parameters: Any) -> Mechanism:
        """The mechanism with these parameters (and the entry's fixed ones)."""
        return self.cls(**self.fixed, **parameters)

    def at_epsilon(self, epsilon: object, **parameters: Any) -> Mechanism:
        """The mechanism calibrated to ``epsilon``-DP (``cls.from_epsilon``).

        Raises
        ------
        TypeError
            If epsilon does not set this entry's noise (see :attr:`calibrated`).
        """
        if not self.calibrated:
            raise TypeError(f"{self.key}: {self.cls.__name__} is not set by epsilon; use "
                            "make(...)")
        return self.cls.from_epsilon(epsilon, **self.fixed, **parameters)

    def instance(self, epsilon: object = 1) -> Mechanism:
        """A representative mechanism: at ``epsilon`` if calibrated, else :attr:`example`."""
        if self.calibrated:
            return self.at_epsilon(epsilon, **self.example)
        return self.make(**self.example)


def register(key: str, *, label: str, kind: str = "selection",
             example: Mapping[str, Any] | None = None, **fixed: Any):
    """Class decorator: add the mechanism class to :data:`REGISTRY` under ``key``.

    Put it above ``@dataclass(frozen=True)``. ``fixed`` are parameters this entry sets.

    Raises
    ------
    TypeError
        If ``key`` is taken, ``kind`` unknown, the class not a mechanism dataclass, a fixed
        parameter not declared, or the class neither takes ``epsilon`` first nor defines
        ``from_epsilon`` / ``with_epsilon`` of its own (so none is inherited broken) while
        giving no ``example``.
    """

    def add(cls: type) -> type:
        if key in _ENTRIES:
            raise TypeError(f"register: key {key!r} is already {_ENTRIES[key].cls.__name__}'s")
        if kind not in KINDS:
            raise TypeError(f"register: kind must be one of {KINDS}, got {kind!r}")
        if not (isinstance(cls, type) and issubclass(cls, Mechanism) and is_dataclass(cls)):
            raise TypeError(f"register: {cls!r} is not a Mechanism dataclass")
        names = {p.name for p in cls.parameters()}
        unknown = set(fixed) - names
        if unknown:
            raise TypeError(f"register: {cls.__name__} has no parameter {sorted(unknown)}")
        if not cls.calibrated() and not example:
            raise TypeError(
                f"register: {cls.__name__} does not take epsilon first; define from_epsilon "
                "(epsilon -> its parameters) or give example=... parameters")
        _ENTRIES[key] = MechanismSpec(key, cls, label, kind, MappingProxyType(dict(fixed)),
                                      MappingProxyType(dict(example or {})))
        return cls

    return add

