"""Numeric engines of exactdp: pure functions of the scaled gaps, shared by every caller."""
