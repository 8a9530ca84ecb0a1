#!/usr/bin/env python3
"""A persistent diperf client that makes one LDAP search per call.

    search.py ldap://HOST:PORT/ BASE FILTER [ATTR ...]

It speaks LDAPv3 itself (RFC 4511, BER by hand: the standard library has no
LDAP), so that a call is the search alone: one connection per process, kept
from call to call (searches need no bind: the anonymous identity reads the
case's directory), no process started per call. FILTER is one of
(attr=value), (attr=*), (attr=*final), (attr=initial*), (attr=*any*).

The line protocol of docs/clients.md: "ready", then for each "call N" on
stdin one line "ok entries=E" (E entries returned, a search result of
success) or "fail TEXT"; a connection that failed is opened again at the
next call. Logs go to stderr.
"""
import re
import socket
import sys

QUICKACK = getattr(socket, "TCP_QUICKACK", 0)  # Linux


def tlv(tag, body):
    """One BER element: tag, definite length, body."""
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def integer(tag, v):
    """A BER INTEGER or ENUMERATED of a small non-negative value."""
    return tlv(tag, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big"))


def ber_filter(text):
    """The BER of one simple filter in its string form (RFC 4515)."""
    m = re.fullmatch(r"\(([A-Za-z][A-Za-z0-9;-]*)=([^()*\\]*(?:\*[^()*\\]*)*)\)", text)
    if not m:
        raise ValueError("want (attr=value), (attr=*), (attr=*final), (attr=initial*) or (attr=*any*), got %r" % text)
    attr, value = m.group(1).encode(), m.group(2)
    if value == "*":
        return tlv(0x87, attr)  # present
    if "*" not in value:
        return tlv(0xA3, tlv(0x04, attr) + tlv(0x04, value.encode()))  # equalityMatch
    parts = value.split("*")
    subs = b""
    for i, p in enumerate(parts):
        if p:
            tag = 0x80 if i == 0 else 0x82 if i == len(parts) - 1 else 0x81  # initial, final, any
            subs += tlv(tag, p.encode())
    return tlv(0xA4, tlv(0x04, attr) + tlv(0x30, subs))  # substrings


def search_request(msgid, base, filt, attrs):
    """An LDAPMessage holding a SearchRequest of the whole subtree."""
    req = (tlv(0x04, base.encode()) + integer(0x0A, 2) + integer(0x0A, 0) + integer(0x02, 0)
           + integer(0x02, 0) + tlv(0x01, b"\x00") + filt
           + tlv(0x30, b"".join(tlv(0x04, a.encode()) for a in attrs)))
    return tlv(0x30, integer(0x02, msgid) + tlv(0x63, req))


class Reader:
    """Reads whole BER elements from a socket."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def need(self, n):
        while len(self.buf) < n:
            if QUICKACK:  # acknowledge at once: slapd's next small write waits for it (Nagle)
                self.sock.setsockopt(socket.IPPROTO_TCP, QUICKACK, 1)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk

    def element(self):
        """The next element's tag and body."""
        self.need(2)
        tag, first = self.buf[0], self.buf[1]
        head, n = 2, first
        if first & 0x80:
            k = first & 0x7F
            if k == 0 or k > 4:
                raise ValueError("bad BER length")
            self.need(2 + k)
            n, head = int.from_bytes(self.buf[2:2 + k], "big"), 2 + k
        self.need(head + n)
        body, self.buf = self.buf[head:head + n], self.buf[head + n:]
        return tag, body


def split(body):
    """The elements (tag, body) of a constructed body."""
    out, i = [], 0
    while i < len(body):
        tag, first, head = body[i], body[i + 1], 2
        n = first
        if first & 0x80:
            k = first & 0x7F
            n, head = int.from_bytes(body[i + 2:i + 2 + k], "big"), 2 + k
        out.append((tag, body[i + head:i + head + n]))
        i += head + n
    return out


def one_search(conn, msgid, request):
    """Sends one search and reads its replies: the entries returned."""
    conn[0].sendall(request)
    entries = 0
    while True:
        tag, body = conn[1].element()
        parts = split(body)
        if tag != 0x30 or len(parts) < 2 or int.from_bytes(parts[0][1], "big") != msgid:
            raise ValueError("unexpected message from the server")
        op, opbody = parts[1]
        if op == 0x64:  # SearchResultEntry
            entries += 1
        elif op == 0x65:  # SearchResultDone
            result = split(opbody)
            code = int.from_bytes(result[0][1], "big")
            if code != 0:
                raise ValueError("search result %d: %s" % (code, result[2][1].decode(errors="replace")))
            return entries


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: search.py ldap://HOST:PORT/ BASE FILTER [ATTR ...]")
    m = re.fullmatch(r"ldap://([^/:]+):(\d+)/?", sys.argv[1])
    if not m:
        sys.exit("want ldap://HOST:PORT/, got %r" % sys.argv[1])
    addr = (m.group(1), int(m.group(2)))
    base, filt, attrs = sys.argv[2], ber_filter(sys.argv[3]), sys.argv[4:]
    conn, msgid = None, 0
    print("ready", flush=True)
    for _ in sys.stdin:
        msgid += 1
        try:
            if conn is None:
                sock = socket.create_connection(addr)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn = (sock, Reader(sock))
            n = one_search(conn, msgid, search_request(msgid, base, filt, attrs))
            print("ok entries=%d" % n, flush=True)
        except (OSError, ValueError, IndexError) as e:
            print("fail %s" % e, flush=True)
            if conn is not None:
                conn[0].close()
            conn = None


if __name__ == "__main__":
    main()
