"""How a verification runs: everything between ``Env.verify_batch`` and a verdict, in one folder.

- ``dispatch``: the one place that decides, per call, whether it runs here or in the pool
  (``isolation="auto"|"pool"|"inline"``), used by the ``Env``, the adapters' router and the
  reward server alike.
- ``backend``: ``VerificationBackend``, the Protocol both pools implement (``submit``,
  ``submit_many``, ``map``, ``amap`` written once over each backend's ``enqueue``).
- ``factory``: which backend (``RLVR_POOL=local|ray``) and the process-wide shared pool.
- ``local/``: the process pool on this machine: ``pool`` (slots, budgets, retries), ``handle``
  (one worker seen from the pool), ``worker`` (the worker process), ``zygote`` (the warmed
  parent workers fork from), ``wire`` (the compact pickled forms of tasks and verdicts),
  ``jobs`` (one queued call), ``sessions`` (sessions, each on a worker of its own).
- ``ray/``: the same interface and guarantees on a Ray cluster: ``pool`` (the driver's
  dispatcher), ``actor`` (what runs in each actor: a one-worker local pool), ``sessions``
  (sessions, each pinned to one actor).
- ``sessions``: session-affine execution for multi-turn episodes (one episode's tool state in
  one worker across calls): the interface both backends implement.

``docs/runtime.md`` walks through it. Importing this package imports nothing else.
"""
