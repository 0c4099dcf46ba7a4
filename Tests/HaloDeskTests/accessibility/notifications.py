#!/usr/bin/python3
"""A HALO push reaches the desktop, and clicking it opens its instance in HaloDesk.

Usage: notifications.py APP_NAME PASSWORD TIMEOUT_SECONDS BASE_URL EMAIL RECORD_FILE MODULE_ID INSTANCE_ID INSTANCE_NAME
notification_daemon.py records the session's notifications in RECORD_FILE. The script signs in,
then, as an editor through HALO's send API (the password grant for EMAIL), sends "Spring sale" and
then "Second note", both linking to the instance; checks each reached the desktop once as HaloDesk's,
with its title, body and a default action; clicks "Spring sale" through the notification server;
waits for the instance in the editor (read over AT-SPI), for "Second note" to be withdrawn
(the instance it links to is now read), and for the server's history to count the receipt of both
and the opening of the first.
Prints each step; exits 0 with "notification opened its instance" on success, 1 otherwise.
"""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pyatspi

from sign_in import find, run_signed_in, wait_for


def request(method, url, token=None, body=None, form=None, basic=None):
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if token:
        headers["Authorization"] = "Bearer " + token
    if basic:
        headers["Authorization"] = "Basic " + base64.b64encode(basic.encode()).decode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers, method=method), timeout=10) as answer:
        return json.loads(answer.read() or b"null")


def recorded(record_file):
    if not os.path.exists(record_file):
        return []
    with open(record_file) as lines:
        return [json.loads(line) for line in lines if line.strip()]


def main():
    app_name, password, timeout, base_url, email, record_file, module_id, instance_id, instance_name = sys.argv[1:10]

    def steps(app, workspace, deadline):
        token = request("POST", base_url + "/api/oauth/token?_user", form={
            "grant_type": "password", "username": email, "password": password}, basic=email + ":" + password)["access_token"]

        def send(title, body):
            """Sends until the desktop shows it: a stream opens at the newest event, so a push sent
            before HaloDesk's stream was connected is not for it."""
            for attempt in range(4):
                sent = request("POST", base_url + "/api/push/schedule", token=token, body={
                    "appId": 1, "name": title,
                    "payload": {"notification": {"title": title, "body": body},
                                "data": {"module": module_id, "instance": instance_id}}})
                print("sent %r (schedule %s)" % (title, sent["id"]), flush=True)
                try:
                    shown = wait_for("notification %r on the desktop" % title, lambda: next(
                        (entry for entry in recorded(record_file) if entry["call"] == "Notify" and entry["summary"] == title),
                        None), min(deadline, time.time() + 6))
                    return sent["id"], shown
                except TimeoutError:
                    continue
            raise TimeoutError("%r never reached the desktop" % title)

        first_schedule, first = send("Spring sale", "Ada's page has new prices")
        assert first["app"] == "HaloDesk", first
        assert first["body"] == "Ada's page has new prices", first
        assert "default" in first["actions"], first
        second_schedule, second = send("Second note", "Also about Ada")
        notifies = [entry["summary"] for entry in recorded(record_file) if entry["call"] == "Notify"]
        assert notifies.count("Spring sale") == 1 and notifies.count("Second note") == 1, notifies

        subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications",
                        "--object-path", "/org/freedesktop/Notifications",
                        "--method", "org.halodesk.NotificationRecorder.Invoke", str(first["id"]), "default"],
                       check=True, capture_output=True)
        print("clicked 'Spring sale'", flush=True)
        # The editor's metadata starts with the instance's id; its header bar title is the name.
        wait_for("the instance %r in the editor" % instance_name, lambda: find(
            workspace, lambda n: n.getRole() == pyatspi.ROLE_LABEL and (n.name or "").startswith("id " + instance_id)), deadline)
        wait_for("its name in the header", lambda: find(
            workspace, lambda n: n.getRole() == pyatspi.ROLE_LABEL and n.name == instance_name), deadline)
        wait_for("'Second note' withdrawn", lambda: next(
            (entry for entry in recorded(record_file) if entry["call"] == "CloseNotification" and entry["id"] == second["id"]),
            None), deadline)

        def activity():
            history = {entry["id"]: entry["activity"] for entry in request("GET", base_url + "/api/push/schedule", token=token)}
            first_activity, second_activity = history[first_schedule], history[second_schedule]
            if first_activity["open"] == 1 and first_activity["receipt"] == 1 and second_activity["receipt"] == 1:
                return history
            return None
        wait_for("receipts and the opening counted on the server", activity, deadline)

    return run_signed_in(app_name, password, timeout, steps, "notification opened its instance")


if __name__ == "__main__":
    sys.exit(main())
