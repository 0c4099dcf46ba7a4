// libsecret's store/lookup/clear calls are variadic (attribute lists): the helpers below take a
// fixed pair of attributes ("server", "account") under one schema.
#ifndef HALO_CSECRET_SHIM_H
#define HALO_CSECRET_SHIM_H
#include <libsecret/secret.h>

static inline const SecretSchema *halo_secret_schema(void) {
    static const SecretSchema schema = {
        "io.github.halodesk.HaloDesk.Credential", SECRET_SCHEMA_NONE,
        {
            { "server", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "account", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

static inline gboolean halo_secret_store(const char *server, const char *account, const char *label,
                                         const char *secret, GError **error) {
    return secret_password_store_sync(halo_secret_schema(), SECRET_COLLECTION_DEFAULT, label, secret,
                                      NULL, error, "server", server, "account", account, NULL);
}

static inline gchar *halo_secret_lookup(const char *server, const char *account, GError **error) {
    return secret_password_lookup_sync(halo_secret_schema(), NULL, error,
                                       "server", server, "account", account, NULL);
}

static inline gboolean halo_secret_clear(const char *server, const char *account, GError **error) {
    return secret_password_clear_sync(halo_secret_schema(), NULL, error,
                                      "server", server, "account", account, NULL);
}
#endif
