"""The engines that decide the analyzer's comparisons, and the choice among them.

- :mod:`.xform`: probabilities rational in ``x = exp(-epsilon/N)``, dense flint polynomials;
- :mod:`.sparse`: the same with sparse polynomials for huge gaps;
- :mod:`.generic`: sympy closed forms, signs by rigorous balls and an exact zero test;
- :mod:`.ball`: certified intervals when no exact probabilities exist (RNM-Gaussian);
- :mod:`.select`: :func:`~exactdp.analysis.engines.select.make_engine` picks one.
"""
