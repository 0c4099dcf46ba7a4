#!/usr/bin/python3
"""Creates a product, an article and an event in HaloDesk's instance editor from outside the
process, as assistive technology would, editing one field of every type in the demo modules with
its own editor, publishing one instance, scheduling another and adding a tag.

Usage: field_editors.py APP_NAME PASSWORD NAME TIMEOUT_SECONDS
Signs in to the remote workspace, then for each module presses "New instance", fills in the
fields below, presses Save and waits for the editor to show the instance's name. NAME is the
product's name; the article is "NAME (article)" and the event "NAME (event)". The test reads the
three instances back from the server and compares every value.
- Products: title and manual (text and video link), jingle (audio link), price ("12,5x" is refused
  under the field first, then 12.5), inStock (a switch), color (its hex code), size (an option of
  its picker), features (two toggle buttons), releaseDate (a date-only field: its typed day
  2027-03-28), specs (an object: a member renamed to "watts", its type changed to Number, 40) and
  sizes (a list of "S" and "M"); published now, with the tag "region = emea".
- Articles: title in English (United States) and Spanish (Spain), summary, body (long text),
  cover (image), link (website), video (YouTube: a non-YouTube link is refused first), author
  (picked by name: Ada Lovelace), related (Grace Hopper and Linus Torvalds, as chips), topics,
  category and featured; scheduled for 2030-01-15 09:00 local time.
- Events: name, venue, starts (2027-03-28 19:30 local time, typed into its popover), doors
  (18:45), poster and description (one locale), speakers (Radia Perlman).
Prints each step; exits 0 with "created through the field editors" on success, 1 otherwise.
"""
import sys

import pyatspi

from filter_builder import click, label_starting, popover_buttons, press
from sign_in import find, is_button, named, run_signed_in, wait_for
from workspace import select_module


def editable(node):
    return "EditableText" in pyatspi.listInterfaces(node)


def entry(within, name, deadline):
    return wait_for("entry '%s'" % name, lambda: find(within, lambda n: named(n, name) and editable(n)), deadline)


def type_into(within, name, text, deadline):
    entry(within, name, deadline).queryEditableText().setTextContents(text)
    shown = text if len(text) <= 60 else "%s… (%d characters)" % (text[:20], len(text))
    print("typed %r into %s" % (shown, name), flush=True)


def menu_starting(window, prefix, deadline):
    """Opens the menu button whose name starts with `prefix` (a picker names itself
    "<purpose>: <what it shows>") and returns it; its popover's nodes are its children."""
    return click("menu '%s…'" % prefix, lambda: find(
        window, lambda n: (n.name or "").startswith(prefix) and n.getRole() != pyatspi.ROLE_LABEL
        and n.getRole() != pyatspi.ROLE_TEXT), deadline)


def toggle_on(window, name, deadline):
    """Turns on a switch or a toggle button (GTK 4.8 exposes a switch as a check box and a toggle
    button as a push button; both are pressed or checked while on)."""
    node = wait_for("toggle '%s'" % name, lambda: find(
        window, lambda n: named(n, name) and n.getRole() in (
            pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_CHECK_BOX)
        and "Action" in pyatspi.listInterfaces(n)), deadline)
    press(node)
    wait_for("%s on" % name, lambda: node if node.getState().contains(pyatspi.STATE_PRESSED)
             or node.getState().contains(pyatspi.STATE_CHECKED) else None, deadline)


def pick_option(window, purpose, option, deadline):
    """Chooses `option` in the picker named "<purpose>: …"."""
    menu = menu_starting(window, purpose + ": ", deadline)
    click("option '%s'" % option, lambda: next((n for n in popover_buttons(menu) if named(n, option)), None), deadline)
    wait_for("%s: %s" % (purpose, option), lambda: find(window, lambda n: n.name == "%s: %s" % (purpose, option)), deadline)


def pick_instance(window, purpose, search, name, deadline):
    """Opens the instance picker named "<purpose>: …", types `search` into its search entry and
    presses the result for the instance `name`."""
    menu = menu_starting(window, purpose + ": ", deadline)
    type_into(menu, "Search instances by name", search, deadline)
    click("result '%s'" % name, lambda: next(
        (n for n in popover_buttons(menu) if (n.name or "").startswith(name + " — ")), None), deadline)


def pick_date(window, purpose, day, time_of_day, deadline):
    """Types the day (yyyy-mm-dd) and, when given, the time of day into the popover of the date
    button named "<purpose>: …"; the button then names the date chosen."""
    menu = menu_starting(window, purpose + ": ", deadline)
    type_into(menu, purpose + ": date", day, deadline)
    if time_of_day is not None:
        type_into(menu, purpose + ": time of day", time_of_day, deadline)
    wait_for("%s chosen" % purpose, lambda: find(window, lambda n: (n.name or "").startswith(purpose + ": ")
                                                   and any(part in n.name for part in ("2027", "2030"))), deadline)


def add_language(window, field, code, language, text, deadline):
    type_into(window, "New locale for " + field, code, deadline)
    click("Add Language to " + field, lambda: find(window, lambda n: is_button(n, "Add a language to " + field)), deadline)
    type_into(window, "%s in %s" % (field, language), text, deadline)


def new_instance(app, window, module, count, ready_entry, name, deadline):
    """Opens `module` (once its list says it has `count` instances) and a new instance in it,
    once its editor shows `ready_entry`."""
    select_module(app, module, deadline)
    wait_for("%s listed" % module, lambda: find(
        window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and (n.name or "").startswith("Online")
        and (n.name or "").endswith(" %d instances" % count)), deadline)
    click("New instance", lambda: find(window, lambda n: is_button(n, "New instance")), deadline)
    wait_for("detail title 'New Instance'", lambda: find(
        window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and n.name == "New Instance"), deadline)
    entry(window, ready_entry, deadline)
    type_into(window, "Instance name", name, deadline)


