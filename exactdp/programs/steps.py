"""The step counter of a program's runs: never a hang in the user's own code.

A run may execute at most :data:`MAX_STEPS` lines of user code (the program's file and the
user's helper modules) and :data:`OPCODES_PER_STEP` times as many bytecodes (a loop on one
line, ``while True: pass``, gives one line event only); past either, :class:`StepLimit`
names the line. Counted with :func:`sys.settrace` (line events) and
``frame.f_trace_opcodes`` (bytecode events) on user frames only, so exactdp's own code,
the standard library and installed packages cost nothing. A long call into C code (say
``sum(range(10**9))``) is not interrupted: it returns to a counted line or ends.

A run of user code must also leave the global generators alone: Python's ``random`` module
and numpy's legacy ``numpy.random`` functions. Their state is read before and after each
run (:func:`global_random_state`); a change is refused in one line (:class:`GlobalRandom`),
since a program whose branches depend on such a draw has no exact distribution, and the
replay of its first run cannot always see it (a coin that lands the same way twice).
"""

from __future__ import annotations

import os
import random
import sys
import sysconfig
from collections.abc import Hashable
from typing import Any

from .values import ProgramError

#: Most lines of user code (the program's file and the user's helper modules) one run may
#: execute.
MAX_STEPS = 200_000


class StepLimit(ProgramError):
    """A run executed more than its step limit (a loop without end?)."""


class GlobalRandom(ProgramError):
    """A run of user code drew from Python's ``random`` module or numpy's global generator."""


def module_generators(filename: str) -> tuple[Any, ...]:
    """The random generators a program's module holds at its top level (``G =
    numpy.random.default_rng(0)``, a ``random.Random``): their states are read beside the
    global ones (:func:`global_random_state`); the modules whose file is ``filename``.

    Parameters
    ----------
    filename : str
        The program's file (every loaded module with that ``__file__`` is read).

    Returns
    -------
    tuple
        The ``random.Random``, numpy ``Generator``, ``RandomState`` and ``BitGenerator``
        objects at those modules' top level (empty when none, or numpy is not loaded and
        no ``random.Random`` is there).

    Examples
    --------
    >>> module_generators(__file__)
    ()
    """
    np = sys.modules.get("numpy")
    kinds: tuple[type, ...] = (random.Random,)
    if np is not None:
        kinds += (np.random.Generator, np.random.RandomState, np.random.BitGenerator)
    out = []
    for mod in list(sys.modules.values()):
        if mod is not None and mod.__dict__.get("__file__") == filename:
            out += [v for v in list(mod.__dict__.values()) if isinstance(v, kinds)]
    return tuple(out)


def _state(gen: Any) -> Hashable:
    """A generator's state, comparable (numpy's: its bit generator's state dict)."""
    if isinstance(gen, random.Random):
        return gen.getstate()
    np = sys.modules["numpy"]  # module_generators found numpy's kinds
    if isinstance(gen, np.random.Generator):
        return repr(gen.bit_generator.state)
    if isinstance(gen, np.random.RandomState):
        return repr(gen.get_state(legacy=False))
    return repr(gen.state)  # a BitGenerator


def global_random_state(generators: tuple[Any, ...] = ()) -> Hashable:
    """The states of the two global generators a program could call by mistake: Python's
    ``random`` module and numpy's legacy ``numpy.random`` functions (read only when numpy
    is already imported; about 40 microseconds), and of ``generators``.

    Parameters
    ----------
    generators : tuple, optional
        More generators to read (:func:`module_generators`).

    Returns
    -------
    tuple
        Equal before and after a stretch of code exactly when neither generator drew.

    Examples
    --------
    >>> import random
    >>> before = global_random_state()
    >>> before == global_random_state()
    True
    >>> _ = random.random()
    >>> before == global_random_state()
    False
    """
    np = sys.modules.get("numpy")
    legacy = None
    if np is not None:
        kind, key, pos, has_gauss, cached = np.random.get_state()
        legacy = (kind, key.tobytes(), pos, has_gauss, cached)
    return random.getstate(), legacy, tuple(_state(g) for g in generators)


