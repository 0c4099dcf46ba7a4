#!/usr/bin/env bash
# Live event streams (GET /api/events) on a release halo-server: what 1,000 idle streams cost, and
# how fast a change reaches a listener.
#
# Prints, each next to its floor measured in the same run:
# - server memory (RSS) with no stream and with STREAMS idle streams open: target ≤ 50 MB more;
# - search p50 with no stream (the floor) and with the streams open, in alternated rounds: target
#   within 10 %;
# - server CPU while the streams sit idle (heartbeats every 15 s);
# - save → event on another connection, p50/p99, next to the save's own round trip, with the
#   idle streams open (every commit wakes each of them).
#
#   Benchmarks/events/run.sh                        # from the package root
#   STREAMS=1000 SAVES=100 Benchmarks/events/run.sh
#   BIN=.build/debug/halo-server Benchmarks/events/run.sh   # an existing build instead of release
set -euo pipefail
cd "$(dirname "$0")/../.."

STREAMS=${STREAMS:-1000}
SAVES=${SAVES:-100}
SEARCHES=${SEARCHES:-200}
IDLE_SECONDS=${IDLE_SECONDS:-20}

source Benchmarks/lib/halo-server.sh
bench_setup events

DATA="$WORK/data"
"$BIN" seed --instances 2000 --modules 2 --seed 1 --data "$DATA" > /dev/null
CREDENTIALS=$("$BIN" client add --editor --name "Bench editor" --data "$DATA")
CLIENT_ID=$(echo "$CREDENTIALS" | awk '/client id/ {print $3}')
CLIENT_SECRET=$(echo "$CREDENTIALS" | awk '/client secret/ {print $3}')

# Every stream uses the one benchmark token, so the per-token cap is lifted; the server-wide cap
# (2,048 by default) still applies.
start_server "$DATA" --limit "event-streams-per-token=$((STREAMS + 8))"
echo "== halo-server pid $SERVER_PID on port $PORT ($STREAMS streams, $SAVES saves, $SEARCHES searches per round)"

python3 - "$PORT" "$SERVER_PID" "$CLIENT_ID" "$CLIENT_SECRET" "$STREAMS" "$SAVES" "$SEARCHES" "$IDLE_SECONDS" <<'PY'
import http.client, json, multiprocessing, os, selectors, socket, statistics, sys, time, urllib.parse

port, pid = int(sys.argv[1]), sys.argv[2]
client_id, client_secret = sys.argv[3], sys.argv[4]
streams, saves, searches, idle_seconds = (int(x) for x in sys.argv[5:9])
ticks = os.sysconf("SC_CLK_TCK")

def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks

def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024

def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values))) - 1))]

connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
connection.request("POST", "/api/oauth/token?_app", urllib.parse.urlencode(
    {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret}),
    {"Content-Type": "application/x-www-form-urlencoded"})
token = json.loads(connection.getresponse().read())["access_token"]
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
connection.request("GET", "/api/generalcontent/module/", headers=headers)
module = json.loads(connection.getresponse().read())["items"][0]["id"]

search_cpu = []  # the server's CPU ms per search, each round

def search_p50():
    body = json.dumps({"moduleIds": [module], "pagination": {"page": 1, "limit": 20}})
    times = []
    cpu = cpu_seconds()
    for _ in range(searches):
        start = time.perf_counter()
        connection.request("POST", "/api/generalcontent/instance/search", body, headers)
        response = connection.getresponse(); response.read()
        assert response.status == 200, response.status
        times.append((time.perf_counter() - start) * 1000)
    search_cpu.append((cpu_seconds() - cpu) / searches * 1000)
    return statistics.median(times)

def open_stream():
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk: raise SystemExit("a stream was closed: " + head.decode(errors="replace"))
        head += chunk
    status = int(head.split(b" ", 2)[1])
    if status != 200: raise SystemExit(f"a stream was refused with {status}")
    sock.setblocking(False)
    return sock

