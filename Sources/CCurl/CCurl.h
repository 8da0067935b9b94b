// The C surface of libcurl that Swift can call.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; each `ccurl_`
// function below fixes one argument type so the call is well-defined, and exists for that
// reason only.
#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>

typedef size_t (*ccurl_write_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_write_callback(CURL *handle, ccurl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode ccurl_setopt_header_callback(CURL *handle, ccurl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

static inline CURLcode ccurl_setopt_xferinfo_callback(CURL *handle,
                                                      ccurl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// The easy handle and result of a finished transfer, or NULL when no message is waiting.
static inline CURL *ccurl_multi_next_done(CURLM *multi, CURLcode *result) {
    int waiting = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &waiting)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}



#endif
