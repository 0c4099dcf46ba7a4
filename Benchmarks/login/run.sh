#!/usr/bin/env bash
# Login under a password-guessing attack (release halo-server on loopback): 8 concurrent guessers
# try wrong passwords on 8 OTHER accounts through the identified login while a real user logs into
# their own account. Prints the real user's login p50/p99 and the server's CPU time, next to the
# floor (the same logins with no attackers), and how the guessers were answered (429s).
# Target: the real user's login is 200 with p50 < 200 ms under attack.
#
#   Benchmarks/login/run.sh                      # from the package root
#   DURATION=20 GUESSERS=8 Benchmarks/login/run.sh
#   BIN=.build/debug/halo-server Benchmarks/login/run.sh   # an existing build instead of release
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-10}
GUESSERS=${GUESSERS:-8}
FLOOR_LOGINS=${FLOOR_LOGINS:-40}

source Benchmarks/lib/halo-server.sh
bench_setup login

echo "== seeding 1 real user and $GUESSERS attacked accounts"
DATA="$WORK/data"
"$BIN" user add --data "$DATA" --email real@example.com --password real-user-password > /dev/null
for i in $(seq 0 $((GUESSERS - 1))); do
  "$BIN" user add --data "$DATA" --email "victim$i@example.com" --password "victim-password-$i" > /dev/null
done

start_server "$DATA"

python3 - "$PORT" "$SERVER_PID" "$DURATION" "$GUESSERS" "$FLOOR_LOGINS" <<'PY'
import http.client, json, os, statistics, sys, threading, time

port, pid, duration, guessers, floor_logins = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ticks = os.sysconf("SC_CLK_TCK")

def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

def login(connection, email, password):
    body = json.dumps({"email": email, "password": password, "network": "halo", "deviceId": ""})
    start = time.perf_counter()
    connection.request("POST", "/api/segmentation/identified/login", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    return response.status, (time.perf_counter() - start) * 1000

def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values))) - 1))]

def real_logins(count=None, until=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    times, statuses = [], {}
    while (count is not None and len(times) < count) or (until is not None and time.perf_counter() < until):
        status, ms = login(connection, "real@example.com", "real-user-password")
        statuses[status] = statuses.get(status, 0) + 1
        times.append(ms)
        time.sleep(0.05)  # a person, not a loop: leaves the attack the CPU in between
    connection.close()
    return times, statuses

def report(name, times, statuses, cpu, wall):
    print(f"   {name}: {len(times)} logins {dict(sorted(statuses.items()))}, "
          f"p50 {statistics.median(times):.1f} ms, p99 {percentile(times, 99):.1f} ms, max {max(times):.1f} ms; "
          f"server CPU {cpu:.2f} s in {wall:.1f} s")

# The real user's first login makes loopback a known device of their account.
warm = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
status, _ = login(warm, "real@example.com", "real-user-password")
warm.close()
assert status == 200, f"first login: {status}"

print(f"== floor: {floor_logins} logins of the real user, no attackers")
cpu0, wall0 = cpu_seconds(), time.perf_counter()
floor_times, floor_statuses = real_logins(count=floor_logins)
report("floor", floor_times, floor_statuses, cpu_seconds() - cpu0, time.perf_counter() - wall0)

print(f"== attack: {guessers} concurrent guessers on {guessers} other accounts for {duration:.0f} s, real user logging in meanwhile")
stop_at = time.perf_counter() + duration
guess_statuses, guess_times, lock = {}, [], threading.Lock()
first_429 = []

def guesser(index):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    attempt, started = 0, time.perf_counter()
    while time.perf_counter() < stop_at:
        attempt += 1
        status, ms = login(connection, f"victim{index}@example.com", f"guess-{attempt}")
        with lock:
            guess_statuses[status] = guess_statuses.get(status, 0) + 1
            guess_times.append(ms)
            if status == 429 and len(first_429) <= index:
                first_429.append(time.perf_counter() - started)
    connection.close()

cpu0, wall0 = cpu_seconds(), time.perf_counter()
threads = [threading.Thread(target=guesser, args=(i,)) for i in range(guessers)]
for thread in threads: thread.start()
attack_times, attack_statuses = real_logins(until=stop_at)
for thread in threads: thread.join()
attack_cpu, attack_wall = cpu_seconds() - cpu0, time.perf_counter() - wall0
report("real user under attack", attack_times, attack_statuses, attack_cpu, attack_wall)
total = sum(guess_statuses.values())
print(f"   guessers: {total} attempts {dict(sorted(guess_statuses.items()))}; "
      f"{guess_statuses.get(429, 0)} got 429 ({guess_statuses.get(400, 0)} passwords checked), "
      f"guess p50 {statistics.median(guess_times):.1f} ms")
p50 = statistics.median(attack_times)
ok = attack_statuses.get(200, 0) == len(attack_times) and p50 < 200
print(f"   real user's p50 under attack / floor: {p50 / statistics.median(floor_times):.1f}x; "
      f"target (all 200, p50 < 200 ms): {'met' if ok else 'NOT met'}")
PY
