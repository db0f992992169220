"""What the conformance suite does not cover: signatures, interrupts,
restarts, memory over many executes, and what a tensor looks like."""

import time
import xml.etree.ElementTree as ET

import zmq
from jupyter_client.session import Session

from conftest import TIMEOUT, execute, result_text, rss_bytes, wait_until


def forged_execute(km, key, code):
    """Sends an execute_request signed with `key` (not the kernel's), on a socket of our own."""
    session = Session(key=key, username="mallory")
    sock = km.connect_shell()
    msg = session.msg(
        "execute_request",
        content={
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        },
    )
    session.send(sock, msg)
    return sock


def test_forged_and_unsigned_messages_are_dropped_and_logged(kernel):
    km, kc, log_path = kernel
    socks = [
        forged_execute(km, b"not-the-key", "forged = 1"),
        forged_execute(km, b"", "unsigned = 1"),
    ]
    for sock in socks:
        # No reply ever comes to a message that failed its check.
        assert sock.poll(1000) == 0
        sock.close(linger=0)
    # Neither ran: the names are unknown, and the kernel still answers.
    for name in ("forged", "unsigned"):
        reply, msgs = execute(kc, name)
        assert reply["status"] == "error" and reply["ename"] == "NameError", reply
    assert wait_until(lambda: log_path.read_text().count("signature does not match") >= 1)
    log = log_path.read_text()
    assert log.count("dropped a message on shell") == 2, log


def test_interrupt_stops_a_loop_and_keeps_variables(kernel):
    km, kc, _ = kernel
    reply, _ = execute(kc, "kept = arange(3)\ntotal = 0")
    assert reply["status"] == "ok"
    msg_id = kc.execute("for i in 0..1000000000 { total = i }")
    # Wait until the loop runs (its busy status), then interrupt.
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_input":
            break
    time.sleep(0.3)
    started = time.time()
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert time.time() - started < 5
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "Interrupted"
    # The session goes on with its variables.
    reply, msgs = execute(kc, "kept")
    assert result_text(msgs) == ["[0, 1, 2]  i64[3] @cpu"], (reply, msgs)
    # The interrupted statement is undone, as any failed statement is.
    reply, msgs = execute(kc, "total")
    assert result_text(msgs) == ["0"]


def test_restart_gives_a_fresh_session(kernel):
    km, kc, _ = kernel
    execute(kc, "before = 1")
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=TIMEOUT)
    reply, _ = execute(kc, "before")
    assert reply["status"] == "error" and reply["ename"] == "NameError"


def test_a_thousand_executes_do_not_grow_the_kernel(kernel):
    """Anonymous memory (the heaps, not the binary's pages) after 1,000 more
    executes. The allocator's caches make the figure wobble by a few MiB
    either way, so the bound is 8 MiB (8 KiB an execute); tests/session_memory.rs
    checks the session itself to the byte."""
    km, kc, _ = kernel
    pid = km.provisioner.process.pid
    code = "x = ones(1000, device=cuda)\ny = (x * 2).sum()\nprint(y)\n1 + 1"

    def run(n):
        for _ in range(n):
            reply, msgs = execute(kc, code)
            assert reply["status"] == "ok" and result_text(msgs) == ["2"]

    run(300)
    before = rss_bytes(pid, "RssAnon")
    samples = []
    for _ in range(4):
        run(250)
        samples.append(rss_bytes(pid, "RssAnon"))
    mib = [f"{b / 2**20:.1f}" for b in [before] + samples]
    print(f"kernel anonymous memory (MiB) after 300, 550, 800, 1,050, 1,300 executes: {mib}")
    assert samples[-1] - before < 8 * 2**20, mib


def test_streams_output_while_a_cell_runs(kernel):
    km, kc, _ = kernel
    # A loop that prints, then works for a while: the print arrives before the cell ends.
    msg_id = kc.execute('print("first")\nfor i in 0..3000000 { z = i }\nprint("last")')
    got_first_at = None
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream" and "first" in msg["content"]["text"]:
            got_first_at = time.time()
            assert "last" not in msg["content"]["text"]
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    done_at = time.time()
    assert got_first_at is not None and done_at - got_first_at > 0.05


def test_tensor_html_has_badge_and_table(kernel):
    km, kc, _ = kernel
    reply, msgs = execute(kc, "with device(1) { t = arange(6, dtype=f32).reshape(2, 3).cuda() }\nt")
    assert reply["status"] == "ok"
    [(kind, content)] = [m for m in msgs if m[0] == "execute_result"]
    html = content["data"]["text/html"]
    assert "cuda:1" in html and "<table" in html and html.count("<tr>") == 3
    assert content["data"]["text/plain"].endswith("f32[2,3] @cuda:1")
    reply, msgs = execute(kc, "mem cuda:1")
    [(kind, content)] = [m for m in msgs if m[0] == "display_data"]
    assert "<svg" in content["data"]["text/html"] and "t: requested" in content["data"]["text/html"]


