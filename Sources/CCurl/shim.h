// libcurl, opened on first use instead of at process start.
//
// Linking libcurl makes the dynamic loader map and relocate it and the ~25 libraries it pulls in
// (TLS, Kerberos, LDAP, SSH, IDN…) before main() runs: a large share of HaloDesk's start-up, spent
// before any request is made. The functions below load it with dlopen the first time a transfer
// needs it and call through a table; <curl/curl.h> still provides the types and constants.
// curl_easy_setopt and curl_easy_getinfo are variadic: one typed helper per argument kind.
#ifndef HALO_CCURL_SHIM_H
#define HALO_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef struct {
    const char *error;  // why libcurl could not be loaded, or NULL
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL *);
    void (*easy_reset)(CURL *);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} halo_curl_table;

// A function-local static: Swift's importer emits those (a file-scope static would be left undefined).
static inline halo_curl_table *halo_curl_table_get(void) {
    static halo_curl_table table;
    return &table;
}
#define halo_curl_loaded (*halo_curl_table_get())

static inline void halo_curl_load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { halo_curl_loaded.error = dlerror(); return; }
#define HALO_CURL_SYMBOL(field, name) \
    *(void **)(&halo_curl_loaded.field) = dlsym(library, name); \
    if (halo_curl_loaded.field == NULL) { halo_curl_loaded.error = "libcurl.so.4 lacks " name; return; }
    HALO_CURL_SYMBOL(global_init, "curl_global_init")
    HALO_CURL_SYMBOL(easy_init, "curl_easy_init")
    HALO_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    HALO_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    HALO_CURL_SYMBOL(easy_perform, "curl_easy_perform")
    HALO_CURL_SYMBOL(easy_reset, "curl_easy_reset")
    HALO_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    HALO_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    HALO_CURL_SYMBOL(slist_append, "curl_slist_append")
    HALO_CURL_SYMBOL(slist_free_all, "curl_slist_free_all")
#undef HALO_CURL_SYMBOL
    // Must run once per process, before any other curl call (pthread_once makes it once).
    halo_curl_loaded.global_init(CURL_GLOBAL_DEFAULT);
}

/// Loads libcurl once; returns NULL when it is usable, else why not.
static inline const char *halo_curl_open(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, halo_curl_load);
    return halo_curl_loaded.error;
}

// Every function below requires a successful halo_curl_open() first (handles only come from
// halo_curl_easy_init, which returns NULL when libcurl is missing).
static inline CURL *halo_curl_easy_init(void) { return halo_curl_open() ? NULL : halo_curl_loaded.easy_init(); }
static inline CURLcode halo_curl_easy_perform(CURL *h) { return halo_curl_loaded.easy_perform(h); }
static inline void halo_curl_easy_reset(CURL *h) { halo_curl_loaded.easy_reset(h); }
static inline void halo_curl_easy_cleanup(CURL *h) { halo_curl_loaded.easy_cleanup(h); }
static inline const char *halo_curl_easy_strerror(CURLcode c) { return halo_curl_loaded.easy_strerror(c); }
static inline struct curl_slist *halo_curl_slist_append(struct curl_slist *l, const char *s) { return halo_curl_loaded.slist_append(l, s); }
static inline void halo_curl_slist_free_all(struct curl_slist *l) { if (l != NULL) halo_curl_loaded.slist_free_all(l); }

static inline CURLcode halo_curl_setopt_long(CURL *h, CURLoption o, long v) { return halo_curl_loaded.easy_setopt(h, o, v); }
static inline CURLcode halo_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return halo_curl_loaded.easy_setopt(h, o, v); }
static inline CURLcode halo_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return halo_curl_loaded.easy_setopt(h, o, v); }
static inline CURLcode halo_curl_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return halo_curl_loaded.easy_setopt(h, o, v); }
typedef size_t (*halo_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode halo_curl_setopt_data_callback(CURL *h, CURLoption o, halo_curl_data_callback cb) { return halo_curl_loaded.easy_setopt(h, o, cb); }
typedef int (*halo_curl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode halo_curl_setopt_xferinfo_callback(CURL *h, halo_curl_xferinfo_callback cb) { return halo_curl_loaded.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb); }
static inline CURLcode halo_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return halo_curl_loaded.easy_getinfo(h, i, v); }
static inline CURLcode halo_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return halo_curl_loaded.easy_getinfo(h, i, v); }
static inline CURLcode halo_curl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return halo_curl_loaded.easy_getinfo(h, i, v); }
#endif
