"""Who a visitor is, by network address, for the per-address job cap (``LBPE_APP_JOBS_PER_ADDRESS``).

A request's peer is the visitor, unless the peer is a proxy this server trusts: then the
proxy's ``X-Forwarded-For`` names who it forwarded for, last. The list is walked from the
right past every trusted proxy; the first address that is not one is the visitor. Entries to
its left were written by the visitor and are never believed (anyone can send the header).

Trusted proxies: ``LBPE_APP_TRUSTED_PROXIES`` (addresses or networks, comma-separated), else
this machine (a local nginx; uvicorn, under Gradio, also believes it), and in a Hugging Face
Space (``SPACE_ID`` is set there) the private networks its proxy comes from. An IPv6 visitor is
counted by its /64, the block one subscriber holds.

>>> visitor_address("127.0.0.1", ["198.51.100.7, 192.0.2.44"], trusted_proxies({}))
'192.0.2.44'
>>> visitor_address("192.0.2.44", ["198.51.100.7"], trusted_proxies({}))
'192.0.2.44'
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping

from lbpe.errors import LbpeError

__all__ = ["ENV_VAR", "is_local", "trusted_proxies", "visitor_address"]

ENV_VAR = "LBPE_APP_TRUSTED_PROXIES"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_LOOPBACK = "127.0.0.0/8,::1/128"
_PRIVATE = "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7"


def trusted_proxies(env: Mapping[str, str]) -> tuple[Network, ...]:
    """The networks whose ``X-Forwarded-For`` is believed, from ``env`` (see the module);
    :class:`lbpe.errors.LbpeError` names an entry that is no address or network."""
    raw = env.get(ENV_VAR)
    if raw is None:
        raw = _LOOPBACK + ("," + _PRIVATE if env.get("SPACE_ID") else "")
    out = []
    for part in raw.split(","):
        if not part.strip():
            continue
        try:
            out.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise LbpeError(
                f"{ENV_VAR}: {part.strip()!r} is not an address or a network (e.g. 10.0.0.0/8); "
                "separate several with commas"
            ) from None
    return tuple(out)


def _address(text: str) -> Address | None:
    """An address as ``X-Forwarded-For`` or a peer gives it (``1.2.3.4``, ``1.2.3.4:80``,
    ``2001:db8::1``, ``[2001:db8::1]:443``); ``None`` when it is none."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _bucket(address: Address) -> str:
    if isinstance(address, ipaddress.IPv6Address) and not address.is_loopback:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def is_local(visitor: str) -> bool:
    """Whether a visitor, as :func:`visitor_address` names it, is this machine itself.

    >>> is_local("127.0.0.1"), is_local("::1"), is_local("192.0.2.44"), is_local("2001:db8::/64")
    (True, True, False, False)
    """
    try:
        return ipaddress.ip_network(visitor, strict=False).is_loopback
    except ValueError:
        return False


def visitor_address(peer: str, forwarded: Iterable[str], trusted: Iterable[Network]) -> str:
    """The visitor behind a request from ``peer`` that carried the ``X-Forwarded-For`` header
    lines ``forwarded``, believing only the ``trusted`` proxies.

    >>> visitor_address("2001:db8:1:2::5", [], ())
    '2001:db8:1:2::/64'
    """
    trusted = tuple(trusted)
    current = _address(peer)
    if current is None:
        return peer  # a socket's name, not an address: that name
    entries = [e for line in forwarded for e in str(line).split(",") if e.strip()]
    while any(current in net for net in trusted) and entries:
        previous = _address(entries.pop())
        if previous is None:  # what a trusted proxy would not write: stop at that proxy
            break
        current = previous
    return _bucket(current)
