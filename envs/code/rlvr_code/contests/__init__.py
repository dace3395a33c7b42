"""Contest sets: checkers for stdin/stdout tasks (``checkers``, ``sandboxed``, ``verifier``) and the
presets CodeContests, TACO, APPS and LiveCodeBench (``sets``, ``rows``, ``envs``).

Nothing is imported here: ``rlvr_code.envs`` imports ``contests.verifier``, and ``contests.envs``
imports ``rlvr_code.envs``.
"""
