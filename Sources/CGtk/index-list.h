// A GListModel of N row positions whose items are made only when GTK asks for one.
//
// GtkStringList would hold one GtkStringObject per row: ~9 MB for a 100,000-row list, all built up
// front. This model stores just the count; get_item returns a fresh GtkStringObject holding the
// position ("42"), so only the rows a view binds ever exist. A fresh object per call also makes
// the view rebind a row after items-changed (GTK reuses a row widget when it gets the same item).
#ifndef HALO_CGTK_INDEX_LIST_H
#define HALO_CGTK_INDEX_LIST_H

#include <gtk/gtk.h>
#include <stdio.h>

typedef struct {
    GObject parent;
    guint count;
} HaloIndexList;

typedef struct {
    GObjectClass parent_class;
} HaloIndexListClass;

static inline GType halo_index_list_item_type(GListModel *model) {
    (void)model;
    return GTK_TYPE_STRING_OBJECT;
}

static inline guint halo_index_list_n_items(GListModel *model) {
    return ((HaloIndexList *)model)->count;
}

static inline gpointer halo_index_list_get_item(GListModel *model, guint position) {
    if (position >= ((HaloIndexList *)model)->count) return NULL;
    char text[16];
    snprintf(text, sizeof text, "%u", position);
    return gtk_string_object_new(text);
}

static inline void halo_index_list_init_model(gpointer iface, gpointer data) {
    (void)data;
    GListModelInterface *model = iface;
    model->get_item_type = halo_index_list_item_type;
    model->get_n_items = halo_index_list_n_items;
    model->get_item = halo_index_list_get_item;
}

/// The type, registered once per process (this header may be compiled into several modules, so
/// an existing registration is looked up by name first).
static inline GType halo_index_list_get_type(void) {
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        GType registered = g_type_from_name("HaloIndexList");
        if (registered == 0) {
            registered = g_type_register_static_simple(G_TYPE_OBJECT, "HaloIndexList", sizeof(HaloIndexListClass),
                                                       NULL, sizeof(HaloIndexList), NULL, 0);
            const GInterfaceInfo model = { halo_index_list_init_model, NULL, NULL };
            g_type_add_interface_static(registered, G_TYPE_LIST_MODEL, &model);
        }
        g_once_init_leave(&type, registered);
    }
    return type;
}

static inline GListModel *halo_index_list_new(void) {
    return G_LIST_MODEL(g_object_new(halo_index_list_get_type(), NULL));
}

/// Sets the count and tells views: `removed` rows at `position` became `added` rows.
static inline void halo_index_list_splice(GListModel *model, guint position, guint removed, guint added) {
    HaloIndexList *list = (HaloIndexList *)model;
    list->count = list->count - removed + added;
    g_list_model_items_changed(model, position, removed, added);
}

#endif
