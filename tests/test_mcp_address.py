"""`--http HOST:PORT` of `liveagent-memory mcp`: parsed, IPv6 included, and told loopback or not
(a non-loopback host gets a bearer token; tests/test_mcp_server.py runs both)."""

from __future__ import annotations

import pytest

from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.mcp_server.server import HttpAddress, parse_address


def test_addresses_parse_with_ipv6_and_say_if_loopback() -> None:
    assert parse_address("[::1]:8765") == HttpAddress("::1", 8765)
    assert parse_address("[::1]:8765").loopback
    assert parse_address("[::1]:8765").url() == "http://[::1]:8765/mcp"
    assert parse_address("localhost:1").loopback
    assert not parse_address("0.0.0.0:80").loopback
    assert not parse_address("192.168.1.5:8765").loopback


@pytest.mark.parametrize("value", ["", "8765", "host:port", "[::1]", "127.0.0.1:0"])
def test_a_bad_address_is_invalid_argument(value: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        parse_address(value)
    assert refused.value.code == "invalid_argument" and refused.value.field == "http"