def save(window, name, deadline):
    click("Save instance", lambda: find(window, lambda n: is_button(n, "Save instance")), deadline)
    wait_for("detail title '%s'" % name, lambda: find(
        window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and n.name == name), deadline)


def product(app, window, name, deadline):
    new_instance(app, window, "Products", 150, "price", name, deadline)
    type_into(window, "title", "Lamp made over AT-SPI", deadline)
    type_into(window, "price", "12,5x", deadline)
    wait_for("the price's problem under its field", lambda: label_starting(
        window, "“price” must be a number, not “12,5x”."), deadline)
    type_into(window, "price", "12.5", deadline)
    type_into(window, "color: hex code", "#00897b", deadline)
    type_into(window, "manual", "https://videos.example.com/at-spi.mp4", deadline)
    type_into(window, "jingle", "https://sounds.example.com/at-spi.ogg", deadline)
    toggle_on(window, "inStock", deadline)
    for choice in ("recycled", "organic"):
        toggle_on(window, choice, deadline)
    pick_option(window, "size", "L", deadline)
    pick_date(window, "releaseDate", "2027-03-28", None, deadline)

    # specs, an object: one member, renamed, made a number.
    click("Add a member to specs", lambda: find(window, lambda n: is_button(n, "Add a member to specs")), deadline)
    type_into(window, "Name of specs.key", "watts", deadline)
    pick_option(window, "Type of specs.watts", "number", deadline)
    type_into(window, "Value of specs.watts", "40", deadline)
    # sizes, a list of two strings.
    for index, size in enumerate(("S", "M")):
        click("Add an item to sizes", lambda: find(window, lambda n: is_button(n, "Add an item to sizes")), deadline)
        type_into(window, "Value of sizes[%d]" % index, size, deadline)

    publish(window, "Published", deadline)
    add_tag(window, "region = emea", deadline)
    save(window, name, deadline)


def publish(window, state, deadline):
    """Presses Publish (not "Publish date: …") and waits for the state row to say `state`, not saved yet."""
    click("Publish", lambda: find(window, lambda n: n.getRole() == pyatspi.ROLE_PUSH_BUTTON and n.name == "Publish"), deadline)
    wait_for("state '%s'" % state, lambda: find(window, lambda n: n.name == state
                                               and (n.description or "").endswith("not saved yet")), deadline)


def add_tag(window, tag, deadline):
    """Types `tag` into the "Add a Tag" row and presses the row's Add button."""
    type_into(window, "Add a Tag (name = value)", tag, deadline)
    click("Add the tag", lambda: find(window, lambda n: is_button(n, "Add the tag")), deadline)
    wait_for("tag row '%s'" % tag, lambda: find(window, lambda n: is_button(n, "Remove tag " + tag)), deadline)


def article(app, window, name, deadline):
    new_instance(app, window, "Articles", 120, "New locale for title", name, deadline)
    add_language(window, "title", "en-US", "English (United States)", "Lamps, explained", deadline)
    add_language(window, "title", "es-ES", "Spanish (Spain)", "Lámparas, explicadas", deadline)
    type_into(window, "summary", "How a lamp is made", deadline)
    type_into(window, "body", "<p>Made <b>by hand</b>.</p>", deadline)
    type_into(window, "cover", "https://images.example.com/lamp.png", deadline)
    type_into(window, "link", "https://example.com/lamps", deadline)
    type_into(window, "video", "https://vimeo.com/1234", deadline)
    wait_for("the video's problem under its field", lambda: label_starting(window, "“video” must be a YouTube address"), deadline)
    type_into(window, "video", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", deadline)
    pick_instance(window, "Choose author", "Ada", "Ada Lovelace", deadline)
    wait_for("chip 'Ada Lovelace'", lambda: find(window, lambda n: is_button(n, "Remove Ada Lovelace")), deadline)
    for search, person in (("Grace", "Grace Hopper"), ("Linus", "Linus Torvalds")):
        pick_instance(window, "Add to related", search, person, deadline)
        wait_for("chip '%s'" % person, lambda: find(window, lambda n: is_button(n, "Remove " + person)), deadline)
    toggle_on(window, "science", deadline)
    pick_option(window, "category", "guide", deadline)
    toggle_on(window, "featured", deadline)
    pick_date(window, "Publish date", "2030-01-15", "09:00", deadline)
    publish(window, "Scheduled", deadline)
    save(window, name, deadline)


def event(app, window, name, deadline):
    new_instance(app, window, "Events", 60, "doors", name, deadline)
    type_into(window, "name", "Lamp night", deadline)
    type_into(window, "venue", "Main hall", deadline)
    pick_date(window, "starts", "2027-03-28", "19:30", deadline)
    type_into(window, "doors", "18:45", deadline)
    type_into(window, "poster", "https://images.example.com/poster.png", deadline)
    add_language(window, "description", "fr-FR", "French (France)", "Une soirée", deadline)
    pick_instance(window, "Add to speakers", "Radia", "Radia Perlman", deadline)
    wait_for("chip 'Radia Perlman'", lambda: find(window, lambda n: is_button(n, "Remove Radia Perlman")), deadline)
    save(window, name, deadline)


def main():
    app_name, password, instance_name, timeout = sys.argv[1:5]

    def steps(app, window, deadline):
        product(app, window, instance_name, deadline)
        article(app, window, instance_name + " (article)", deadline)
        event(app, window, instance_name + " (event)", deadline)
    return run_signed_in(app_name, password, timeout, steps, "created through the field editors")


if __name__ == "__main__":
    sys.exit(main())