def test_profile_draws_its_timeline_as_svg(kernel):
    km, kc, _ = kernel
    reply, msgs = execute(
        kc, "w = randn(64, device=cuda)\nprofile { for i in 0..3 { l = (w * w).sum().item() } }"
    )
    assert reply["status"] == "ok"
    [(kind, content)] = [m for m in msgs if m[0] == "display_data"]
    assert "timeline (modelled" in content["data"]["text/plain"]
    html = content["data"]["text/html"]
    assert "host syncs   3" in html
    svg = ET.fromstring(html[html.index("<svg") :])
    ns = "{http://www.w3.org/2000/svg}"
    titles = [t.text for t in svg.iter(ns + "title")]
    # Hover text: op, shape, bytes, duration and stream.
    kernel = next(t for t in titles if t.startswith("sum kernel"))
    assert "f32[]" in kernel and "4 B" in kernel and "µs from" in kernel and "on cuda:0 default" in kernel
    assert any(t.startswith("D2H copy (item)") for t in titles)
    assert any(t.startswith("host waits (item)") and "for cuda:0 default" in t for t in titles)
    # The host's launches, between the waits.
    assert any(t.startswith("host launches (") and "on host" in t for t in titles)
    assert sum(t.startswith("host sync (item)") for t in titles) == 3
    lanes = [t.text for t in svg.iter(ns + "text") if t.text and t.text.endswith("%)")]
    assert [name.split(" (")[0] for name in lanes] == ["host", "cuda:0 default"]
    # The terminal's legend, drawn: a static render has no hover text.
    texts = [t.text for t in svg.iter(ns + "text")]
    for item in [
        "kernel",
        "copy",
        "host launches",
        "host waits",
        "host sync",
        "% busy (the host: launching or waiting)",
    ]:
        assert item in texts, texts


def test_warnings_go_to_stderr_and_values_to_results(kernel):
    km, kc, _ = kernel
    reply, msgs = execute(kc, 'h = ones(2)\nd = h.to(cuda, non_blocking=true)\nprint("out")\nd')
    streams = [(c["name"], c["text"]) for t, c in msgs if t == "stream"]
    assert streams[0][0] == "stderr" and streams[0][1].startswith("warning: non_blocking=true")
    assert streams[1] == ("stdout", "out\n")
    assert result_text(msgs) == ["[1., 1.]  f32[2] @cuda:0"]


def test_errors_carry_the_span(kernel):
    km, kc, _ = kernel
    execute(kc, "a = ones(2, 3)")
    reply, msgs = execute(kc, "b = a @ ones(4, 2)")
    assert reply["status"] == "error" and reply["ename"] == "ShapeError"
    [(kind, content)] = [m for m in msgs if m[0] == "error"]
    text = "\n".join(content["traceback"])
    assert "cell:1:5" in text
    # The session keeps `a` and has no `b`.
    assert result_text(execute(kc, "a.shape")[1]) == ["[2, 3]"]
    assert execute(kc, "b")[0]["ename"] == "NameError"


def test_cursor_positions_count_code_points(kernel):
    km, kc, _ = kernel
    code = "é = \"ü\"; zeros_l"
    kc.complete(code, len(code))
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    assert reply["matches"] == ["zeros_like"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (len(code) - 7, len(code))
    kc.inspect("x = 1; 😀 = zeros", len("x = 1; 😀 = zer"))
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    assert reply["found"] and "zeros(" in reply["data"]["text/plain"]


def test_is_complete_gives_an_indent(kernel):
    km, kc, _ = kernel
    kc.is_complete("stream s {\n  for i in 0..3 {")
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    assert reply == {"status": "incomplete", "indent": "    "}


def test_silent_executes_publish_nothing_and_keep_the_count(kernel):
    km, kc, _ = kernel
    first, _ = execute(kc, "1")
    msg_id = kc.execute("print(2)\n3", silent=True)
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["parent_header"]["msg_id"] == msg_id and reply["content"]["status"] == "ok"
    seen = []
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") == msg_id:
            seen.append(msg["msg_type"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
    assert seen == ["status", "status"]
    second, _ = execute(kc, "4")
    assert second["execution_count"] == first["execution_count"] + 1


def test_cells_queued_behind_a_failed_cell_are_aborted(kernel):
    km, kc, _ = kernel
    # Run All: three cells sent at once; the second fails. The first takes a
    # while, so the others are surely queued by the time the second fails.
    cells = ("for i in 0..300000 { a1 = i }", "a2 = undefined_name", "a3 = 3")
    ids = [kc.execute(code) for code in cells]
    replies = {}
    while len(replies) < 3:
        r = kc.get_shell_msg(timeout=TIMEOUT)
        replies[r["parent_header"]["msg_id"]] = r["content"]["status"]
    assert [replies[i] for i in ids] == ["ok", "error", "aborted"]
    reply, msgs = execute(kc, "a3")
    assert reply["status"] == "error" and reply["ename"] == "NameError", (reply, msgs)
    # Without stop_on_error the next cell runs.
    ids = [kc.execute("b1 = undefined_name", stop_on_error=False), kc.execute("b2 = 2")]
    replies = {}
    while len(replies) < 2:
        r = kc.get_shell_msg(timeout=TIMEOUT)
        replies[r["parent_header"]["msg_id"]] = r["content"]["status"]
    assert [replies[i] for i in ids] == ["error", "ok"]
