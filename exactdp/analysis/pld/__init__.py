"""Exact privacy-loss distributions (PLDs) of a selection mechanism on neighbouring pairs.

- :mod:`.pair`: :func:`privacy_loss_distribution` (the PLD of one neighbouring pair);
- :mod:`.core`: :class:`PrivacyLossDistribution` (exact atoms, composition, ``delta``,
  ``epsilon``);
- :mod:`.grid`: :class:`DiscretisedPLD` (the lower-bound PLD on a grid, for many copies);
- :mod:`.results`: :class:`HockeyStick`, :class:`EpsilonResult` and the helpers shared by the
  exact and the grid PLD;
- :mod:`.xform`: loss ratios as rational functions of ``x`` (exact merging of equal losses).
"""
