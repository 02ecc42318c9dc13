"""Adapters for the samplers of other DP libraries (diffprivlib, OpenDP), for auditing.

Each adapter runs a peer's own implementation of a selection mechanism and pairs it with
the exactdp mechanism whose exact output distribution it *should* have, so that
:func:`exactdp.audit.goodness_of_fit` can test the peer's draws against the truth. The
peers are an optional extra: ``pip install "exactdp[peers]"``.

Parameter mapping (read from the peers' sources / privacy maps, versions in
:func:`peer_versions`; ``c = 2``, or ``c = 1`` for monotonic scores, ``b = c*Delta/eps``):

- diffprivlib ``mechanisms.Exponential(epsilon=eps, sensitivity=Delta, utility=q,
  monotonic=m)`` weights output r by ``exp(eps*q_r/((2-m)*Delta))``: exactdp
  ``ExponentialMechanism(eps, Delta, monotonic=m)``.
- diffprivlib ``mechanisms.PermuteAndFlip(...)`` (same parameters) flips the coin
  ``exp(eps*(q_r-q*)/((2-m)*Delta))``: exactdp ``PermuteAndFlip(eps, Delta, monotonic=m)``.
- OpenDP ``measurements.make_noisy_max(vector_domain(...), linf_distance(monotonic=m),
  max_divergence(), scale=b)``, privacy map ``d_in = Delta -> eps``: permute-and-flip
  (report-noisy-max with exponential noise of scale b): exactdp
  ``PermuteAndFlip(eps, Delta, monotonic=m)``.
- OpenDP ``make_noisy_max(..., zero_concentrated_divergence(), scale=b)``, privacy map
  ``Delta -> rho = eps**2/8``: report-noisy-max with Gumbel(b) noise, i.e. exactdp
  ``ExponentialMechanism(eps, Delta, monotonic=m)``.

Seeds: the diffprivlib samplers take ``rng`` (a numpy Generator or seed, from which a
``numpy.random.RandomState`` is seeded for diffprivlib), so their audits are reproducible.
OpenDP draws from the operating system's CSPRNG and cannot be seeded: its audits are
random, and a correct sampler fails a test at level ``alpha`` with probability ``alpha``.

The peers receive float64 parameters (``float(epsilon)``, ``float(Delta)``, the scores as
float64): a relative perturbation of at most 2**-53, far below anything a goodness-of-fit
test with fewer than about 10**30 draws could detect.

References
----------
N. Holohan et al., "Diffprivlib: The IBM Differential Privacy Library", arXiv:1907.02444
(2019); the OpenDP library, https://opendp.org (make_noisy_max, proof documents of
``noisy_top_k``); R. McKenna and D. Sheldon, "Permute-and-Flip", NeurIPS 2020; Z. Ding et
al., arXiv:2105.07260 (2021) (PF = RNM with exponential noise); M. Cesar and R. Rogers,
"Bounding, concentrating, and truncating", ALT 2021 (EM is eps^2/8-zCDP).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from .._validate import argument_error, check_bool, check_choice, check_instance
from ..distribution import Distribution
from ..mechanisms import ExponentialMechanism, Mechanism, PermuteAndFlip, TopK
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from .fit import goodness_of_fit
from .result import GoodnessOfFit

#: Output measures accepted by :func:`opendp_noisy_max` (aliases of the two OpenDP ones).
OPENDP_MEASURES = ("max_divergence", "zero_concentrated_divergence", "zcdp")


def peer_versions() -> dict[str, str | None]:
    """Installed versions of the peers (``None`` when a peer is not installed).

    Returns
    -------
    dict
        ``{"diffprivlib": "0.6.6", "opendp": "0.16.0"}`` or with ``None`` entries.
    """
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in ("diffprivlib", "opendp"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _import_diffprivlib():
    try:
        from diffprivlib import mechanisms
    except ImportError as exc:  # also sklearn incompatibilities (ImportError, not MNF)
        raise ImportError(
            "exactdp.audit.peers: diffprivlib is not importable "
            f"({type(exc).__name__}: {exc}); install the extra: pip install 'exactdp[peers]'"
        ) from exc
    return mechanisms


def _import_opendp():
    try:
        import opendp.prelude as dp
    except ImportError as exc:
        raise ImportError(
            "exactdp.audit.peers: opendp is not importable "
            f"({type(exc).__name__}: {exc}); install the extra: pip install 'exactdp[peers]'"
        ) from exc
    dp.enable_features("contrib")
    return dp


@dataclass(frozen=True)
class PeerAdapter:
    """A peer's sampler paired with the exactdp mechanism it should match.

    Attributes
    ----------
    peer : str
        ``"diffprivlib"`` or ``"opendp"``.
    version : str
        Installed version of the peer.
    mechanism : str
        The peer's mechanism, e.g. ``"Exponential"``, ``"make_noisy_max(max_divergence)"``.
    scores : ScoreVector
        The score vector, shape (n,).
    reference : Mechanism
        The exactdp mechanism whose exact distribution the sampler should follow.
    peer_parameters : Mapping
        The float parameters handed to the peer.
    mapping : str
        The parameter mapping in words.
    sampler : callable
        ``sampler(size, rng=None)`` (seedable peers) or ``sampler(size)`` (OpenDP):
        returns an int64 array of ``size`` output indices drawn by the peer's own code.
        Follows the batch protocol of :func:`exactdp.audit.goodness_of_fit`.
    seedable : bool
        Whether ``rng`` makes the draws reproducible.
    peer_privacy : float or None
        The peer's own privacy accounting for sensitivity ``Delta`` (OpenDP's privacy map:
        epsilon under max-divergence, rho under zCDP); ``None`` for diffprivlib.
    expected_privacy : float or None
        What that accounting should be under the mapping (``eps`` or ``eps**2/8``).
    wrong_on_purpose : bool
        True when the reference was deliberately mismatched (see :meth:`against`).
    """

    peer: str
    version: str
    mechanism: str
    scores: ScoreVector
    reference: Mechanism
    peer_parameters: Mapping[str, Any]
    mapping: str
    sampler: Callable[..., np.ndarray] = field(repr=False)
    seedable: bool = True
    peer_privacy: float | None = None
    expected_privacy: float | None = None
    wrong_on_purpose: bool = False

    def distribution(self) -> Distribution:
        """The exact distribution the sampler should follow."""
        return self.reference.distribution(self.scores)

    def audit(
        self, n_samples: int, rng=None, alpha: float = 0.01, test: str = "chi2"
    ) -> GoodnessOfFit:
        """Audit the peer's sampler: :func:`exactdp.audit.goodness_of_fit` on ``n_samples``.

        ``rng`` is used only by seedable peers.
        """
        # top-k: the probabilities of the positions in dist.outputs
        fit = goodness_of_fit(self.sampler, self.distribution(), n_samples, rng=rng,
                              alpha=alpha, test=test)
        assert isinstance(fit, GoodnessOfFit)  # a discrete distribution
        return fit

    def against(self, reference: Mechanism, mapping: str) -> PeerAdapter:
        """The same sampler compared with another (deliberately wrong) reference.

        Used to show that the audit catches a mismatch, e.g. a peer's permute-and-flip
        audited as if it were the exponential mechanism.
        """
        check_instance("against", "reference", reference, Mechanism,
                       "an exactdp Mechanism")
        return dataclasses.replace(
            self, reference=reference, mapping=mapping, wrong_on_purpose=True
        )


def _float_of(value: sympy.Expr, name: str) -> float:
    if value.free_symbols:
        raise argument_error("exactdp.audit.peers", name, "a number for a peer, not symbolic",
                             value)
    return float(sympy.N(value, 30))


def _check_measure(measure: object, func: str) -> bool:
    """Validate an OpenDP output measure; True for zCDP (Gumbel noise), False for pure DP."""
    return check_choice(func, "measure", measure, OPENDP_MEASURES) != "max_divergence"


@dataclass(frozen=True)
class _OpenDPInputs:
    """What an OpenDP noisy-max constructor receives for one exactdp reference mechanism."""

    atom: type
    values: list
    d_in: int | float
    domain: Any
    metric: Any
    measure: Any
    measure_name: str
    scale: float
    epsilon: float
    monotonic: bool


def _opendp_inputs(dp: Any, sv: ScoreVector, mech: Mechanism, zcdp: bool) -> _OpenDPInputs:
    """OpenDP's domain, metric and measure for ``mech`` on ``sv``: the atom type ``T`` is
    ``int`` when the scores and the sensitivity are integers, else ``float``."""
    delta = mech.sensitivity
    atom: type[int] | type[float]
    values: list[int] | list[float]
    d_in: int | float
    if sv.kind == "int" and delta.is_Integer:
        atom, values, d_in = int, [int(v) for v in sv.raw], int(delta)
        domain = dp.atom_domain(T=int)
    else:
        atom, values, d_in = float, [float(v) for v in sv.floats], _float_of(delta, "Delta")
        domain = dp.atom_domain(T=float, nan=False)
    name = "zero_concentrated_divergence" if zcdp else "max_divergence"
    return _OpenDPInputs(
        atom, values, d_in, dp.vector_domain(domain),
        dp.linf_distance(T=atom, monotonic=mech.monotonic),
        dp.zero_concentrated_divergence() if zcdp else dp.max_divergence(), name,
        _float_of(mech.scale, "scale"), _float_of(mech.epsilon, "epsilon"), mech.monotonic,
    )


def _opendp_adapter(
    label: str, sv: ScoreVector, reference: Mechanism, inp: _OpenDPInputs, meas: Any,
    sampler: Callable[[int], np.ndarray], mapping: str, expected: float, **params: Any,
) -> PeerAdapter:
    """The (unseedable) adapter of one OpenDP measurement, with OpenDP's privacy map at
    ``d_in = Delta`` and what the mapping says it should be (``expected``)."""
    params = {"scale": inp.scale, "measure": inp.measure_name, "monotonic": inp.monotonic,
              "T": inp.atom, **params}
    return _adapter("opendp", label, sv, reference, params, mapping, sampler, seedable=False,
                    peer_privacy=float(meas.map(inp.d_in)), expected_privacy=expected)


def _adapter(
    peer: str, label: str, sv: ScoreVector, reference: Mechanism,
    params: Mapping[str, Any], mapping: str, sampler: Callable[..., np.ndarray], **rest: Any,
) -> PeerAdapter:
    """A :class:`PeerAdapter` for the installed version of ``peer``."""
    version = peer_versions()[peer] or "?"
    return PeerAdapter(peer, version, label, sv, reference, params, mapping, sampler, **rest)


# ---------------------------------------------------------------------------- diffprivlib


def _diffprivlib_adapter(
    cls_name: str,
    reference_cls: type[Mechanism],
    scores: object,
    epsilon: object,
    sensitivity: object,
    monotonic: object,
    func: str,
) -> PeerAdapter:
    """diffprivlib's ``cls_name`` paired with exactdp's ``reference_cls``: ``monotonic`` is
    validated in the name of ``func`` (the public function called), the other parameters
    by ``reference_cls``."""
    monotonic = check_bool(func, "monotonic", monotonic)
    mechanisms = _import_diffprivlib()
    cls = getattr(mechanisms, cls_name)
    sv = as_scores(scores, func=func)
    reference = reference_cls(epsilon, sensitivity, monotonic)
    eps_f = _float_of(reference.epsilon, "epsilon")
    delta_f = _float_of(reference.sensitivity, "sensitivity")
    utility = [float(v) for v in sv.floats]
    params = {"epsilon": eps_f, "sensitivity": delta_f, "utility": utility, "monotonic": monotonic}
    cls(**params)  # validate once: the peer's own errors surface here

    def sampler(size: int, rng=None) -> np.ndarray:
        """Draw ``size`` outputs with diffprivlib (seeded from ``rng`` if given)."""
        state = None
        if rng is not None:
            gen = as_generator(rng, "peer sampler")
            state = np.random.RandomState(int(gen.integers(0, 2**32)))
        mech = cls(**params, random_state=state)
        return np.fromiter((mech.randomise() for _ in range(int(size))), np.int64, int(size))

    c = 1 if monotonic else 2
    mapping = (
        f"diffprivlib {cls_name}(epsilon, sensitivity, utility=q, monotonic={monotonic}) "
        f"weights exp(epsilon*q/({c}*sensitivity)) -> exactdp {reference_cls.__name__}"
        f"(epsilon, sensitivity, monotonic={monotonic})"
    )
    return _adapter("diffprivlib", cls_name, sv, reference, params, mapping, sampler,
                    seedable=True)


def diffprivlib_exponential(
    scores: object, epsilon: object, sensitivity: object = 1, monotonic: bool = False,
) -> PeerAdapter:
    """diffprivlib's exponential mechanism, paired with :class:`ExponentialMechanism`.

    diffprivlib (``Exponential._find_probabilities``) samples output r with probability
    proportional to ``exp(epsilon * q_r / ((2 - monotonic) * sensitivity))``: the same
    exponent as exactdp's ``ExponentialMechanism(epsilon, sensitivity, monotonic)`` (c = 2,
    or 1 when monotonic). It draws by inverting the cumulative distribution.

    Parameters
    ----------
    scores : sequence of numbers, shape (n,)
        Utilities ``q``; the peer receives them as float64.
    epsilon : number
        Privacy parameter (> 0); the peer receives ``float(epsilon)``.
    sensitivity : number, default 1
        Sensitivity ``Delta`` of the utility (> 0).
    monotonic : bool, default False
        diffprivlib's and exactdp's ``monotonic`` flag.

    Returns
    -------
    PeerAdapter

    Raises
    ------
    ImportError
        If diffprivlib is not importable.
    ValueError
        Invalid scores, epsilon, sensitivity or monotonic flag.

    References
    ----------
    McSherry & Talwar (2007); diffprivlib ``mechanisms/exponential.py``.
    """
    return _diffprivlib_adapter("Exponential", ExponentialMechanism, scores, epsilon,
                                sensitivity, monotonic, "diffprivlib_exponential")


def diffprivlib_permute_and_flip(
    scores: object, epsilon: object, sensitivity: object = 1, monotonic: bool = False,
) -> PeerAdapter:
    """diffprivlib's permute-and-flip, paired with :class:`PermuteAndFlip`.

    diffprivlib (``PermuteAndFlip``) walks the candidates in random order and returns r
    when a Bernoulli(``exp(epsilon*(q_r - q*)/((2 - monotonic)*sensitivity))``) coin shows
    heads: exactdp's ``PermuteAndFlip(epsilon, sensitivity, monotonic)``.

    Parameters
    ----------
    scores, epsilon, sensitivity, monotonic
        As in :func:`diffprivlib_exponential`.

    Returns
    -------
    PeerAdapter

    Raises
    ------
    ImportError
        If diffprivlib is not importable.
    ValueError
        Invalid scores, epsilon, sensitivity or monotonic flag.

    References
    ----------
    McKenna & Sheldon (2020), Algorithm 1; diffprivlib ``mechanisms/exponential.py``.
    """
    return _diffprivlib_adapter("PermuteAndFlip", PermuteAndFlip, scores, epsilon,
                                sensitivity, monotonic, "diffprivlib_permute_and_flip")


# ---------------------------------------------------------------------------- OpenDP


def opendp_noisy_max(
    scores: object,
    epsilon: object,
    sensitivity: object = 1,
    monotonic: bool = False,
    measure: str = "max_divergence",
) -> PeerAdapter:
    """OpenDP's ``make_noisy_max``, paired with the exactdp mechanism it implements.

    The adapter enables OpenDP's ``"contrib"`` feature, builds
    ``make_noisy_max(vector_domain(atom_domain(T)), linf_distance(T, monotonic=monotonic),
    measure, scale=b)`` with ``b = c * sensitivity / epsilon`` (c = 2, or 1 when
    monotonic), and records OpenDP's privacy map at ``d_in = sensitivity``. ``T`` is
    ``int`` when the scores and the sensitivity are integers, else ``float``.

    - ``measure="max_divergence"``: OpenDP samples permute-and-flip (report-noisy-max with
      exponential noise of scale b); its map gives ``epsilon``. Reference:
      ``PermuteAndFlip(epsilon, sensitivity, monotonic)``.
    - ``measure="zero_concentrated_divergence"`` (alias ``"zcdp"``): Gumbel(b) noise, i.e.
      the exponential mechanism; its map gives ``rho = epsilon**2 / 8``. Reference:
      ``ExponentialMechanism(epsilon, sensitivity, monotonic)``.

    Parameters
    ----------
    scores : sequence of numbers, shape (n,)
    epsilon : number
        The exactdp epsilon (> 0) that fixes the scale ``b``.
    sensitivity : number, default 1
        ``Delta``: the ``d_in`` of OpenDP's ``linf_distance``.
    monotonic : bool, default False
        OpenDP's ``linf_distance(monotonic=...)`` and exactdp's ``monotonic``.
    measure : {"max_divergence", "zero_concentrated_divergence", "zcdp"}

    Returns
    -------
    PeerAdapter
        Not seedable: OpenDP draws from the operating system's CSPRNG.

    Raises
    ------
    ImportError
        If opendp is not importable.
    ValueError
        Unknown measure; invalid scores, epsilon, sensitivity or monotonic flag.

    References
    ----------
    OpenDP ``make_noisy_max`` (Rust ``measurements::noisy_max``, ``noisy_top_k``);
    Ding et al. (2021), Thm 1; Cesar & Rogers (2021) for ``eps**2/8``.
    """
    zcdp = _check_measure(measure, "opendp_noisy_max")
    monotonic = check_bool("opendp_noisy_max", "monotonic", monotonic)
    dp = _import_opendp()
    sv = as_scores(scores, func="opendp_noisy_max")
    reference_cls = ExponentialMechanism if zcdp else PermuteAndFlip
    reference = reference_cls(epsilon, sensitivity, monotonic)
    inp = _opendp_inputs(dp, sv, reference, zcdp)
    meas = dp.m.make_noisy_max(inp.domain, inp.metric, inp.measure, scale=inp.scale)
    values = inp.values

    def sampler(size: int) -> np.ndarray:
        """Draw ``size`` outputs with OpenDP (unseedable CSPRNG)."""
        return np.fromiter((meas(values) for _ in range(int(size))), np.int64, int(size))

    c = 1 if monotonic else 2
    mapping = (
        f"OpenDP make_noisy_max({inp.measure_name}, scale={c}*Delta/epsilon, "
        f"monotonic={monotonic}) -> exactdp {reference_cls.__name__}(epsilon, Delta, "
        f"monotonic={monotonic})"
    )
    return _opendp_adapter(f"make_noisy_max({inp.measure_name})", sv, reference, inp, meas,
                           sampler, mapping, inp.epsilon**2 / 8 if zcdp else inp.epsilon)


def opendp_noisy_top_k(
    scores: object,
    epsilon: object,
    k: int,
    sensitivity: object = 1,
    monotonic: bool = False,
    measure: str = "max_divergence",
    negate: bool = False,
) -> PeerAdapter:
    """OpenDP's ``make_noisy_top_k``, paired with the exact top-k distribution it should have.

    Builds ``make_noisy_top_k(vector_domain(atom_domain(T)), linf_distance(T,
    monotonic=monotonic), measure, k=k, scale=b, negate=negate)`` with
    ``b = c * sensitivity / epsilon`` and records OpenDP's privacy map at
    ``d_in = sensitivity``.

    - ``measure="max_divergence"``: OpenDP peels permute-and-flip k times; reference
      ``TopK(PermuteAndFlip(epsilon, sensitivity, monotonic), k)``; claimed map ``k * epsilon``.
    - ``measure="zero_concentrated_divergence"`` (``"zcdp"``): Gumbel noise, i.e. peeling the
      exponential mechanism; reference ``TopK(ExponentialMechanism(...), k)``; claimed map
      ``k * epsilon**2 / 8``.

    ``negate=True`` (OpenDP's bottom k) maps to exactdp's ``optimize="min"``. The sampler
    returns positions in ``TopK(...).distribution(scores).outputs``.

    Returns
    -------
    PeerAdapter
        Not seedable (OpenDP draws from the operating system's CSPRNG).

    Raises
    ------
    ImportError
        If opendp is not importable.
    ValueError
        Unknown measure; bad k, scores, epsilon, sensitivity or flags.

    References
    ----------
    OpenDP ``make_noisy_top_k`` (Rust ``measurements::noisy_top_k``, proof document
    ``make_noisy_top_k.pdf``); McKenna & Sheldon (2020); Durfee & Rogers (2019).
    """
    zcdp = _check_measure(measure, "opendp_noisy_top_k")
    monotonic = check_bool("opendp_noisy_top_k", "monotonic", monotonic)
    negate = check_bool("opendp_noisy_top_k", "negate", negate)
    dp = _import_opendp()
    sv = as_scores(scores, func="opendp_noisy_top_k")
    inner_cls = ExponentialMechanism if zcdp else PermuteAndFlip
    inner = inner_cls(epsilon, sensitivity, monotonic, optimize="min" if negate else "max")
    reference = TopK(inner, k)
    exact = reference.distribution(sv)
    inp = _opendp_inputs(dp, sv, inner, zcdp)
    meas = dp.m.make_noisy_top_k(inp.domain, inp.metric, inp.measure, k=reference.k,
                                 scale=inp.scale, negate=bool(negate))
    values = inp.values
    position = {t: i for i, t in enumerate(exact.outputs)}

    def sampler(size: int) -> np.ndarray:
        """Draw ``size`` ordered k-tuples with OpenDP, as positions in ``outputs``."""
        return np.fromiter((position[tuple(meas(values))] for _ in range(int(size))),
                           np.int64, int(size))

    name = inp.measure_name
    c = 1 if monotonic else 2
    mapping = (
        f"OpenDP make_noisy_top_k({name}, k={reference.k}, scale={c}*Delta/epsilon, "
        f"monotonic={monotonic}, negate={bool(negate)}) -> exactdp TopK({inner_cls.__name__}"
        f"(epsilon, Delta, monotonic={monotonic}, optimize={inner.optimize!r}), {reference.k})"
    )
    expected = reference.k * (inp.epsilon**2 / 8 if zcdp else inp.epsilon)
    return _opendp_adapter(f"make_noisy_top_k({name}, k={reference.k})", sv, reference, inp,
                           meas, sampler, mapping, expected, k=reference.k, negate=bool(negate))
