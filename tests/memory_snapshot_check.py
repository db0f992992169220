"""Checks a memory snapshot cudash wrote, as PyTorch's tools would read it.

Usage: python memory_snapshot_check.py SNAPSHOT EXPECTED_JSON
EXPECTED_JSON: {"devices": N, "allocated": [bytes per device], "reserved": [...]}.
Only the standard library: pickle loads it, pickletools lists its opcodes.
Prints "ok: ..." or fails with an assertion.
"""
import json
import pickle
import pickletools
import sys

# What pytorch.org/memory_viz's JavaScript unpickler reads (MemoryViz.js `unpickle`).
VIZ_OPCODES = {
    "PROTO", "STOP", "MARK", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "SETITEMS", "SETITEM",
    "DICT", "APPENDS", "APPEND", "LIST", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "BININT",
    "BININT1", "BININT2", "LONG1", "SHORT_BINUNICODE", "BINUNICODE", "BINFLOAT", "NONE",
    "NEWTRUE", "NEWFALSE", "MEMOIZE", "BINPUT", "LONG_BINPUT", "BINGET", "LONG_BINGET", "FRAME",
}

path, expected = sys.argv[1], json.loads(sys.argv[2])
data = open(path, "rb").read()

ops = list(pickletools.genops(data))
assert ops[0][0].name == "PROTO" and 2 <= ops[0][1] <= 4, f"protocol {ops[0][1]}"
used = {op.name for op, _, _ in ops}
assert used <= VIZ_OPCODES, f"opcodes memory_viz cannot read: {used - VIZ_OPCODES}"
for op, arg, _ in ops:
    if op.name == "LONG1":
        assert -(2**63) <= arg < 2**63, f"an int memory_viz reads as BigInt: {arg}"

snap = pickle.loads(data)
assert set(snap) == {"segments", "device_traces", "allocator_settings"}, set(snap)
assert len(snap["device_traces"]) == expected["devices"]
assert snap["allocator_settings"]["expandable_segments"] is False

SEGMENT_KEYS = {"device", "address", "total_size", "allocated_size", "active_size", "requested_size",
                "stream", "segment_type", "segment_pool_id", "is_expandable", "frames", "blocks"}
BLOCK_KEYS = {"address", "size", "requested_size", "state", "frames"}
allocated = [0] * expected["devices"]
reserved = [0] * expected["devices"]
for seg in snap["segments"]:
    assert set(seg) == SEGMENT_KEYS, set(seg) ^ SEGMENT_KEYS
    assert seg["segment_type"] in ("small", "large")
    assert seg["segment_pool_id"] == (0, 0)
    # Blocks tile the segment in address order.
    at = seg["address"]
    for b in seg["blocks"]:
        assert set(b) == BLOCK_KEYS, set(b)
        assert b["address"] == at, (b["address"], at)
        assert b["state"] in ("active_allocated", "active_pending_free", "inactive")
        assert b["requested_size"] <= b["size"]
        if b["state"] != "inactive":
            for f in b["frames"]:
                assert set(f) == {"filename", "line", "name"} and f["line"] >= 1, f
        at += b["size"]
    assert at == seg["address"] + seg["total_size"], "blocks do not fill their segment"
    alloc = sum(b["size"] for b in seg["blocks"] if b["state"] == "active_allocated")
    active = sum(b["size"] for b in seg["blocks"] if b["state"] != "inactive")
    assert seg["allocated_size"] == alloc and seg["active_size"] == active
    allocated[seg["device"]] += alloc
    reserved[seg["device"]] += seg["total_size"]
assert allocated == expected["allocated"], (allocated, expected["allocated"])
assert reserved == expected["reserved"], (reserved, expected["reserved"])
# Segments do not overlap on a device.
for d in range(expected["devices"]):
    spans = sorted((s["address"], s["total_size"]) for s in snap["segments"] if s["device"] == d)
    for (a, n), (b, _) in zip(spans, spans[1:]):
        assert a + n <= b, "segments overlap"

events = 0
for d, trace in enumerate(snap["device_traces"]):
    live = {}  # addr -> size of blocks allocated in the trace and not yet freed
    requested = set()
    segments = {}
    for e in trace:
        events += 1
        keys = {"action", "size", "stream", "frames", "time_us"}
        keys |= {"device_free"} if e["action"] == "oom" else {"addr"}
        assert set(e) == keys, (set(e), keys)
        a = e["action"]
        if a == "alloc":
            assert e["addr"] not in live, f"alloc of a live block at {e['addr']:#x}"
            live[e["addr"]] = e["size"]
        elif a == "free_requested":
            if e["addr"] in live:
                assert live[e["addr"]] == e["size"]
            requested.add(e["addr"])
        elif a == "free_completed":
            live.pop(e["addr"], None)
            requested.discard(e["addr"])
        elif a == "segment_alloc":
            assert e["addr"] not in segments
            segments[e["addr"]] = e["size"]
        elif a == "segment_free":
            if e["addr"] in segments:
                assert segments.pop(e["addr"]) == e["size"]
        else:
            assert a == "oom", a
    # What the trace left allocated is what the segments hold.
    held = {b["address"]: b for s in snap["segments"] if s["device"] == d for b in s["blocks"]}
    for addr, size in live.items():
        assert addr in held and held[addr]["state"] != "inactive", f"{addr:#x} lost"
        assert held[addr]["requested_size"] == size
    for addr in segments:
        assert any(s["address"] == addr for s in snap["segments"]), f"segment {addr:#x} lost"

print(f"ok: {len(snap['segments'])} segments, {events} events, opcodes {sorted(used)}")
