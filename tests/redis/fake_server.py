# SPDX-License-Identifier: MIT
"""A misbehaving Redis server on loopback, for the client's deadline and size bounds.

    python3 fake_server.py MODE PORT-FILE

Listens on 127.0.0.1 (a free port, written to PORT-FILE), answers PING with +PONG (the
client's connect check), and answers the first other command as MODE says:
  stall    nothing, ever
  huge     "$9999999999999\\r\\n", then nothing (a claimed 10 TB string)
  trickle  "$1000\\r\\n" then one byte every 0.2 s (each read makes progress)
  array    "*2000000000\\r\\n", then nothing (a claimed 2e9-element array)
  close    closes the connection without a reply
  drop UPSTREAM-PORT
           relays every command to the real server on UPSTREAM-PORT, except that the EVAL
           that counts a batch's new keys (the script that adds to the state's c<i>) is
           logged (a line in PORT-FILE.log) and then the connection is closed: a batch of
           adds whose connection breaks after its count was sent
Exits after 60 s whatever happens, so a test that forgets it leaves nothing behind.
"""
import socket
import sys
import threading
import time

MODE, PORT_FILE = sys.argv[1], sys.argv[2]
UPSTREAM = int(sys.argv[3]) if MODE == "drop" else 0


def commands(conn):
    """Yield the name of each RESP command the client sends (argv[0], upper case)."""
    buf = b""
    while True:
        while b"\r\n" not in buf or not buf.startswith(b"*"):
            data = conn.recv(65536)
            if not data:
                return
            buf += data
        # *N\r\n then N times $LEN\r\nBYTES\r\n
        head, rest = buf.split(b"\r\n", 1)
        n, args = int(head[1:]), []
        while len(args) < n:
            while b"\r\n" not in rest:
                data = conn.recv(65536)
                if not data:
                    return
                rest += data
            ln, tail = rest.split(b"\r\n", 1)
            size = int(ln[1:])
            while len(tail) < size + 2:
                data = conn.recv(65536)
                if not data:
                    return
                tail += data
            args.append(tail[:size])
            rest = tail[size + 2:]
        buf = rest
        yield args


class Upstream:
    """One connection to the real server: send a command, read back one whole reply."""

    def __init__(self):
        self.sock = socket.create_connection(("127.0.0.1", UPSTREAM))
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.sock.recv(65536)
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln + b"\r\n"

    def reply(self):
        ln = self.line()
        if ln[:1] == b"$" and int(ln[1:]) >= 0:
            while len(self.buf) < int(ln[1:]) + 2:
                self.buf += self.sock.recv(65536)
            body, self.buf = self.buf[:int(ln[1:]) + 2], self.buf[int(ln[1:]) + 2:]
            return ln + body
        if ln[:1] == b"*" and int(ln[1:]) > 0:
            return ln + b"".join(self.reply() for _ in range(int(ln[1:])))
        return ln

    def call(self, args):
        self.sock.sendall(b"*%d\r\n" % len(args) +
                          b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
        return self.reply()


def serve(conn):
    try:
        answer(conn)
    except OSError:  # the client gave up (its deadline): expected
        pass


def answer(conn):
    up = Upstream() if MODE == "drop" else None
    with conn:
        for args in commands(conn):
            name = args[0].upper()
            if up and name == b"EVAL" and b"'c' .. ARGV[1]" in args[1]:
                with open(PORT_FILE + ".log", "a") as log:
                    log.write("EVAL\n")
                return
            if up:
                conn.sendall(up.call(args))
            if up:
                continue
            if name == b"PING":
                conn.sendall(b"+PONG\r\n")
                continue
            if MODE == "huge":
                conn.sendall(b"$9999999999999\r\n")
            elif MODE == "array":
                conn.sendall(b"*2000000000\r\n")
            elif MODE == "trickle":
                conn.sendall(b"$1000\r\n")
                for _ in range(1000):
                    time.sleep(0.2)
                    conn.sendall(b"x")
            elif MODE == "close":
                return
            time.sleep(60)  # stall, and the modes above after their bytes


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    with open(PORT_FILE + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    import os
    os.rename(PORT_FILE + ".tmp", PORT_FILE)
    threading.Timer(60, lambda: os._exit(0)).start()
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
