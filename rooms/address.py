"""The address students' phones can open: the room's QR code must not say `localhost`.

A teacher who runs the app on a laptop opens it at http://localhost:8501/; a phone that scans that address opens
itself. The join link is the teacher's own address unless that is a loopback one; then it is the machine's address on
the network (what `streamlit run` prints as its Network URL), or the address the teacher set in ATTENTION_JOIN_URL
(docs/teaching.md). Plain Python: no Streamlit, and nothing here sends a packet.
"""
import ipaddress
import os
import socket
from urllib.parse import urlsplit

ENV_VAR = "ATTENTION_JOIN_URL"  # e.g. http://192.168.1.20:8501 or https://attention.example.org/app
# A UDP socket "connected" to an address only picks the route (the interface and its address) and sends nothing.
# A documentation address (RFC 5737): no one answers there, and nothing is sent to it anyway.
_ROUTE_PROBE = ("192.0.2.1", 9)


def is_loopback(host: str | None) -> bool:
    """True for an address only this machine can open: localhost, 127.x.x.x, ::1, 0.0.0.0 (no name is looked up)."""
    host = (host or "").strip("[]").lower()
    if host in ("", "localhost") or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name such as class.example.org: whatever the teacher's browser reached, phones can too
    return address.is_loopback or address.is_unspecified


def network_ip() -> str | None:
    """This machine's address on its network, or None when it has none but loopback (no packet is sent)."""
    found = None
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_ROUTE_PROBE)  # UDP: sets the route only
            found = probe.getsockname()[0]
    except OSError:
        pass
    if found is None or is_loopback(found):
        try:
            found = socket.gethostbyname(socket.gethostname())  # /etc/hosts on most machines
        except OSError:
            return None
    return None if is_loopback(found) else found


def configured() -> str | None:
    """ATTENTION_JOIN_URL without its trailing slash, when it is an http(s) address; None otherwise."""
    raw = os.environ.get(ENV_VAR, "").strip()
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def reachable_base(base: str, network=network_ip) -> tuple[str, str | None]:
    """(the base address students should open, the loopback address it replaced or None).

    base: the app's address as the teacher's browser sees it, without the trailing slash. The teacher's setting wins;
    a loopback base becomes the machine's network address with the same scheme, port and path; when the machine has
    no network address, the base stays and the second value says it is loopback."""
    if (chosen := configured()) is not None:
        return chosen, None
    parts = urlsplit(base)
    if not is_loopback(parts.hostname):
        return base, None
    ip = network()
    if ip is None:
        return base, base
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{ip}{port}{parts.path}", base
