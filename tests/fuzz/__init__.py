"""Differential fuzzing against NumPy: random short programs run with ``nabla.numpy`` and with NumPy.

``programs.py`` writes the programs (one generator per op family), ``differential.py`` runs and
compares them down each realization path and shrinks a failure; ``test_fuzz.py`` runs a fixed seed
set in the suite; ``python -m tests.fuzz --minutes 30 --seed N`` is the long mode. See README.md.
"""
