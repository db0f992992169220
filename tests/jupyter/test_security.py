"""The kernel's sockets under hostile or broken clients: malformed and
oversized frames, garbage messages, clients that vanish mid-request, and the
connection file the kernel writes itself. After each, the kernel still answers
and the session's variables are intact."""

import json
import os
import socket
import stat
import struct
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import zmq
from jupyter_client import BlockingKernelClient
from jupyter_client.session import Session

from conftest import CUDASH, TIMEOUT, execute, result_text, wait_until

PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def zmtp_greeting():
    """A ZMTP 3.0 greeting with the NULL mechanism, as a client sends it."""
    return b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31


def still_healthy(kc, expect="[0, 1, 2]  i64[3] @cpu"):
    reply, msgs = execute(kc, "keep")
    assert reply["status"] == "ok", reply
    assert result_text(msgs) == [expect]


@pytest.fixture
def armed(kernel):
    km, kc, log_path = kernel
    reply, _ = execute(kc, "keep = arange(3)")
    assert reply["status"] == "ok"
    return km, kc, log_path


@pytest.mark.parametrize("exponent", [31, 40, 62])
def test_an_oversized_frame_header_closes_that_connection_only(armed, exponent):
    km, kc, log_path = armed
    for port_name in ("shell_port", "control_port"):
        s = socket.create_connection((km.ip, km.get_connection_info()[port_name]))
        s.sendall(zmtp_greeting())
        # A long frame that claims 2**exponent bytes: only its 9-byte header is sent.
        s.sendall(b"\x02" + struct.pack(">Q", 1 << exponent))
        s.settimeout(5)
        assert s.recv(4096) is not None  # the kernel's greeting, then the close
        s.close()
    assert km.is_alive()
    still_healthy(kc)
    assert wait_until(lambda: log_path.read_text().count("MiB limit") >= 2), log_path.read_text()


