"""`acp/sdk_patch.py` copies private parts of the `acp` SDK: this fails loudly, naming what moved,
when an SDK release changes them (re-read that module before lifting the `<0.13` pin)."""

from __future__ import annotations

import inspect
from importlib.metadata import version

from acp.http.server import AcpServer, ConnectionRegistry, ConnectionState

from iac_code.acp.sdk_patch import WireConnection, wire_server


class _Agent:
    async def shutdown(self) -> None:
        pass


async def test_wire_connection_sets_what_the_sdk_connection_sets():
    sdk = ConnectionState("sdk", lambda conn: _Agent())
    ours = WireConnection("ours", lambda conn: _Agent())
    try:
        ours_only = {"agent", "_agent_transport"}
        assert set(vars(ours)) - ours_only == set(vars(sdk)), (
            f"ConnectionState's attributes changed in agent-client-protocol {version('agent-client-protocol')}: "
            f"the SDK sets {sorted(vars(sdk))}, WireConnection sets {sorted(set(vars(ours)) - ours_only)}"
        )
        for name, value in vars(sdk).items():
            assert type(vars(ours)[name]) is type(value), f"ConnectionState.{name} is now a {type(value).__name__}"
    finally:
        await sdk.close()
        await ours.close()


def test_the_sdk_signatures_the_patch_relies_on():
    params = list(inspect.signature(ConnectionState.__init__).parameters)
    assert params == ["self", "connection_id", "agent_factory", "multiplex"], f"ConnectionState.__init__{params}"
    assert isinstance(ConnectionRegistry()._connections, dict), "ConnectionRegistry keeps no _connections dict"
    server, registry = wire_server(lambda conn: _Agent())
    assert isinstance(server, AcpServer)
    assert server.registry is registry, "AcpServer no longer reads its registry from _registry"