# Idle streams are held and read by a process of their own, as real clients would be: reading a
# thousand sockets in this process would compete with the timed searches for its interpreter.
def hold_streams(pipe):
    selector = selectors.DefaultSelector()
    selector.register(pipe, selectors.EVENT_READ)
    opened = []
    while True:
        ready = selector.select()
        while ready:
            key, _ = ready.pop(0)
            if key.fileobj is not pipe:
                try:
                    if not key.fileobj.recv(65536): selector.unregister(key.fileobj)
                except (BlockingIOError, KeyError, ValueError):
                    pass
                continue
            command = pipe.recv()
            ready = []  # a command may close sockets this batch still names: select again
            if command == "open":
                start = time.perf_counter()
                try:
                    opened = [open_stream() for _ in range(streams)]
                except SystemExit as refusal:
                    pipe.send(str(refusal)); continue
                for sock in opened: selector.register(sock, selectors.EVENT_READ)
                pipe.send(time.perf_counter() - start)
            elif command == "close":
                for sock in opened:
                    try: selector.unregister(sock)
                    except (KeyError, ValueError): pass  # the server closed it first
                    sock.close()
                opened = []
                pipe.send("closed")
            else:
                return

commands, holder_end = multiprocessing.Pipe()
holder = multiprocessing.get_context("fork").Process(target=hold_streams, args=(holder_end,), daemon=True)
holder.start()

def open_streams():
    commands.send("open")
    answer = commands.recv()
    if isinstance(answer, str): raise SystemExit(answer)
    return answer

def close_streams():
    commands.send("close"); commands.recv()
    # A stream's slot is freed when a write to it fails (the first write after the close may still
    # succeed): commits wake every stream at once.
    for _ in range(3):
        connection.request("POST", "/api/generalcontent/instance", json.dumps({"module": module, "name": "Wake"}), headers)
        connection.getresponse().read()
        time.sleep(0.5)

for _ in range(3): search_p50()  # warm-up (page cache, allocator, code paths), not counted
search_cpu.clear()
# Alternated rounds, without and with the streams open, so drift on a shared machine falls on both.
rounds = 3
without, with_open = [search_p50()], []
rss_before = rss_mb()
for turn in range(rounds):
    open_seconds = open_streams()
    time.sleep(2)
    if turn == 0:
        rss_with = rss_mb()
        cpu_start = cpu_seconds(); time.sleep(idle_seconds); idle_cpu = cpu_seconds() - cpu_start
    with_open.append(search_p50())
    if turn < rounds - 1:
        close_streams()
        without.append(search_p50())
floor = statistics.median(without)
with_streams = statistics.median(with_open)

# Save → event: one listener apart from the idle crowd, which every commit wakes too.
listener = socket.create_connection(("127.0.0.1", port))
listener.sendall(f"GET /api/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
buffer = b""
while b"retry:" not in buffer: buffer += listener.recv(4096)
buffer = b""
latencies, save_times = [], []
for n in range(saves):
    body = json.dumps({"module": module, "name": f"Live {n}"})
    start = time.perf_counter()
    connection.request("POST", "/api/generalcontent/instance", body, headers)
    response = connection.getresponse(); created = json.loads(response.read())
    save_times.append((time.perf_counter() - start) * 1000)
    marker = created["id"].encode()
    while marker not in buffer: buffer += listener.recv(65536)
    latencies.append((time.perf_counter() - start) * 1000)
    buffer = buffer[buffer.index(marker):]
listener.close()

close_streams()
without.append(search_p50())
commands.send("exit"); holder.join()
floor = statistics.median(without)

print(f"   opening {streams} streams: {open_seconds:.2f} s")
print(f"   server RSS: {rss_before:.1f} MB without streams, {rss_with:.1f} MB with {streams} idle streams: "
      f"+{rss_with - rss_before:.1f} MB (target ≤ 50 MB)")
print(f"   server CPU while {streams} streams sat idle for {idle_seconds} s: {idle_cpu:.2f} s "
      f"({idle_cpu / idle_seconds * 100:.1f} % of one core)")
print(f"   search p50, {searches} searches a round, rounds alternated: without streams "
      f"{', '.join(f'{x:.2f}' for x in without)} ms (floor, median {floor:.2f} ms); with {streams} streams open "
      f"{', '.join(f'{x:.2f}' for x in with_open)} ms (median {with_streams:.2f} ms) = {with_streams / floor:.2f}x the floor (target ≤ 1.10x)")
# Rounds ran without, with, without, … : even indexes are without streams.
print(f"   server CPU per search: {statistics.median(search_cpu[0::2]):.2f} ms without streams, "
      f"{statistics.median(search_cpu[1::2]):.2f} ms with them")
print(f"   save → event on another connection, {streams} idle streams open: p50 {statistics.median(latencies):.1f} ms, "
      f"p99 {percentile(latencies, 99):.1f} ms; the save's own round trip p50 {statistics.median(save_times):.1f} ms "
      f"= {statistics.median(latencies) / statistics.median(save_times):.2f}x (target: change shown ≤ 200 ms)")
PY