def test_bytes_that_are_not_zmtp_are_refused_on_every_port(armed):
    km, kc, log_path = armed
    info = km.get_connection_info()
    for port_name in PORTS:
        for junk in (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", os.urandom(4096), b"\xff" + b"\x00" * 8 + b"\x7f\x02"):
            s = socket.create_connection((km.ip, info[port_name]))
            try:
                s.sendall(junk)
            except OSError:
                pass  # the kernel may already have closed it
            s.close()
    assert km.is_alive()
    still_healthy(kc)
    assert "not a ZMTP 3 greeting" in log_path.read_text()


def test_malformed_messages_are_dropped_and_logged(armed):
    km, kc, log_path = armed
    sock = km.connect_shell()
    session = Session(key=km.session.key)
    header = session.pack(session.msg_header("execute_request"))
    good = [
        header,
        b"{}",
        b"{}",
        json.dumps({"code": "keep = 0", "silent": False}).encode(),
    ]

    def signed(parts):
        return [b"<IDS|MSG>", session.sign(parts) if session.key else b""] + parts

    cases = [
        [b"no delimiter at all"],
        [b"<IDS|MSG>"],
        [b"<IDS|MSG>", b"sig", b"{}"],
        signed([b"not json", b"{}", b"{}", b"{}"]),
        signed([b"\xff\xfe invalid utf-8", b"{}", b"{}", b"{}"]),
        signed([json.dumps({"msg_id": "x"}).encode(), b"{}", b"{}", b"{}"]),
        signed(good[:3] + [b"[1, 2, 3]"]),
        signed(good[:3] + [json.dumps({"code": 12}).encode()]),
        signed([session.pack(session.msg_header("no_such_request")), b"{}", b"{}", b"{}"]),
        # Well signed, but the signature is then broken by one flipped byte of content.
        signed(good)[:5] + [good[3].replace(b"keep = 0", b"keep = 1")],
    ]
    for parts in cases:
        sock.send_multipart(parts)
    assert sock.poll(1000) == 0, "no reply comes to a malformed message"
    sock.close(linger=0)
    assert km.is_alive()
    still_healthy(kc)
    log = log_path.read_text()
    assert log.count("dropped a message on shell") >= len(cases) - 1, log


def test_a_client_that_vanishes_mid_request_leaves_the_kernel_healthy(armed):
    km, kc, log_path = armed
    # Its own session, so its message ids never collide with the client's.
    session = Session(key=km.session.key)
    for _ in range(3):
        ghost = km.connect_shell()
        msg = session.msg("execute_request", content={"code": "for i in 0..200000 { y = i }\nghost = 1", "silent": False})
        session.send(ghost, msg)
        time.sleep(0.05)
        ghost.close(linger=0)  # gone before its reply exists
    # The work it asked for runs to the end; its replies go nowhere; the next client is served.
    reply, msgs = execute(kc, "ghost + 1", timeout=60)
    assert reply["status"] == "ok", reply
    assert result_text(msgs) == ["2"], (reply, msgs)
    still_healthy(kc)
    assert km.is_alive()
    assert "panicked" not in log_path.read_text()


def test_a_large_but_legal_message_is_served(armed):
    km, kc, _ = armed
    # 8 MiB of source: far over any real cell, well under the 256 MiB frame limit.
    code = "big = 1\n" + "# " + "x" * (8 << 20) + "\nbig + 1"
    reply, msgs = execute(kc, code, timeout=120)
    assert reply["status"] == "ok", reply
    assert result_text(msgs) == ["2"]
    still_healthy(kc)


def listening_addresses(port):
    """The local addresses bound to `port` in /proc/net/tcp (as ip strings)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in open(table).read().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.split(":")
            if int(p, 16) == port and state == "0A":  # LISTEN
                found.append(addr)
    return found


def test_without_a_connection_file_the_kernel_writes_a_private_loopback_one(tmp_path):
    path = tmp_path / "new" / "kernel-test.json"
    path.parent.mkdir()
    log = open(tmp_path / "log", "w")
    proc = subprocess.Popen([str(CUDASH), "kernel", "-f", str(path)], stderr=log)
    try:
        assert wait_until(lambda: path.exists() and path.stat().st_size > 0, timeout=TIMEOUT)
        time.sleep(0.1)
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == 0o600, oct(mode)
        info = json.loads(path.read_text())
        assert info["ip"] == "127.0.0.1" and info["transport"] == "tcp"
        assert info["signature_scheme"] == "hmac-sha256" and len(info["key"]) == 64
        ports = [info[p] for p in PORTS]
        assert all(ports) and len(set(ports)) == 5, ports
        for port in ports:
            # 0100007F is 127.0.0.1 as /proc/net/tcp writes it.
            assert listening_addresses(port) == ["0100007F"], (port, listening_addresses(port))
        # The private side: ZeroMQ's own sockets sit in a directory only this user can enter.
        inner = [d for d in Path(tempfile.gettempdir()).glob("cudash-kernel-*") if d.stat().st_uid == os.getuid()]
        assert inner and all(stat.S_IMODE(d.stat().st_mode) == 0o700 for d in inner)
        kc = BlockingKernelClient()
        kc.load_connection_file(str(path))
        kc.start_channels()
        kc.wait_for_ready(timeout=TIMEOUT)
        reply, msgs = execute(kc, "1 + 1")
        assert result_text(msgs) == ["2"]
        kc.shutdown()
        kc.stop_channels()
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        proc.kill()
        log.close()
    assert "jupyter console --existing" in (tmp_path / "log").read_text()


def test_an_unsigned_or_exposed_setup_is_warned_about(tmp_path):
    from jupyter_client.connect import write_connection_file

    path, _ = write_connection_file(str(tmp_path / "k.json"), ip="0.0.0.0", key=b"")
    log_path = tmp_path / "log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([str(CUDASH), "kernel", "-f", path], stderr=log)
        try:
            assert wait_until(lambda: "not on loopback" in log_path.read_text(), timeout=TIMEOUT)
        finally:
            proc.kill()
            proc.wait()
    assert "messages are not signed" in log_path.read_text()
