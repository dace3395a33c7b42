from __future__ import annotations

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "ray: starts a real local Ray cluster (head + a second node process)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        # Only tests that start the cluster are slow; the optional-import checks stay in the fast suite.
        if "cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ray)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("ray", reason="the Ray backend tests need Ray: pip install 'rlvr-envs[ray]'")
    import ray

    from tests.ray.cluster import FAST_ENV, NODE_IP, LocalCluster

    if ray.is_initialized():
        ray.shutdown()
    with pytest.MonkeyPatch.context() as patch:
        for key, value in FAST_ENV.items():
            patch.setenv(key, value)  # the driver and the CLI/server subprocesses speak the cluster's mode
        started = LocalCluster(head_cpus=1, node_cpus=1)
        try:
            ray.init(address=started.address, log_to_driver=False, _node_ip_address=NODE_IP)
            addresses = sorted({n["NodeManagerAddress"] for n in ray.nodes()})
            if not all(a.startswith("127.") for a in addresses):  # the test cluster must stay on loopback
                raise RuntimeError(f"the Ray test cluster advertises non-loopback addresses: {addresses}")
            yield started
        finally:
            try:
                ray.shutdown()
            finally:
                started.stop()
