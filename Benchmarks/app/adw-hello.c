/* Context for the start-up figure: the same window as gtk-hello.c, with libadwaita initialised
 * (AdwApplication, AdwApplicationWindow, AdwHeaderBar), which HaloDesk needs for its HIG widgets. */
#include <adwaita.h>
static void on_after_paint(GdkFrameClock *c, gpointer app) { g_application_quit(G_APPLICATION(app)); }
static void on_map(GtkWidget *w, gpointer app) { g_signal_connect(gtk_widget_get_frame_clock(w), "after-paint", G_CALLBACK(on_after_paint), app); }
static void on_activate(GtkApplication *app, gpointer d) {
  GtkWidget *w = adw_application_window_new(app);
  gtk_window_set_default_size(GTK_WINDOW(w), 1100, 720);
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append(GTK_BOX(box), adw_header_bar_new());
  gtk_box_append(GTK_BOX(box), gtk_label_new("Hello"));
  adw_application_window_set_content(ADW_APPLICATION_WINDOW(w), box);
  g_signal_connect(w, "map", G_CALLBACK(on_map), app);
  gtk_window_present(GTK_WINDOW(w));
}
int main(void) { AdwApplication *app = adw_application_new("io.github.halodesk.AdwHello", G_APPLICATION_NON_UNIQUE);
  g_signal_connect(app, "activate", G_CALLBACK(on_activate), NULL); return g_application_run(G_APPLICATION(app), 0, NULL); }
