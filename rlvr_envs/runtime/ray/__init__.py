"""The Ray verification backend (``pool.RayVerificationPool``); Ray itself is imported only when one is made."""
