"""Input and output: LaTeX and text tables, the report, the command line.

Modules: :mod:`exactdp.io.latex` (one printer for every table), :mod:`exactdp.io.report`
(``exactdp report``), :mod:`exactdp.io.cli` (the ``exactdp`` command).
"""
