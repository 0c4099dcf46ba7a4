#!/usr/bin/python3
"""A desktop notification server for tests: owns org.freedesktop.Notifications on the session bus
(the test's private one, from scripts/gui-session.sh), records every call, and clicks a
notification when asked, as a person would.

Usage: notification_daemon.py RECORD_FILE
Each Notify appends {"call": "Notify", "id": N, "app": …, "summary": …, "body": …, "actions": […],
"icon": …} as one JSON line to RECORD_FILE; CloseNotification appends {"call": "CloseNotification",
"id": N}. The test's method org.halodesk.NotificationRecorder.Invoke(u id, s action) emits
ActionInvoked(id, action) and NotificationClosed(id, 2), what a server sends when the notification
(action "default") or one of its buttons is clicked.
"""
import json
import sys

from gi.repository import Gio, GLib

INTERFACE = """
<node>
  <interface name="org.freedesktop.Notifications">
    <method name="GetCapabilities"><arg type="as" direction="out"/></method>
    <method name="Notify">
      <arg type="s" name="app_name" direction="in"/>
      <arg type="u" name="replaces_id" direction="in"/>
      <arg type="s" name="app_icon" direction="in"/>
      <arg type="s" name="summary" direction="in"/>
      <arg type="s" name="body" direction="in"/>
      <arg type="as" name="actions" direction="in"/>
      <arg type="a{sv}" name="hints" direction="in"/>
      <arg type="i" name="expire_timeout" direction="in"/>
      <arg type="u" name="id" direction="out"/>
    </method>
    <method name="CloseNotification"><arg type="u" name="id" direction="in"/></method>
    <method name="GetServerInformation">
      <arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/>
    </method>
    <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
    <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
  </interface>
  <interface name="org.halodesk.NotificationRecorder">
    <method name="Invoke"><arg type="u" name="id" direction="in"/><arg type="s" name="action" direction="in"/></method>
  </interface>
</node>
"""
PATH = "/org/freedesktop/Notifications"


def main():
    record_file = sys.argv[1]
    state = {"next": 0}
    loop = GLib.MainLoop()

    def record(entry):
        with open(record_file, "a") as out:
            out.write(json.dumps(entry) + "\n")

    def emit(connection, name, parameters):
        connection.emit_signal(None, PATH, "org.freedesktop.Notifications", name, parameters)

    def on_call(connection, sender, path, interface, method, parameters, invocation):
        if method == "GetCapabilities":
            invocation.return_value(GLib.Variant("(as)", (["actions", "body", "icon-static"],)))
        elif method == "GetServerInformation":
            invocation.return_value(GLib.Variant("(ssss)", ("halodesk-test-recorder", "HaloDesk", "1", "1.2")))
        elif method == "Notify":
            app, replaces, icon, summary, body, actions, hints, _ = parameters.unpack()
            if replaces:
                number = replaces
            else:
                state["next"] += 1
                number = state["next"]
            record({"call": "Notify", "id": number, "app": app, "summary": summary, "body": body, "actions": actions,
                    "icon": icon, "hints": sorted(hints.keys())})
            invocation.return_value(GLib.Variant("(u)", (number,)))
        elif method == "CloseNotification":
            (number,) = parameters.unpack()
            record({"call": "CloseNotification", "id": number})
            invocation.return_value(None)
            emit(connection, "NotificationClosed", GLib.Variant("(uu)", (number, 3)))
        elif method == "Invoke":
            number, action = parameters.unpack()
            invocation.return_value(None)
            emit(connection, "ActionInvoked", GLib.Variant("(us)", (number, action)))
            emit(connection, "NotificationClosed", GLib.Variant("(uu)", (number, 2)))

    node = Gio.DBusNodeInfo.new_for_xml(INTERFACE)

    def on_bus(connection, name):
        for interface in node.interfaces:
            connection.register_object(PATH, interface, on_call, None, None)

    def on_name(connection, name):
        print("owns", name, flush=True)

    Gio.bus_own_name(Gio.BusType.SESSION, "org.freedesktop.Notifications", Gio.BusNameOwnerFlags.NONE,
                     on_bus, on_name, lambda *args: loop.quit())
    loop.run()


if __name__ == "__main__":
    main()
