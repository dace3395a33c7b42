"""The Lean 4 family of rlvr-envs: static policy, Lean REPL check, kernel-level audit.

Nothing is imported here: ``rlvr_lean.policy`` (pure Python) works with no Lean installed.
"""