#: Files whose lines are not counted: exactdp itself, the standard library and installed
#: packages (sympy's own loops are not the program's).
_LIBRARY_DIRS = tuple(sorted({os.path.dirname(os.path.abspath(__file__)).rsplit(os.sep, 1)[0],
                              *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib",
                                                                   "purelib", "platlib"))}))


def user_file(filename: str) -> bool:
    """Whether ``filename`` is user code: the program's file or a helper module of the
    user's (not exactdp, the standard library or an installed package, nor code without a
    file: ``<string>``, as the ``__init__`` of a dataclass, ``<frozen ...>``).

    Parameters
    ----------
    filename : str
        A code object's ``co_filename``.

    Returns
    -------
    bool

    Examples
    --------
    >>> import os
    >>> user_file("/home/me/my_svt.py"), user_file(os.__file__), user_file("<string>")
    (True, False, False)
    """
    return not (filename.startswith("<") or filename.startswith(_LIBRARY_DIRS))


#: Bytecodes one run may execute per line of its step limit.
OPCODES_PER_STEP = 8


class StepCounter:
    """Count the executed lines of user code (``sys.settrace``): the program's file and the
    user's own helper modules, raising :class:`StepLimit` past ``limit``, naming the line.

    exactdp's own programs (:mod:`exactdp.programs.library`: loops over the answers only)
    are not traced: ``sys.settrace`` calls back on every frame a run opens (sympy's too),
    3/4 of a run's time (12 of 16 ms for the 11 runs of a 10-query SVT1).

    Parameters
    ----------
    filename : str
        The program's file (its last executed line is kept in ``last``).
    limit : int
        Most lines per run; ``OPCODES_PER_STEP * limit`` bytecodes.
    name : str
        The program's name, for the error.

    Attributes
    ----------
    steps, ops : int
        Lines and bytecodes of user code counted since ``__enter__``.
    traced : bool
        False when ``filename`` is not user code (the library's programs): nothing is
        counted.

    Raises
    ------
    StepLimit
        Inside the ``with`` block, past either limit, in one line naming the line.
    GlobalRandom
        On leaving the block without an error, when the global generators drew inside it
        (user code only).

    Examples
    --------
    >>> counter = StepCounter("/home/me/prog.py", 1000, "prog")
    >>> with counter:
    ...     total = sum(range(10))
    >>> counter.traced, counter.steps
    (True, 0)
    """

    def __init__(self, filename: str, limit: int, name: str) -> None:
        self.filename = filename
        self.limit = limit
        self.name = name
        self.steps = self.last = self.ops = 0
        self._old: Any = None
        self._state: Hashable = None
        self.traced = user_file(filename)
        self._files: dict[str, bool] = {filename: True}
        self._generators = module_generators(filename) if self.traced else ()

    def _global(self, frame, event, arg):
        name = frame.f_code.co_filename
        if name not in self._files:
            self._files[name] = user_file(name)
        if not self._files[name]:
            return None
        # a loop on one line (``while True: pass``) gives no line event after its first:
        # its bytecodes are counted too
        frame.f_trace_opcodes = True
        return self._local

    def _local(self, frame, event, arg):
        if event == "opcode":
            self.ops += 1
            if self.ops > OPCODES_PER_STEP * self.limit:
                self._refuse(frame)
        elif event == "line":
            self.steps += 1
            if frame.f_code.co_filename == self.filename:
                self.last = frame.f_lineno
            if self.steps > self.limit:
                self._refuse(frame)
        return self._local

    def _refuse(self, frame) -> None:
        where = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
        raise StepLimit(f"{self.name}: a run passed the step limit of {self.limit} lines "
                        f"({OPCODES_PER_STEP * self.limit} bytecodes) at {where} (a loop "
                        "that never ends?)")

    def __enter__(self) -> StepCounter:
        self.steps = self.ops = 0
        if self.traced:
            self._state = global_random_state(self._generators)
            self._old = sys.gettrace()
            sys.settrace(self._global)
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if self.traced:
            sys.settrace(self._old)
            if kind is None and global_random_state(self._generators) != self._state:
                raise GlobalRandom(
                    f"{self.name}: a run drew from Python's random module, numpy's global "
                    "generator or a generator of the program's module (their state "
                    "changed); a program draws its noise with "
                    "exactdp.programs' laplace, exponential, gumbel, discrete_laplace or "
                    "bernoulli, and must be deterministic given those draws")
