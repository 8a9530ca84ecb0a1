#!/usr/bin/env python3
"""A diperf client in Python: one call is an HTTP GET of $DIPERF_TARGET
(or, with no target, a small CPU task), reporting the bytes it read.

    echo_client.py [--once]     exec client: one call, exit status 0 = ok;
                                extras on the fd in $DIPERF_EXTRAS_FD
    echo_client.py --persistent persistent client: the line protocol of
                                docs/clients.md on stdin/stdout

Only the standard library is used.
"""
import hashlib
import os
import sys
import time
import urllib.request


def call():
    """Makes one call; returns the extras of a success or raises."""
    start = time.perf_counter()
    target = os.environ.get("DIPERF_TARGET", "")
    if target:
        with urllib.request.urlopen(target, timeout=10) as resp:
            n = len(resp.read())
    else:
        data = b"diperf"
        for _ in range(1000):
            data = hashlib.sha256(data).digest()
        n = len(data)
    return {"bytes": n, "work_ms": (time.perf_counter() - start) * 1000}


def pairs(extras):
    return " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in extras.items())


def once():
    try:
        extras = call()
    except Exception as e:  # any failure of the call is the call's failure
        print(f"echo_client: {e}", file=sys.stderr)
        return 1
    fd = os.environ.get("DIPERF_EXTRAS_FD")
    if fd:
        os.write(int(fd), (pairs(extras) + "\n").encode())
    return 0


def persistent():
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:  # "call <n>"; the end of stdin means stop
        if not line.startswith("call"):
            continue
        try:
            reply = "ok " + pairs(call())
        except Exception as e:
            reply = "fail " + " ".join(str(e).split())  # one line
        out.write(reply + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(persistent() if "--persistent" in sys.argv[1:] else once())
