/* The floor for HaloDesk's start-up figure: the smallest GTK 4 application that opens a window
 * with a header bar and a label, and quits once that window has painted its first frame. */
#include <gtk/gtk.h>

static void on_after_paint(GdkFrameClock *clock, gpointer app) {
    (void)clock;
    g_application_quit(G_APPLICATION(app));
}

static void on_map(GtkWidget *window, gpointer app) {
    g_signal_connect(gtk_widget_get_frame_clock(window), "after-paint", G_CALLBACK(on_after_paint), app);
}

static void on_activate(GtkApplication *app, gpointer data) {
    (void)data;
    GtkWidget *window = gtk_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), "Hello");
    gtk_window_set_default_size(GTK_WINDOW(window), 1100, 720);
    gtk_window_set_titlebar(GTK_WINDOW(window), gtk_header_bar_new());
    gtk_window_set_child(GTK_WINDOW(window), gtk_label_new("Hello, world"));
    g_signal_connect(window, "map", G_CALLBACK(on_map), app);
    gtk_window_present(GTK_WINDOW(window));
}

int main(void) {
    GtkApplication *app = gtk_application_new("io.github.halodesk.Hello", G_APPLICATION_NON_UNIQUE);
    g_signal_connect(app, "activate", G_CALLBACK(on_activate), NULL);
    int status = g_application_run(G_APPLICATION(app), 0, NULL);
    g_object_unref(app);
    return status;
}
