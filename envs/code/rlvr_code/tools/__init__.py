"""Episode tools of the code family (entry points of ``rlvr_envs.tools``): ``python``, a
persistent sandboxed interpreter per episode (``python_tool``), and ``run_tests``, a candidate
program on the task's public and hidden tests (``run_tests_tool``)."""
