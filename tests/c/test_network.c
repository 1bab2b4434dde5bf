/* The C API over HTTPS and through a proxy: the emulator serves a leaf from a
 * test root (scripts/tls-fixture.sh), the proxy wants Basic credentials. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iikocloud.h>

#include "harness.h"

static const char *tls_url;
static const char *ca_file;
static const char *proxy_url;
static const char *proxy_password;

static iiko_client_options *options_for(const char *url) {
    iiko_client_options *o = NULL;
    CHECK_STATUS(iiko_client_options_new(&o, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_base_url(o, url, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_v2(o, "emulator-app", "emulator-secret",
                                            "emulator-api-key", NULL),
                 IIKO_STATUS_OK, NULL);
    return o;
}

static iiko_status one_call(const iiko_client_options *o, iiko_error **err) {
    iiko_client *client = NULL;
    iiko_status st = iiko_client_new(o, &client, err);
    if (st != IIKO_STATUS_OK) {
        return st;
    }
    iiko_organizations *orgs = NULL;
    st = iiko_client_organizations(client, NULL, &orgs, err);
    if (st == IIKO_STATUS_OK) {
        CHECK(iiko_organizations_count(orgs) > 0);
    }
    iiko_organizations_free(orgs);
    iiko_client_free(client);
    return st;
}

static void test_unknown_root_is_refused(void) {
    iiko_client_options *o = options_for(tls_url);
    iiko_error *err = NULL;
    CHECK_STATUS(one_call(o, &err), IIKO_STATUS_TRANSPORT_TLS, err);
    CHECK_CONTAINS(iiko_error_message(err), "127.0.0.1: certificate issued by an unknown authority");
    CHECK_CONTAINS(iiko_error_message(err), "ca_file");
    iiko_error_free(err);
    iiko_client_options_free(o);
}

/* Without ca_file, the system's store decides: it knows the test root only
 * when the test run put it there (IIKO_TLS_SYSTEM_TRUSTS_ROOT=1: SSL_CERT_FILE
 * names it, or scripts/wine-test.sh added it to the Windows certificate
 * store), and the roots are read once per process, so each setting is its own
 * run. */
static void test_system_store(void) {
    const char *trusts = getenv("IIKO_TLS_SYSTEM_TRUSTS_ROOT");
    iiko_client_options *o = options_for(tls_url);
    CHECK_STATUS(iiko_client_options_set_trust_roots(o, IIKO_TRUST_SYSTEM, NULL), IIKO_STATUS_OK,
                 NULL);
    iiko_error *err = NULL;
    if (trusts != NULL && strcmp(trusts, "1") == 0) {
        CHECK_STATUS(one_call(o, &err), IIKO_STATUS_OK, err);
    } else {
        CHECK_STATUS(one_call(o, &err), IIKO_STATUS_TRANSPORT_TLS, err);
        CHECK_CONTAINS(iiko_error_message(err), "unknown authority");
    }
    iiko_error_free(err);
    iiko_client_options_free(o);
}

static void test_ca_file_and_proxy(void) {
    iiko_client_options *o = options_for(tls_url);
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_options_set_ca_file(o, ca_file, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_proxy(o, proxy_url, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(one_call(o, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    iiko_client_options_free(o);
}

static void test_wrong_proxy_password(void) {
    /* The same proxy URL with another password. */
    char wrong[512];
    const char *at = strrchr(proxy_url, '@');
    CHECK(at != NULL && strlen(proxy_url) < 400);
    snprintf(wrong, sizeof wrong, "http://till:not-the-password%s", at ? at : "@x");
    iiko_client_options *o = options_for(tls_url);
    CHECK_STATUS(iiko_client_options_set_ca_file(o, ca_file, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_proxy(o, wrong, NULL), IIKO_STATUS_OK, NULL);
    iiko_error *err = NULL;
    CHECK_STATUS(one_call(o, &err), IIKO_STATUS_TRANSPORT_PROXY, err);
    CHECK_CONTAINS(iiko_error_message(err), "407");
    CHECK(strstr(iiko_error_message(err), "not-the-password") == NULL);
    CHECK(strstr(iiko_error_message(err), proxy_password) == NULL);
    CHECK_STR(iiko_status_str(IIKO_STATUS_TRANSPORT_PROXY),
              "IIKO_STATUS_TRANSPORT_PROXY: the proxy refused or could not be reached");
    iiko_error_free(err);
    iiko_client_options_free(o);
}

static void test_bad_trust_options(void) {
    iiko_client_options *o = options_for(tls_url);
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_options_set_trust_roots(o, 7, &err), IIKO_STATUS_INVALID_ARGUMENT, err);
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_options_set_ca_file(o, NULL, &err), IIKO_STATUS_NULL_ARGUMENT, err);
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_options_set_trust_roots(o, IIKO_TRUST_BUNDLED, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK_STATUS(iiko_client_options_set_ca_file(o, "/nonexistent/root.pem", NULL), IIKO_STATUS_OK,
                 NULL);
    iiko_client *client = NULL;
    CHECK_STATUS(iiko_client_new(o, &client, &err), IIKO_STATUS_INVALID_CONFIG, err);
    CHECK_CONTAINS(iiko_error_message(err), "cannot be read");
    CHECK(client == NULL);
    iiko_error_free(err);
    iiko_client_options_free(o);
}

static const test_case cases[] = {
    {"unknown_root_is_refused", test_unknown_root_is_refused},
    {"system_store", test_system_store},
    {"ca_file_and_proxy", test_ca_file_and_proxy},
    {"wrong_proxy_password", test_wrong_proxy_password},
    {"bad_trust_options", test_bad_trust_options},
};

int main(int argc, char **argv) {
    tls_url = getenv("IIKO_TLS_BASE_URL");
    ca_file = getenv("IIKO_TLS_CA_FILE");
    proxy_url = getenv("IIKO_TLS_PROXY_URL");
    proxy_password = getenv("IIKO_TLS_PROXY_PASSWORD");
    if (tls_url == NULL || ca_file == NULL || proxy_url == NULL || proxy_password == NULL) {
        fprintf(stderr, "run from scripts/c-test.sh (it sets IIKO_TLS_*)\n");
        return 2;
    }
    return run_cases(cases, sizeof cases / sizeof cases[0], "test_network", argc - 1, argv + 1);
}
