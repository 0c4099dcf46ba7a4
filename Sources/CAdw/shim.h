#ifndef HALO_CADW_SHIM_H
#define HALO_CADW_SHIM_H
#include <adwaita.h>

static inline AdwApplication *halo_adw_application(gpointer p) { return ADW_APPLICATION(p); }
static inline AdwApplicationWindow *halo_adw_application_window(gpointer p) { return ADW_APPLICATION_WINDOW(p); }
static inline AdwToastOverlay *halo_adw_toast_overlay(gpointer p) { return ADW_TOAST_OVERLAY(p); }
static inline AdwLeaflet *halo_adw_leaflet(gpointer p) { return ADW_LEAFLET(p); }
static inline AdwMessageDialog *halo_adw_message_dialog(gpointer p) { return ADW_MESSAGE_DIALOG(p); }
#endif
