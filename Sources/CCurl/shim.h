// curl_easy_setopt and curl_easy_getinfo are variadic: one typed helper per argument kind.
#ifndef HALO_CCURL_SHIM_H
#define HALO_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode halo_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode halo_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode halo_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode halo_curl_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*halo_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode halo_curl_setopt_data_callback(CURL *h, CURLoption o, halo_curl_data_callback cb) { return curl_easy_setopt(h, o, cb); }
typedef int (*halo_curl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode halo_curl_setopt_xferinfo_callback(CURL *h, halo_curl_xferinfo_callback cb) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb); }
static inline CURLcode halo_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode halo_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode halo_curl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
#endif
