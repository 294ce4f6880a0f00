"""SSRF guard: decide whether a URL may be fetched.

Private, loopback, link-local, multicast, reserved and unspecified addresses are refused
unless explicitly allowed, after resolving the host name, so a public name that points
at an internal address is refused too. The check returns the addresses it passed, and the
fetcher connects to those: a second DNS answer (DNS rebinding) never gets a say.
"""

from __future__ import annotations

import socket
from ipaddress import ip_address
from urllib.parse import urlparse

from research_studio.errors import WebUnavailable


def resolve_addresses(host: str) -> list[str]:
    """The host's addresses in the resolver's order of preference, without repeats."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as exc:  # UnicodeError: a name IDNA cannot encode
        raise WebUnavailable(f"cannot resolve {host!r}: {exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check_url(url: str, allow_private: bool = False) -> list[str]:
    """The addresses ``url`` may be fetched from; WebUnavailable if it is not http(s) or
    any address of its host is non-public (one bad answer refuses the name)."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https"):
        raise WebUnavailable(f"refused {url!r}: only http and https URLs are fetched")
    if not parsed.hostname:
        raise WebUnavailable(f"refused {url!r}: no host name")
    addresses = resolve_addresses(parsed.hostname)
    if allow_private:
        return addresses
    for address in addresses:
        ip = ip_address(address.split("%")[0])
        if not ip.is_global or ip.is_multicast:
            raise WebUnavailable(
                f"refused {url!r}: {parsed.hostname} resolves to non-public address {ip} "
                "(set web.allow_private_addresses to allow it)")
    return addresses
