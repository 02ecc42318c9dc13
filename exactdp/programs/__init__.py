"""User-written selection programs, analysed exactly (in construction; see docs/programs.md)."""
