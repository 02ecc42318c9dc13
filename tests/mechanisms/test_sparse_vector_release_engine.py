"""Algorithm 3's pairs moving both ways on the program engine
(exactdp/mechanisms/sparse_vector_release_engine.py). Independent routes: the loss of
``[0, 1]`` vs ``[1, 0]`` is ``ln(4 e^(1/2) - 4)`` (tests/programs/test_release_loss.py
checks it against a dense grid of the densities); the library program's declaration read
back; and quadrature of the defining integral at the witness (test_sparse_vector_loss.py)."""

from __future__ import annotations

import pytest
import sympy

import exactdp
from exactdp.mechanisms.sparse_vector_release_engine import mixed_loss, svt3_mechanism
from exactdp.programs import library_release as L

R = sympy.Rational


def test_svt3_mechanism_declares_the_sensitivity_and_is_shared():
    m = svt3_mechanism(R(1, 2), sympy.Integer(1), 2, sympy.Integer(3))
    assert m.sensitivity == 3 and dict(m.arguments) == {"threshold": 1, "c": 2}
    assert m is svt3_mechanism(R(1, 2), sympy.Integer(1), 2, sympy.Integer(3))
    assert svt3_mechanism(R(1, 2), sympy.Integer(1), 1, sympy.Integer(1)).program is L.svt3


def test_mixed_loss_is_the_engine_s_exact_supremum():
    sv, sv2 = exactdp.as_scores([0, 1]), exactdp.as_scores([1, 0])
    loss = mixed_loss("privacy_loss", sympy.Integer(1), sympy.Integer(1), 1, sympy.Integer(1),
                      sv, sv2)
    want = sympy.log(4 * sympy.exp(R(1, 2)) - 4)
    assert sympy.expand(sympy.exp(loss.loss) - sympy.exp(want)) == 0 and loss.attained
    # the class reads it: SparseVector(..., variant=3) on the same pair
    theirs = exactdp.privacy_loss(exactdp.SparseVector(1, 1, 1, variant=3), [0, 1], [1, 0])
    assert theirs.value == loss.loss and theirs.output == loss.witness
    # sensitivity 2 halves the rates: the pair moved by 2 has the loss of the pair moved by 1
    two = mixed_loss("privacy_loss", sympy.Integer(1), sympy.Integer(2), 1, sympy.Integer(2),
                     exactdp.as_scores([0, 2]), exactdp.as_scores([2, 0]))
    assert sympy.expand(sympy.exp(two.loss) - sympy.exp(want)) == 0


def test_a_symbolic_epsilon_is_a_one_line_refusal_naming_the_call():
    e = sympy.Symbol("e", positive=True)
    with pytest.raises(ValueError, match="^privacy_loss") as info:
        exactdp.privacy_loss(exactdp.SparseVector(e, 0, 1, variant=3), [0, 1], [1, 0])
    assert "\n" not in str(info.value)
