"""The local verification backend: worker processes on this machine (``pool.VerificationPool``)."""
