"""The room's join address: a loopback address (what a teacher's laptop browser shows) is replaced by one phones can
open, the teacher's ATTENTION_JOIN_URL wins, and finding the machine's address sends nothing."""
import socket

import pytest

from rooms import address


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST", "127.0.0.1", "127.8.9.1", "::1", "[::1]", "0.0.0.0",
                                  "app.localhost", None, ""])
def test_loopback_addresses_are_recognised(host):
    assert address.is_loopback(host)


@pytest.mark.parametrize("host", ["192.168.1.20", "10.0.0.5", "fe80::1", "class.example.org", "localhost.example.org"])
def test_other_addresses_are_not_loopback(host):
    assert not address.is_loopback(host)


def test_a_loopback_base_becomes_the_network_address_with_its_scheme_port_and_path(monkeypatch):
    monkeypatch.delenv(address.ENV_VAR, raising=False)
    lan = lambda: "192.168.1.20"  # noqa: E731
    assert address.reachable_base("http://localhost:8501", lan) == ("http://192.168.1.20:8501", "http://localhost:8501")
    assert address.reachable_base("http://127.0.0.1:8502/app", lan) == \
        ("http://192.168.1.20:8502/app", "http://127.0.0.1:8502/app")
    assert address.reachable_base("https://[::1]", lan) == ("https://192.168.1.20", "https://[::1]")
    # an address phones can already open stays as it is
    assert address.reachable_base("http://10.0.0.5:8501", lan) == ("http://10.0.0.5:8501", None)
    assert address.reachable_base("https://class.example.org/x", lan) == ("https://class.example.org/x", None)


def test_without_a_network_address_the_base_stays_and_says_it_is_loopback(monkeypatch):
    monkeypatch.delenv(address.ENV_VAR, raising=False)
    assert address.reachable_base("http://localhost:8501", lambda: None) == \
        ("http://localhost:8501", "http://localhost:8501")


@pytest.mark.parametrize("raw, expected", [("http://192.168.1.20:8501/", "http://192.168.1.20:8501"),
                                           ("https://class.example.org/app/", "https://class.example.org/app"),
                                           (" https://x.org ", "https://x.org")])
def test_the_teachers_setting_wins(monkeypatch, raw, expected):
    monkeypatch.setenv(address.ENV_VAR, raw)
    assert address.reachable_base("http://localhost:8501", lambda: "10.0.0.5") == (expected, None)
    assert address.reachable_base("https://elsewhere.org", lambda: "10.0.0.5") == (expected, None)


@pytest.mark.parametrize("raw", ["", "192.168.1.20:8501", "javascript:alert(1)", "ftp://x.org", "http://"])
def test_a_setting_that_is_not_an_http_address_is_ignored(monkeypatch, raw):
    monkeypatch.setenv(address.ENV_VAR, raw)
    assert address.reachable_base("http://localhost:8501", lambda: "10.0.0.5") == \
        ("http://10.0.0.5:8501", "http://localhost:8501")


def test_the_network_address_sends_nothing(monkeypatch):
    """A UDP socket that connects only picks a route: no send, no name lookup beyond the host's own name."""
    sent = []

    class Watched(socket.socket):
        def send(self, *args):
            sent.append(args)
            return super().send(*args)

        def sendto(self, *args):
            sent.append(args)
            return super().sendto(*args)

    monkeypatch.setattr(address.socket, "socket", Watched)
    found = address.network_ip()
    assert sent == []
    assert found is None or not address.is_loopback(found)
    if found is not None:
        socket.inet_aton(found)  # an IPv4 address


def test_the_network_address_falls_back_to_the_host_name(monkeypatch):
    class NoRoute(socket.socket):
        def connect(self, *args):
            raise OSError("Network is unreachable")

    monkeypatch.setattr(address.socket, "socket", NoRoute)
    monkeypatch.setattr(address.socket, "gethostbyname", lambda name: "10.1.2.3")
    assert address.network_ip() == "10.1.2.3"
    monkeypatch.setattr(address.socket, "gethostbyname", lambda name: "127.0.1.1")  # Debian's /etc/hosts
    assert address.network_ip() is None
