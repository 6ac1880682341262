"""An HTTP/2 client (Python's h2, prior knowledge over cleartext) for the
engine's HTTP/2 tests: each command speaks to the server on one connection
and prints what it saw as one JSON object on the last line of its output."""
import json
import socket
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import hpack
import hyperframe.frame


def connect(port, window=None):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(30)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    if window is not None:
        conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    sock.sendall(conn.data_to_send())
    return sock, conn


def headers(port, path, method="GET", extra=()):
    return [(":method", method), (":path", path), (":scheme", "http"), (":authority", "127.0.0.1:%d" % port)] + list(extra)


class Client:
    """Reads events into per-stream records; acknowledges data unless told not to."""

    def __init__(self, port, window=None):
        self.port = port
        self.sock, self.conn = connect(port, window)
        self.status, self.body, self.ended, self.reset, self.head = {}, {}, set(), {}, {}
        self.goaway = None
        self.closed = False
        self.hold = set()  # streams whose data is never acknowledged

    def request(self, path, method="GET", extra=(), end=True):
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, headers(self.port, path, method, extra), end_stream=end)
        self.body[sid] = b""
        return sid

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def pump(self):
        self.flush()
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            self.closed = True
            return []
        events = self.conn.receive_data(data)
        for event in events:
            if isinstance(event, h2.events.ResponseReceived):
                fields = dict(event.headers)
                self.status[event.stream_id] = int(fields[":status"])
                self.head[event.stream_id] = fields
            elif isinstance(event, h2.events.DataReceived):
                self.body[event.stream_id] = self.body.get(event.stream_id, b"") + event.data
                if event.stream_id not in self.hold:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.ended.add(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.reset[event.stream_id] = int(event.error_code)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.goaway = {"error": int(event.error_code), "last": event.last_stream_id}
        self.flush()
        return events

    def until(self, condition, seconds=60):
        deadline = time.time() + seconds
        while not condition():
            if self.closed or time.time() > deadline:
                return False
            self.pump()
        return True

    def send_body(self, sid, data, chunk=16384):
        """Sends as flow control allows, waiting for WINDOW_UPDATEs."""
        offset = 0
        while offset < len(data):
            window = self.conn.local_flow_control_window(sid)
            if window <= 0:
                if sid in self.status or sid in self.reset:
                    return offset
                self.pump()
                continue
            size = min(window, chunk, len(data) - offset, self.conn.max_outbound_frame_size)
            self.conn.send_data(sid, data[offset:offset + size])
            offset += size
            self.flush()
        self.conn.end_stream(sid)
        self.flush()
        return offset


def concurrent(port, count):
    client = Client(port)
    sids = {client.request("/items/%d" % i): i for i in range(count)}
    client.until(lambda: all(s in client.ended or s in client.reset for s in sids))
    right = sum(1 for s, i in sids.items() if client.status.get(s) == 200 and client.body[s] == b"item %d" % i)
    return {"right": right, "statuses": sorted(set(client.status.values())), "reset": len(client.reset)}


def events(port, count):
    client = Client(port)
    sids = [client.request("/events") for _ in range(count)]
    opened = client.until(lambda: all(b": open" in client.body[s] for s in sids))
    publish = client.request("/publish?text=hello-h2")
    client.until(lambda: publish in client.ended and all(b"data: hello-h2" in client.body[s] for s in sids))
    got = sum(1 for s in sids if b"data: hello-h2" in client.body[s])
    types = sorted(set(client.head[s].get("content-type", "") for s in sids))
    return {"opened": opened, "received": got, "publish": client.body[publish].decode(), "types": types}


def slow(port, each):
    """Stream `held` never acknowledges a byte; stream `reader` does. Two floods
    of `each` bytes: the first fits the server's per-stream cap, the second does not."""
    client = Client(port, window=1024)
    held = client.request("/events")
    reader = client.request("/events")
    client.hold.add(held)
    client.until(lambda: b": open" in client.body[reader] and b": open" in client.body[held])
    base = len(client.body[reader])
    size = len(flood_bytes(each))
    first = client.request("/flood?bytes=%d" % each)
    client.until(lambda: first in client.ended and len(client.body[reader]) >= base + size)
    second = client.request("/flood?bytes=%d" % each)
    client.until(lambda: second in client.ended and held in client.reset and len(client.body[reader]) >= base + 2 * size)
    payload = client.body[reader][base:]
    return {
        "readerBytes": len(payload), "readerIntact": payload == flood_bytes(each) * 2,
        "heldReset": client.reset.get(held), "heldBytes": len(client.body[held]),
        "readerReset": reader in client.reset,
    }


def flood_bytes(count):
    """What /flood writes: events of 8 KiB-ish, the same every time."""
    out = b""
    line = b"data: " + b"x" * 8185 + b"\n\n"
    while len(out) + len(line) <= count:
        out += line
    return out


def upload(port, size, refuse):
    client = Client(port)
    boundary = "h2boundary"
    head = ("--%s\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nbig\r\n"
            "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n" % (boundary, boundary)).encode()
    tail = ("\r\n--%s--\r\n" % boundary).encode()
    data = head + bytes(range(256)) * (size // 256) + tail
    extra = [("content-type", "multipart/form-data; boundary=" + boundary), ("content-length", str(len(data)))]
    if refuse:
        extra.append(("x-refuse", "yes"))
    sid = client.request("/upload", "POST", extra, end=False)
    sent = client.send_body(sid, data)
    client.until(lambda: sid in client.ended or sid in client.reset)
    return {"status": client.status.get(sid), "body": client.body[sid].decode(errors="replace"),
            "sent": sent, "total": len(data), "reset": client.reset.get(sid)}


def bulk(port, window, pause, paths):
    """Fetches `paths` at once on one connection with an INITIAL_WINDOW_SIZE of
    `window`, reading the socket a little at a time and waiting `pause`
    seconds between reads, so the server meets closed windows and a full
    socket. Reports each body's status, length and SHA-256."""
    import hashlib
    client = Client(port, window)
    if window > 65535:
        client.conn.increment_flow_control_window(window - 65535)
    else:
        # A tiny receive buffer fills the server's socket too; with large
        # windows the client sends nothing back, so delayed ACKs would make
        # it crawl, and the server outruns Python's reading anyway.
        client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sids = {client.request(path): path for path in paths}

    def done():
        time.sleep(pause)
        return all(s in client.ended or s in client.reset for s in sids)

    client.until(done, seconds=120)
    return {path: {"status": client.status.get(s), "length": len(client.body[s]),
                   "sha256": hashlib.sha256(client.body[s]).hexdigest(), "reset": client.reset.get(s),
                   "headers": client.head.get(s, {})}
            for s, path in sids.items()}


def get(port, path, extra):
    client = Client(port)
    sid = client.request(path, "GET", extra)
    client.until(lambda: sid in client.ended or sid in client.reset)
    head = client.head.get(sid, {})
    return {"status": client.status.get(sid), "body": client.body[sid].decode(errors="replace"),
            "headers": head, "reset": client.reset.get(sid)}


def post(port, path, body, extra):
    client = Client(port)
    data = body.encode()
    extra = list(extra) + [("content-length", str(len(data)))]
    if not any(name == "content-type" for name, _ in extra):
        extra.append(("content-type", "application/x-www-form-urlencoded"))
    sid = client.request(path, "POST", extra, end=False)
    sent = client.send_body(sid, data)
    client.until(lambda: sid in client.ended or sid in client.reset)
    return {"status": client.status.get(sid), "body": client.body[sid].decode(errors="replace"),
            "headers": client.head.get(sid, {}), "sent": sent, "reset": client.reset.get(sid)}


def watch(port, path, count, marker, extra):
    """Opens `count` event streams; says OPEN once each has begun, then waits
    for `marker` on every one of them."""
    client = Client(port)
    sids = [client.request(path, "GET", extra) for _ in range(count)]
    client.until(lambda: all(s in client.status and (client.status[s] != 200 or b"retry:" in client.body[s]) for s in sids))
    print("OPEN", flush=True)
    if all(client.status.get(s) == 200 for s in sids):
        client.until(lambda: all(marker.encode() in client.body[s] for s in sids))
    return {"statuses": [client.status.get(s) for s in sids],
            "received": sum(1 for s in sids if marker.encode() in client.body[s])}


def raw_frames(sock, buffer=b""):
    """Frames as they come, parsed by hand: h2's state machine closes the
    connection on GOAWAY and would refuse the answers still owed after it."""
    while True:
        while len(buffer) >= 9:
            frame, length = hyperframe.frame.Frame.parse_frame_header(memoryview(buffer[:9]))
            if len(buffer) < 9 + length:
                break
            frame.parse_body(memoryview(buffer[9:9 + length]))
            buffer = buffer[9 + length:]
            yield frame
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            return
        buffer += data


def drain(port):
    """Waits in /block; says GOAWAY on stdout when it comes, then reads the answer."""
    client = Client(port)
    sid = client.request("/block")
    client.flush()
    print("SENT", flush=True)
    decoder = hpack.Decoder()
    goaway, status, body, ended = None, None, b"", False
    for frame in raw_frames(client.sock):
        if isinstance(frame, hyperframe.frame.GoAwayFrame):
            goaway = {"error": frame.error_code, "last": frame.last_stream_id}
            print("GOAWAY", flush=True)
        elif isinstance(frame, hyperframe.frame.HeadersFrame) and frame.stream_id == sid:
            status = int(dict(decoder.decode(frame.data))[":status"])
            ended = ended or "END_STREAM" in frame.flags
        elif isinstance(frame, hyperframe.frame.DataFrame) and frame.stream_id == sid:
            body += frame.data
            ended = ended or "END_STREAM" in frame.flags
    # The loop ends when the server closes the connection.
    return {"goaway": goaway, "status": status, "body": body.decode(), "ended": ended, "closed": True}


def idle(port):
    """One request, then silence: how long until the server says GOAWAY and closes."""
    client = Client(port)
    sid = client.request("/hello")
    client.flush()
    start = time.time()
    goaway, body = None, b""
    for frame in raw_frames(client.sock):
        if isinstance(frame, hyperframe.frame.GoAwayFrame):
            goaway = {"error": frame.error_code, "last": frame.last_stream_id}
        elif isinstance(frame, hyperframe.frame.DataFrame) and frame.stream_id == sid:
            body += frame.data
    return {"goaway": goaway, "body": body.decode(), "seconds": time.time() - start}


def rapid(port, count):
    """HEADERS then RST_STREAM, over and over, as fast as the socket takes them."""
    client = Client(port)
    sent = 0
    try:
        for batch in range(0, count, 100):
            for _ in range(min(100, count - batch)):
                sid = client.conn.get_next_available_stream_id()
                client.conn.send_headers(sid, headers(port, "/count"), end_stream=True)
                client.conn.reset_stream(sid, 8)
                sent += 1
            client.flush()
    except (BrokenPipeError, ConnectionResetError, h2.exceptions.ProtocolError):
        pass
    try:
        client.until(lambda: client.goaway is not None, seconds=20)
    except (ConnectionResetError, h2.exceptions.ProtocolError):
        pass
    after = get(port, "/hello", [])
    return {"sent": sent, "goaway": client.goaway, "afterStatus": after["status"], "afterBody": after["body"]}


def stall(port, mode, seconds):
    """A POST whose body never comes: only PINGs (mode "ping"), or one body
    byte at a time (mode "trickle", ending the body after `seconds`). Says
    how long the server kept the connection and what it answered."""
    client = Client(port)
    sid = client.request("/echo", "POST", [("content-length", "1000")], end=False)
    client.flush()
    client.sock.settimeout(0.2)
    start, sent, ended = time.time(), 0, False
    while (time.time() - start < seconds + 10 and not client.closed and client.goaway is None
           and sid not in client.status):
        # The body waits for the window the server opens once it admits the request.
        window = client.conn.local_flow_control_window(sid)
        if mode == "ping":
            client.conn.ping(b"12345678")
        elif not ended and window > 0 and time.time() - start < seconds:
            client.conn.send_data(sid, b"x")
            sent += 1
        elif not ended and window >= 1000 - sent:
            client.conn.send_data(sid, b"x" * (1000 - sent))
            client.conn.end_stream(sid)
            ended = True
        try:
            client.pump()
        except socket.timeout:
            client.flush()
        except (BrokenPipeError, ConnectionResetError, h2.exceptions.ProtocolError):
            client.closed = True
        time.sleep(0.2)
    if sid in client.status:
        client.sock.settimeout(5)
        client.until(lambda: sid in client.ended, seconds=5)
    elif client.goaway is not None:
        # Told to go: the server closes its side next.
        client.sock.settimeout(5)
        try:
            while client.sock.recv(65536):
                pass
            client.closed = True
        except ConnectionResetError:
            client.closed = True
        except socket.timeout:
            pass
    return {"seconds": time.time() - start, "closed": client.closed, "goaway": client.goaway,
            "status": client.status.get(sid), "length": len(client.body.get(sid, b""))}


def main():
    command, port = sys.argv[1], int(sys.argv[2])
    args = sys.argv[3:]
    if command == "concurrent":
        result = concurrent(port, int(args[0]))
    elif command == "events":
        result = events(port, int(args[0]))
    elif command == "slow":
        result = slow(port, int(args[0]))
    elif command == "upload":
        result = upload(port, int(args[0]), args[1:] == ["refuse"])
    elif command == "bulk":
        result = bulk(port, int(args[0]), float(args[1]), args[2:])
    elif command == "get":
        result = get(port, args[0], [tuple(a.split(": ", 1)) for a in args[1:]])
    elif command == "post":
        result = post(port, args[0], args[1], [tuple(a.split(": ", 1)) for a in args[2:]])
    elif command == "watch":
        result = watch(port, args[0], int(args[1]), args[2], [tuple(a.split(": ", 1)) for a in args[3:]])
    elif command == "drain":
        result = drain(port)
    elif command == "idle":
        result = idle(port)
    elif command == "stall":
        result = stall(port, args[0], float(args[1]))
    elif command == "rapid":
        result = rapid(port, int(args[0]))
    else:
        raise SystemExit("unknown command " + command)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
