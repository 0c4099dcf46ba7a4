// Swift cannot call C macros or variadic functions: the inline helpers below stand in for them.
#ifndef HALO_CGTK_SHIM_H
#define HALO_CGTK_SHIM_H

#include <gtk/gtk.h>
#include <glib-unix.h>
#include <sys/eventfd.h>
#include <malloc.h>

// mallopt lives in <malloc.h>, which Swift's Glibc module does not include.
static inline void halo_limit_malloc_arenas(int count) { mallopt(M_ARENA_MAX, count); }

// --- Signals -------------------------------------------------------------------------------
// g_signal_connect is a macro; this is what it expands to, with a destroy notify so the
// Swift closure box is released when the handler is disconnected or the instance finalizes.
static inline gulong halo_signal_connect(gpointer instance, const gchar *signal, GCallback handler,
                                         gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, (GConnectFlags)0);
}

// Emits a signal with no arguments and no return value (g_signal_emit_by_name is variadic).
static inline void halo_signal_emit_void(gpointer instance, const gchar *signal) {
    g_signal_emit_by_name(instance, signal);
}

// --- Checked casts (macros in C) -------------------------------------------------------------
static inline GtkWidget *halo_widget(gpointer p) { return GTK_WIDGET(p); }
static inline GtkWindow *halo_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkButton *halo_button(gpointer p) { return GTK_BUTTON(p); }
static inline GtkLabel *halo_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkBox *halo_box(gpointer p) { return GTK_BOX(p); }
static inline GtkEditable *halo_editable(gpointer p) { return GTK_EDITABLE(p); }
static inline GtkAccessible *halo_accessible(gpointer p) { return GTK_ACCESSIBLE(p); }
static inline GApplication *halo_application(gpointer p) { return G_APPLICATION(p); }
static inline GtkApplication *halo_gtk_application(gpointer p) { return GTK_APPLICATION(p); }
static inline GObject *halo_object(gpointer p) { return G_OBJECT(p); }
static inline GActionMap *halo_action_map(gpointer p) { return G_ACTION_MAP(p); }
static inline GAction *halo_action(gpointer p) { return G_ACTION(p); }
static inline GdkPaintable *halo_paintable(gpointer p) { return GDK_PAINTABLE(p); }
static inline GtkNative *halo_native(gpointer p) { return GTK_NATIVE(p); }
static inline GListModel *halo_list_model(gpointer p) { return G_LIST_MODEL(p); }
static inline GtkListItem *halo_list_item(gpointer p) { return GTK_LIST_ITEM(p); }
static inline GtkStringObject *halo_string_object(gpointer p) { return GTK_STRING_OBJECT(p); }
static inline GtkSelectionModel *halo_selection_model(gpointer p) { return GTK_SELECTION_MODEL(p); }
static inline GtkListItemFactory *halo_list_item_factory(gpointer p) { return GTK_LIST_ITEM_FACTORY(p); }
static inline GtkColumnView *halo_column_view(gpointer p) { return GTK_COLUMN_VIEW(p); }
static inline GtkSorter *halo_sorter(gpointer p) { return GTK_SORTER(p); }
static inline GtkStack *halo_stack(gpointer p) { return GTK_STACK(p); }
static inline GtkSwitch *halo_switch(gpointer p) { return GTK_SWITCH(p); }
static inline GtkSpinner *halo_spinner(gpointer p) { return GTK_SPINNER(p); }
static inline gboolean halo_is_widget(gpointer p) { return GTK_IS_WIDGET(p); }

// --- Accessibility (variadic in C) ----------------------------------------------------------
static inline void halo_accessible_set_label(GtkAccessible *a, const char *label) {
    gtk_accessible_update_property(a, GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
static inline void halo_accessible_set_description(GtkAccessible *a, const char *text) {
    gtk_accessible_update_property(a, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}
/* Tests (GTK_A11Y=test): NULL when the label is `label`, else what differs (g_free it). */
static inline char *halo_test_accessible_check_label(GtkAccessible *a, const char *label) {
    return gtk_test_accessible_check_property(a, GTK_ACCESSIBLE_PROPERTY_LABEL, label);
}

// --- GObject properties (variadic in C) -------------------------------------------------------
static inline void halo_object_set_bool(gpointer object, const char *name, gboolean value) {
    g_object_set(object, name, value, NULL);
}
static inline void halo_object_set_int(gpointer object, const char *name, gint value) {
    g_object_set(object, name, value, NULL);
}
static inline void halo_object_set_string(gpointer object, const char *name, const char *value) {
    g_object_set(object, name, value, NULL);
}

// --- Clipboard (G_TYPE_STRING is a macro) --------------------------------------------------------
// The text this process put on the clipboard (another app's needs an async read); free with g_free.
static inline char *halo_clipboard_local_text(GdkClipboard *clipboard) {
    GdkContentProvider *content = gdk_clipboard_get_content(clipboard);
    if (content == NULL) return NULL;
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_STRING);
    char *text = gdk_content_provider_get_value(content, &value, NULL) ? g_value_dup_string(&value) : NULL;
    g_value_unset(&value);
    return text;
}

// --- libdispatch main queue <-> GLib main loop -------------------------------------------------
// What Foundation's run loop uses on Linux: an eventfd that becomes readable when the main queue
// has work, and the function that drains it. See Sources/HaloDesk/Gtk/MainLoopBridge.swift.
int _dispatch_get_main_queue_handle_4CF(void);
void _dispatch_main_queue_callback_4CF(void *msg);

static inline void halo_eventfd_drain(int fd) {
    eventfd_t value;
    (void)eventfd_read(fd, &value);
}

#endif
