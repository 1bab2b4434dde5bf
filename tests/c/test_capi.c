/* Tests of the C API (include/iikocloud.h) against a running emulator.
 *
 * Environment: IIKO_BASE_URL (the emulator, e.g. http://127.0.0.1:8080),
 * IIKO_VECTORS (directory of the shared webhook bodies), IIKO_EXPECTED_VERSION
 * (the version in Cargo.toml). Arguments: optional name filters.
 *
 * Built with -Wall -Wextra -Werror and run natively, under valgrind and under
 * ASan/UBSan by scripts/c-test.sh. */
#define _DEFAULT_SOURCE /* mkdtemp, getline, DIR */
#define _POSIX_C_SOURCE 200809L

#include "iikocloud.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "portable.h"
#include "test_hooks.h"

#define ORG_CENTRAL "441e1320-3f58-4702-9f9e-aa34cdef9c04"
#define ORG_NORTH "a0c4696d-b51f-48b3-83c1-586ddfaf4a42"

static const char *base_url;
static const char *vectors_dir;

/* A sentinel that out-parameters must keep when a call fails. */
static char sentinel_byte;
#define SENTINEL ((void *)&sentinel_byte)

/* ---- helpers ---- */

static iiko_client_options *emulator_options(void) {
    iiko_client_options *options = NULL;
    CHECK_STATUS(iiko_client_options_new(&options, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_v2(options, "emulator-app", "emulator-secret",
                                            "emulator-api-key", NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_base_url(options, base_url, NULL), IIKO_STATUS_OK, NULL);
    /* Fast failures: no retry backoff to wait for in the error tests. */
    CHECK_STATUS(iiko_client_options_set_retries(options, 0, 10, NULL), IIKO_STATUS_OK, NULL);
    return options;
}

static iiko_client *emulator_client(void) {
    iiko_client_options *options = emulator_options();
    iiko_client *client = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    iiko_client_options_free(options);
    return client;
}

/* Sends a control request to the emulator through the raw call. */
static void emulator_control(iiko_client *client, const char *path, const char *body) {
    char *answer = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_call(client, path, body, 0, 0, &answer, &err), IIKO_STATUS_OK, err);
    CHECK_CONTAINS(answer, "\"ok\":true");
    iiko_string_free(answer);
    iiko_error_free(err);
}

static void arm_fault(iiko_client *client, const char *fault_json) {
    emulator_control(client, "/_emulator/faults", fault_json);
}

/* ---- version, status, panic ---- */

static void test_version(void) {
    const char *expected = getenv("IIKO_EXPECTED_VERSION");
    CHECK(expected != NULL);
    CHECK_STR(iiko_version(), IIKO_VERSION_STRING);
    if (expected != NULL) {
        CHECK_STR(iiko_version(), expected);
    }
    char macros[64];
    snprintf(macros, sizeof macros, "%d.%d.%d", IIKO_VERSION_MAJOR, IIKO_VERSION_MINOR,
             IIKO_VERSION_PATCH);
    CHECK_STR(macros, IIKO_VERSION_STRING);
    CHECK(IIKO_VERSION_NUMBER ==
          IIKO_VERSION_MAJOR * 1000000 + IIKO_VERSION_MINOR * 1000 + IIKO_VERSION_PATCH);
    int major = -1, minor = -1, patch = -1;
    CHECK(sscanf(iiko_version(), "%d.%d.%d", &major, &minor, &patch) == 3);
    CHECK(major == IIKO_VERSION_MAJOR && minor == IIKO_VERSION_MINOR &&
          patch == IIKO_VERSION_PATCH);
#if IIKO_VERSION_NUMBER < 1000
#error "IIKO_VERSION_NUMBER must be usable in #if"
#endif
}

static void test_status_str(void) {
    CHECK_CONTAINS(iiko_status_str(IIKO_STATUS_OK), "IIKO_STATUS_OK");
    CHECK_CONTAINS(iiko_status_str(IIKO_STATUS_NULL_ARGUMENT), "NULL");
    CHECK_CONTAINS(iiko_status_str(IIKO_STATUS_API_RATE_LIMITED), "429");
    CHECK_CONTAINS(iiko_status_str(IIKO_STATUS_PANIC), "IIKO_STATUS_PANIC");
    CHECK_CONTAINS(iiko_status_str(-1), "unknown");
    CHECK_CONTAINS(iiko_status_str(INT32_MAX), "unknown");
    CHECK_CONTAINS(iiko_status_str(INT32_MIN), "unknown");
    /* Groups are what the header says. */
    CHECK(iiko_status_group(IIKO_STATUS_NULL_ARGUMENT) == IIKO_STATUS_GROUP_ARGUMENTS);
    CHECK(iiko_status_group(IIKO_STATUS_INVALID_CONFIG) == IIKO_STATUS_GROUP_ARGUMENTS);
    CHECK(iiko_status_group(IIKO_STATUS_TRANSPORT_DNS) == IIKO_STATUS_GROUP_TRANSPORT);
    CHECK(iiko_status_group(IIKO_STATUS_TRANSPORT_PROXY) == IIKO_STATUS_GROUP_TRANSPORT);
    CHECK(iiko_status_group(IIKO_STATUS_API_BAD_REQUEST) == IIKO_STATUS_GROUP_API);
    CHECK(iiko_status_group(IIKO_STATUS_API_DECODE) == IIKO_STATUS_GROUP_API);
    CHECK(iiko_status_group(IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION) == IIKO_STATUS_GROUP_WEBHOOK);
    CHECK(iiko_status_group(IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY) == IIKO_STATUS_GROUP_WEBHOOK);
    CHECK(iiko_status_group(IIKO_STATUS_COMMAND_EXPIRED) == IIKO_STATUS_GROUP_COMMAND);
    CHECK(iiko_status_group(IIKO_STATUS_PANIC) == IIKO_STATUS_GROUP_LIBRARY);
    CHECK(iiko_status_group(IIKO_STATUS_OK) == IIKO_STATUS_GROUP_NONE);
    CHECK(iiko_status_group(403) == IIKO_STATUS_GROUP_NONE); /* an HTTP status is no code */
    /* No code reads as an HTTP status (the old numbering had 401 and 403 for
     * webhook refusals that answer 500 and 401). */
    CHECK(IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH >= 7000 && IIKO_STATUS_COMMAND_FAILED >= 7000);
    CHECK(IIKO_STATUS_NULL_ARGUMENT >= 7000 && IIKO_STATUS_API_BAD_REQUEST >= 7000);
}

static void test_panic_boundary(void) {
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_debug_force_panic(&err), IIKO_STATUS_PANIC, NULL);
    CHECK(err != NULL);
    CHECK(iiko_error_status(err) == IIKO_STATUS_PANIC);
    CHECK_CONTAINS(iiko_error_message(err), "panic");
    iiko_error_free(err);
    /* Without an error out-parameter too. */
    CHECK_STATUS(iiko_debug_force_panic(NULL), IIKO_STATUS_PANIC, NULL);
}

/* ---- NULL and bad arguments ---- */

static void test_null_arguments(void) {
    iiko_error *err = NULL;
    iiko_client_options *options = SENTINEL;
    iiko_client *client = SENTINEL;

    CHECK_STATUS(iiko_client_options_new(NULL, &err), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(err != NULL && iiko_error_status(err) == IIKO_STATUS_NULL_ARGUMENT);
    CHECK_CONTAINS(iiko_error_message(err), "options_out");
    CHECK(iiko_error_http_status(err) == 0);
    CHECK(iiko_error_correlation_id(err) == NULL);
    iiko_error_free(err);
    err = NULL;

    CHECK_STATUS(iiko_client_new(NULL, &client, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(client == SENTINEL);
    CHECK_STATUS(iiko_client_options_set_v2(NULL, "a", "b", "c", NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_options_set_api_login(NULL, "a", NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_options_set_base_url(NULL, "http://x", NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_options_set_timeout_ms(NULL, 1000, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_options_set_client_timeout_ms(NULL, 1000, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_options_set_retries(NULL, 1, 1, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_options_set_token_cache(NULL, 1, 1, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_options_set_max_response_bytes(NULL, 1, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);

    CHECK_STATUS(iiko_client_options_new(&options, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_v2(options, NULL, "b", "c", &err),
                 IIKO_STATUS_NULL_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "app_id");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_options_set_v2(options, "a", NULL, "c", NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_options_set_v2(options, "a", "b", NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_options_set_api_login(options, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_options_set_base_url(options, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_new(options, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    iiko_client_options_free(options);

    /* Calls on a NULL client, and NULL out-parameters on a real one. */
    char *json = SENTINEL;
    iiko_organizations *orgs = SENTINEL;
    int64_t expires = 42;
    CHECK_STATUS(iiko_client_access_token(NULL, &json, &expires, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK(json == SENTINEL && expires == 42);
    CHECK_STATUS(iiko_client_organizations(NULL, NULL, &orgs, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK(orgs == SENTINEL);
    CHECK_STATUS(iiko_client_webhook_settings(NULL, ORG_CENTRAL, &json, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_update_webhook_settings(NULL, "{}", &json, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_stop_lists(NULL, "{}", &json, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_call(NULL, "/api/1/x", "{}", 0, 0, &json, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(json == SENTINEL);

    client = emulator_client();
    CHECK_STATUS(iiko_client_access_token(client, NULL, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_organizations(client, NULL, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_webhook_settings(client, NULL, &json, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_webhook_settings(client, ORG_CENTRAL, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_update_webhook_settings(client, NULL, &json, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_stop_lists(client, NULL, &json, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_stop_lists(client, "{\"organizationIds\":[]}", NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_call(client, NULL, "{}", 0, 0, &json, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_call(client, "/api/1/x", "{}", 0, 0, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(json == SENTINEL);
    iiko_client_free(client);

    /* Accessors and frees accept NULL. */
    CHECK(iiko_error_status(NULL) == IIKO_STATUS_NULL_ARGUMENT);
    CHECK(iiko_error_message(NULL) == NULL);
    CHECK(iiko_error_http_status(NULL) == 0);
    CHECK(iiko_error_description(NULL) == NULL);
    CHECK(iiko_error_api_code(NULL) == NULL);
    CHECK(iiko_error_correlation_id(NULL) == NULL);
    CHECK(iiko_error_path(NULL) == NULL);
    CHECK(iiko_error_retry_after_s(NULL) == -1);
    size_t len = 7;
    CHECK(iiko_error_body(NULL, &len) == NULL && len == 7);
    CHECK(iiko_organizations_count(NULL) == 0);
    CHECK(iiko_organizations_id(NULL, 0) == NULL);
    CHECK(iiko_organizations_name(NULL, 0) == NULL);
    CHECK(iiko_organizations_json(NULL) == NULL);
    iiko_error_free(NULL);
    iiko_string_free(NULL);
    iiko_client_free(NULL);
    iiko_client_options_free(NULL);
    iiko_organizations_free(NULL);
}

static void test_bad_configuration(void) {
    iiko_client_options *options = NULL;
    iiko_client *client = SENTINEL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_options_new(&options, NULL), IIKO_STATUS_OK, NULL);

    /* No credentials yet. */
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_INVALID_CONFIG, err);
    CHECK(client == SENTINEL);
    CHECK_CONTAINS(iiko_error_message(err), "credentials");
    iiko_error_free(err);
    err = NULL;

    /* Invalid UTF-8 is refused by the setter; the message names the argument, not the value. */
    CHECK_STATUS(iiko_client_options_set_v2(options, "app", "sec\xff\xferet", "key", &err),
                 IIKO_STATUS_INVALID_UTF8, err);
    CHECK_CONTAINS(iiko_error_message(err), "client_secret");
    iiko_error_free(err);
    err = NULL;

    /* Empty secret: refused at creation, without echoing secrets. */
    CHECK_STATUS(iiko_client_options_set_v2(options, "app", " ", "top-secret-key", NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_INVALID_CONFIG, err);
    CHECK_CONTAINS(iiko_error_message(err), "clientSecret");
    CHECK(strstr(iiko_error_message(err), "top-secret-key") == NULL);
    iiko_error_free(err);
    err = NULL;

    CHECK_STATUS(iiko_client_options_set_api_login(options, "login", NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_base_url(options, "ftp://example.com", NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_INVALID_CONFIG, err);
    CHECK_CONTAINS(iiko_error_message(err), "https://");
    iiko_error_free(err);
    err = NULL;

    CHECK_STATUS(iiko_client_options_set_base_url(options, "http://127.0.0.1:1", NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_timeout_ms(options, 10, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_INVALID_CONFIG, NULL);
    CHECK_STATUS(iiko_client_options_set_timeout_ms(options, 15000, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_client_timeout_ms(options, 15000, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_INVALID_CONFIG, err);
    CHECK_CONTAINS(iiko_error_message(err), "longer than the Timeout header");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_options_set_client_timeout_ms(options, 20000, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK_STATUS(iiko_client_options_set_max_response_bytes(options, 0, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_INVALID_CONFIG, NULL);
    CHECK(client == SENTINEL);

    /* Fixed, the same options build a client; the options can go first. */
    CHECK_STATUS(iiko_client_options_set_max_response_bytes(options, 1 << 20, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_token_cache(options, 30000, 600000, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_OK, err);
    iiko_client_options_free(options);
    CHECK(client != NULL && client != SENTINEL);
    if (client != SENTINEL) {
        iiko_client_free(client);
    }
}

/* ---- calls ---- */

static void test_access_token(void) {
    iiko_client *client = emulator_client();
    char *token = NULL;
    int64_t expires_ms = 0;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_access_token(client, &token, &expires_ms, &err), IIKO_STATUS_OK, err);
    CHECK(token != NULL && strlen(token) > 10);
    CHECK(expires_ms > (int64_t)time(NULL) * 1000);
    /* The cached token is returned again; the expiry pointer is optional. */
    char *again = NULL;
    CHECK_STATUS(iiko_client_access_token(client, &again, NULL, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STR(again, token);
    iiko_string_free(token);
    iiko_string_free(again);
    iiko_client_free(client);

    /* The legacy apiLogin flow with a login the emulator does not know. */
    iiko_client_options *options = emulator_options();
    CHECK_STATUS(iiko_client_options_set_api_login(options, "no-such-login", NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_OK, NULL);
    iiko_client_options_free(options);
    token = SENTINEL;
    CHECK(iiko_status_group(iiko_client_access_token(client, &token, NULL, &err)) == IIKO_STATUS_GROUP_API);
    CHECK(token == SENTINEL);
    CHECK(iiko_error_http_status(err) >= 400);
    CHECK(iiko_error_correlation_id(err) != NULL);
    CHECK(strstr(iiko_error_message(err), "no-such-login") == NULL);
    iiko_error_free(err);
    iiko_client_free(client);
}

/* Two clients (as two PHP-FPM workers would) share one token through the
 * token cache directory. */
static void test_token_cache_dir(void) {
    char dir[512];
    CHECK(test_temp_dir(dir, sizeof dir, "iiko-c-test") != NULL);
    char tokens[2][512] = {{0}};
    for (int i = 0; i < 2; i++) {
        iiko_client_options *options = emulator_options();
        CHECK_STATUS(iiko_client_options_set_token_cache_dir(options, dir, NULL), IIKO_STATUS_OK,
                     NULL);
        iiko_client *client = NULL;
        CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_OK, NULL);
        iiko_client_options_free(options);
        char *token = NULL;
        iiko_error *err = NULL;
        CHECK_STATUS(iiko_client_access_token(client, &token, NULL, &err), IIKO_STATUS_OK, err);
        iiko_error_free(err);
        if (token != NULL) {
            snprintf(tokens[i], sizeof tokens[i], "%s", token);
        }
        iiko_string_free(token);
        iiko_client_free(client);
    }
    CHECK(tokens[0][0] != '\0');
    CHECK_STR(tokens[1], tokens[0]);

    /* The directory holds the token file; remove it and the directory. */
    int files = 0;
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    struct dirent *entry;
    while (d != NULL && (entry = readdir(d)) != NULL) {
        files += entry->d_name[0] != '.';
    }
    if (d != NULL) {
        closedir(d);
    }
    CHECK(files >= 1);
    CHECK(test_remove_dir(dir) == 0);

    iiko_client_options *options = NULL;
    CHECK_STATUS(iiko_client_options_new(&options, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_token_cache_dir(options, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_options_set_token_cache_dir(NULL, "/tmp", NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    iiko_client_options_free(options);
}

static void test_wrong_credentials(void) {
    iiko_client_options *options = emulator_options();
    CHECK_STATUS(iiko_client_options_set_v2(options, "emulator-app", "wrong-secret",
                                            "emulator-api-key", NULL),
                 IIKO_STATUS_OK, NULL);
    iiko_client *client = NULL;
    CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_OK, NULL);
    iiko_client_options_free(options);
    iiko_organizations *orgs = SENTINEL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err),
                 IIKO_STATUS_API_UNAUTHORIZED, err);
    CHECK(orgs == SENTINEL);
    CHECK(iiko_error_status(err) == IIKO_STATUS_API_UNAUTHORIZED);
    CHECK(iiko_error_http_status(err) == 401);
    CHECK(iiko_error_correlation_id(err) != NULL);
    CHECK(strstr(iiko_error_message(err), "wrong-secret") == NULL);
    iiko_error_free(err);
    iiko_client_free(client);
}

static void test_organizations(void) {
    iiko_client *client = emulator_client();
    iiko_organizations *orgs = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err), IIKO_STATUS_OK, err);
    /* The third organization of the emulator is disabled. */
    CHECK(iiko_organizations_count(orgs) == 2);
    int found = 0;
    for (size_t i = 0; i < iiko_organizations_count(orgs); i++) {
        CHECK(iiko_organizations_id(orgs, i) != NULL);
        if (strcmp(iiko_organizations_id(orgs, i), ORG_CENTRAL) == 0) {
            CHECK_STR(iiko_organizations_name(orgs, i), "Emulator Pizza (Central)");
            found = 1;
        }
    }
    CHECK(found);
    CHECK(iiko_organizations_id(orgs, 2) == NULL);
    CHECK(iiko_organizations_name(orgs, 2) == NULL);
    CHECK(iiko_organizations_id(orgs, SIZE_MAX) == NULL);
    CHECK_CONTAINS(iiko_organizations_json(orgs), "\"organizations\":[");
    CHECK_CONTAINS(iiko_organizations_json(orgs), "\"correlationId\"");
    iiko_organizations_free(orgs);

    orgs = NULL;
    CHECK_STATUS(iiko_client_organizations(client, "{\"includeDisabled\":true}", &orgs, &err),
                 IIKO_STATUS_OK, err);
    CHECK(iiko_organizations_count(orgs) == 3);
    iiko_organizations_free(orgs);

    /* A filtered, Extended request: the JSON carries the extended fields. */
    orgs = NULL;
    CHECK_STATUS(iiko_client_organizations(
                     client,
                     "{\"organizationIds\":[\"" ORG_NORTH "\"],\"returnAdditionalInfo\":true}",
                     &orgs, &err),
                 IIKO_STATUS_OK, err);
    CHECK(iiko_organizations_count(orgs) == 1);
    CHECK_STR(iiko_organizations_id(orgs, 0), ORG_NORTH);
    CHECK_CONTAINS(iiko_organizations_json(orgs), "\"responseType\":\"Extended\"");
    iiko_organizations_free(orgs);
    iiko_client_free(client);
}

static void test_bad_json_arguments(void) {
    iiko_client *client = emulator_client();
    iiko_organizations *orgs = SENTINEL;
    iiko_error *err = NULL;
    char *json = SENTINEL;

    CHECK_STATUS(iiko_client_organizations(client, "not json", &orgs, &err),
                 IIKO_STATUS_INVALID_JSON, err);
    CHECK_CONTAINS(iiko_error_message(err), "request_json");
    iiko_error_free(err);
    err = NULL;
    /* The generated operation's checks: a key that is no field is refused with
       the nearest field, before anything is sent. */
    CHECK_STATUS(iiko_client_organizations(client, "{\"organisationIds\":[]}", &orgs, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "organisationIds");
    CHECK_CONTAINS(iiko_error_message(err), "did you mean organizationIds");
    iiko_error_free(err);
    err = NULL;
    /* A string where a list belongs: refused, and its value kept out of the message. */
    CHECK_STATUS(iiko_client_organizations(client, "{\"organizationIds\":\"top-secret\"}", &orgs,
                                           &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK(strstr(iiko_error_message(err), "top-secret") == NULL);
    iiko_error_free(err);
    err = NULL;
    /* JSON, but no object: the generated operation refuses it as it refuses a bad field. */
    CHECK_STATUS(iiko_client_organizations(client, "[1,2]", &orgs, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_organizations(client, "{\"organizationIds\":[\"\xc3\x28\"]}", &orgs,
                                           NULL),
                 IIKO_STATUS_INVALID_UTF8, NULL);
    CHECK_STATUS(iiko_client_organizations(client, "{\"organizationIds\":[\"not-a-uuid\"]}", &orgs,
                                           &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "UUID");
    iiko_error_free(err);
    err = NULL;
    CHECK(orgs == SENTINEL);

    CHECK_STATUS(iiko_client_stop_lists(client, "{}", &json, &err), IIKO_STATUS_INVALID_ARGUMENT,
                 err);
    CHECK_CONTAINS(iiko_error_message(err), "organizationIds");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_stop_lists(client, "{\"organizationIds\":[]}", &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "organizationIds");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_update_webhook_settings(
                     client, "{\"organizationId\":\"" ORG_CENTRAL "\",\"webHooksUri\":\"/rel\"}",
                     &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "webHooksUri");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_webhook_settings(client, "nope", &json, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_call(client, "api/1/no-slash", "{}", 0, 0, &json, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_call(client, "/api/1/x", "[]", 0, 0, &json, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_call(client, "/api/1/x", "{", 0, 0, &json, NULL),
                 IIKO_STATUS_INVALID_JSON, NULL);
    CHECK_STATUS(iiko_client_call(client, "/api/1/x", "{}", 0, 0x80, &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "flags");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_call(client, "/api/1/x", "{}", 1, 0, &json, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK(json == SENTINEL);
    iiko_client_free(client);
}

static void test_webhook_settings(void) {
    iiko_client *client = emulator_client();
    char *json = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(
        iiko_client_update_webhook_settings(
            client,
            "{\"organizationId\":\"" ORG_CENTRAL "\",\"webHooksUri\":\"http://127.0.0.1:9/hook\","
            "\"authToken\":\"c-test-token\",\"webHooksFilter\":{\"deliveryOrderFilter\":"
            "{\"orderStatuses\":[\"Unconfirmed\",\"CookingStarted\"],\"errors\":true}}}",
            &json, &err),
        IIKO_STATUS_OK, err);
    CHECK_CONTAINS(json, "correlationId");
    iiko_string_free(json);
    json = NULL;
    /* The answer JSON is optional. */
    CHECK_STATUS(iiko_client_update_webhook_settings(
                     client,
                     "{\"organizationId\":\"" ORG_NORTH
                     "\",\"webHooksUri\":\"https://pos.example/h\"}",
                     NULL, &err),
                 IIKO_STATUS_OK, err);

    CHECK_STATUS(iiko_client_webhook_settings(client, ORG_CENTRAL, &json, &err), IIKO_STATUS_OK,
                 err);
    CHECK_CONTAINS(json, "\"webHooksUri\":\"http://127.0.0.1:9/hook\"");
    /* The full answer: the stored token comes back whole. */
    CHECK_CONTAINS(json, "\"authToken\":\"c-test-token\"");
    CHECK_CONTAINS(json, "CookingStarted");
    iiko_string_free(json);
    iiko_client_free(client);
}

static void test_stop_lists(void) {
    iiko_client *client = emulator_client();
    char *json = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_stop_lists(client,
                                        "{\"organizationIds\":[\"" ORG_CENTRAL
                                        "\"],\"returnSize\":true}",
                                        &json, &err),
                 IIKO_STATUS_OK, err);
    CHECK_CONTAINS(json, "\"terminalGroupStopLists\":[");
    iiko_string_free(json);
    iiko_client_free(client);
}

static void test_raw_call(void) {
    iiko_client *client = emulator_client();
    char *json = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_call(client, "/api/1/organizations", NULL, 5000, IIKO_CALL_IDEMPOTENT,
                                  &json, &err),
                 IIKO_STATUS_OK, err);
    CHECK_CONTAINS(json, ORG_CENTRAL);
    iiko_string_free(json);
    json = NULL;

    /* A 400 answer with its description, code and correlationId. */
    CHECK_STATUS(iiko_client_call(client, "/api/1/stop_lists", "{}", 0, 0, &json, &err),
                 IIKO_STATUS_API_BAD_REQUEST, err);
    CHECK(json == NULL);
    CHECK(iiko_error_http_status(err) == 400);
    CHECK_CONTAINS(iiko_error_description(err), "organizationIds");
    CHECK(iiko_error_api_code(err) != NULL);
    CHECK(iiko_error_correlation_id(err) != NULL && strlen(iiko_error_correlation_id(err)) == 36);
    CHECK_CONTAINS(iiko_error_message(err), iiko_error_correlation_id(err));
    CHECK_STR(iiko_error_path(err), "/api/1/stop_lists");
    size_t len = 0;
    const uint8_t *body = iiko_error_body(err, &len);
    CHECK(body != NULL && len > 0);
    CHECK(iiko_error_body(err, NULL) == NULL);
    iiko_error_free(err);
    err = NULL;

    /* A path the service does not have. */
    CHECK(iiko_status_group(iiko_client_call(client, "/api/1/no_such_endpoint", "{}", 0, 0, &json, &err)) == IIKO_STATUS_GROUP_API);
    CHECK(iiko_error_http_status(err) == 404);
    iiko_error_free(err);
    iiko_client_free(client);
}

/* ---- errors from injected faults ---- */

static void test_errors_with_correlation_id(void) {
    iiko_client *client = emulator_client();
    iiko_organizations *orgs = SENTINEL;
    iiko_error *err = NULL;

    arm_fault(client, "{\"kind\":\"status\",\"status\":503,\"path\":\"/api/1/organizations\"}");
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err), IIKO_STATUS_API_SERVER,
                 err);
    CHECK(iiko_error_http_status(err) == 503);
    CHECK(iiko_error_correlation_id(err) != NULL);
    CHECK(iiko_error_retry_after_s(err) == -1);
    iiko_error_free(err);
    err = NULL;

    arm_fault(client,
              "{\"kind\":\"rate_limited\",\"retryAfter\":7,\"path\":\"/api/1/organizations\"}");
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err),
                 IIKO_STATUS_API_RATE_LIMITED, err);
    CHECK(iiko_error_http_status(err) == 429);
    CHECK(iiko_error_retry_after_s(err) == 7);
    CHECK(iiko_error_correlation_id(err) != NULL);
    iiko_error_free(err);
    err = NULL;

    arm_fault(client, "{\"kind\":\"malformed_body\",\"path\":\"/api/1/organizations\"}");
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err), IIKO_STATUS_API_DECODE,
                 err);
    CHECK(iiko_error_http_status(err) == 200);
    size_t len = 0;
    CHECK(iiko_error_body(err, &len) != NULL && len > 0);
    iiko_error_free(err);
    err = NULL;

    arm_fault(client, "{\"kind\":\"connection_reset\",\"path\":\"/api/1/organizations\"}");
    CHECK(iiko_status_group(iiko_client_organizations(client, NULL, &orgs, &err)) == IIKO_STATUS_GROUP_TRANSPORT);
    CHECK(iiko_error_http_status(err) == 0);
    CHECK(iiko_error_correlation_id(err) == NULL);
    iiko_error_free(err);
    err = NULL;
    CHECK(orgs == SENTINEL);

    /* A retried safe call survives one 5xx. */
    iiko_client_options *options = emulator_options();
    CHECK_STATUS(iiko_client_options_set_retries(options, 2, 1, NULL), IIKO_STATUS_OK, NULL);
    iiko_client *retrying = NULL;
    CHECK_STATUS(iiko_client_new(options, &retrying, NULL), IIKO_STATUS_OK, NULL);
    iiko_client_options_free(options);
    arm_fault(client, "{\"kind\":\"status\",\"status\":502,\"path\":\"/api/1/organizations\"}");
    orgs = NULL;
    CHECK_STATUS(iiko_client_organizations(retrying, NULL, &orgs, &err), IIKO_STATUS_OK, err);
    iiko_organizations_free(orgs);
    iiko_client_free(retrying);
    iiko_client_free(client);
}

static void test_transport_errors(void) {
    iiko_client_options *options = emulator_options();
    CHECK_STATUS(iiko_client_options_set_base_url(options, "http://127.0.0.1:1", NULL),
                 IIKO_STATUS_OK, NULL);
    iiko_client *client = NULL;
    CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_OK, NULL);
    char *token = SENTINEL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_access_token(client, &token, NULL, &err),
                 IIKO_STATUS_TRANSPORT_CONNECT, err);
    CHECK(token == SENTINEL);
    CHECK_CONTAINS(iiko_error_message(err), "connect");
    CHECK_STR(iiko_error_path(err), "/api/v2/access_token");
    iiko_error_free(err);
    err = NULL;
    iiko_client_free(client);

    /* A client timeout: the Timeout header is 1 s, the client waits 1.3 s, the
     * emulator answers after 3 s. */
    CHECK_STATUS(iiko_client_options_set_base_url(options, base_url, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_timeout_ms(options, 1000, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_client_timeout_ms(options, 1300, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_OK, NULL);
    iiko_client_options_free(options);
    char *json = NULL;
    CHECK_STATUS(iiko_client_access_token(client, &json, NULL, NULL), IIKO_STATUS_OK, NULL);
    iiko_string_free(json);
    json = SENTINEL;
    arm_fault(client, "{\"kind\":\"delay\",\"ms\":3000,\"path\":\"/api/1/stop_lists\"}");
    CHECK_STATUS(iiko_client_stop_lists(client, "{\"organizationIds\":[\"" ORG_CENTRAL "\"]}",
                                        &json, &err),
                 IIKO_STATUS_TRANSPORT_TIMEOUT, err);
    CHECK(json == SENTINEL);
    iiko_error_free(err);
    iiko_client_free(client);
}

static void test_large_bodies(void) {
    iiko_client *client = emulator_client();
    /* A 4 MiB request body: a JSON object with one long string. */
    const char *head = "{\"organizationIds\":[\"" ORG_CENTRAL "\"],\"padding\":\"";
    size_t used = strlen(head);
    size_t n = (size_t)4 << 20;
    char *big = malloc(used + n + 3);
    CHECK(big != NULL);
    if (big == NULL) {
        iiko_client_free(client);
        return;
    }
    memcpy(big, head, used);
    memset(big + used, 'x', n);
    strcpy(big + used + n, "\"}");
    char *json = NULL;
    iiko_error *err = NULL;
    iiko_status st = iiko_client_call(client, "/api/1/stop_lists", big, 0, 0, &json, &err);
    /* The emulator may refuse the size, but the call must end in a status, not a crash. */
    CHECK(st == IIKO_STATUS_OK || iiko_status_group(st) == IIKO_STATUS_GROUP_API || iiko_status_group(st) == IIKO_STATUS_GROUP_TRANSPORT);
    iiko_string_free(json);
    iiko_error_free(err);
    err = NULL;
    json = NULL;

    /* An answer over max_response_bytes is a transport error. */
    iiko_client_options *options = emulator_options();
    CHECK_STATUS(iiko_client_options_set_max_response_bytes(options, 64, NULL), IIKO_STATUS_OK,
                 NULL);
    iiko_client *small = NULL;
    CHECK_STATUS(iiko_client_new(options, &small, NULL), IIKO_STATUS_OK, NULL);
    iiko_client_options_free(options);
    iiko_organizations *orgs = SENTINEL;
    /* The token answer is larger than 64 bytes already. */
    CHECK_STATUS(iiko_client_organizations(small, NULL, &orgs, &err),
                 IIKO_STATUS_TRANSPORT_OTHER, err);
    CHECK_CONTAINS(iiko_error_message(err), "max_response_bytes");
    CHECK(orgs == SENTINEL);
    iiko_error_free(err);
    iiko_client_free(small);
    free(big);
    iiko_client_free(client);
}

/* ---- threads ---- */

#define THREADS 8
#define CALLS_PER_THREAD 4

typedef struct {
    const iiko_client *client;
    int ok;
} thread_arg;

static void *thread_main(void *p) {
    thread_arg *arg = p;
    for (int i = 0; i < CALLS_PER_THREAD; i++) {
        iiko_organizations *orgs = NULL;
        iiko_error *err = NULL;
        if (iiko_client_organizations(arg->client, NULL, &orgs, &err) == IIKO_STATUS_OK &&
            iiko_organizations_count(orgs) == 2) {
            arg->ok++;
        } else {
            fprintf(stderr, "  thread call failed: %s\n", iiko_error_message(err));
        }
        iiko_organizations_free(orgs);
        iiko_error_free(err);
    }
    return NULL;
}

static void test_threads_share_one_client(void) {
    iiko_client *client = emulator_client();
    pthread_t threads[THREADS];
    thread_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i].client = client;
        args[i].ok = 0;
        CHECK(pthread_create(&threads[i], NULL, thread_main, &args[i]) == 0);
    }
    int ok = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ok += args[i].ok;
    }
    CHECK(ok == THREADS * CALLS_PER_THREAD);
    iiko_client_free(client);
}


/* ---- webhooks ---- */

static unsigned char *read_vector_file(const char *relative, size_t *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", vectors_dir, relative);
    unsigned char *data = read_file(path, len);
    if (data == NULL) {
        fprintf(stderr, "  cannot read %s\n", path);
    }
    return data;
}

static iiko_events *parse_file(const char *relative) {
    size_t len = 0;
    unsigned char *body = read_vector_file(relative, &len);
    iiko_events *events = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_webhook_parse((const char *)body, len, 0, 0, 0, &events, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    free(body);
    return events;
}

/* Decodes base64 (standard alphabet, padded) into a new NUL-terminated buffer. */
static unsigned char *b64_decode(const char *in, size_t *len_out) {
    size_t n = strlen(in);
    unsigned char *out = malloc(n / 4 * 3 + 4);
    size_t len = 0;
    unsigned int acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && in[i] != '='; i++) {
        const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *p = strchr(alphabet, in[i]);
        if (p == NULL || *p == '\0') {
            continue;
        }
        acc = (acc << 6) | (unsigned int)(p - alphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[len++] = (unsigned char)((acc >> bits) & 0xff);
        }
    }
    out[len] = '\0';
    *len_out = len;
    return out;
}

/* Splits a tab-separated line in place, keeping empty fields. */
static int split_tabs(char *line, char **fields, int max) {
    int n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (tab == NULL) {
            break;
        }
        *tab = '\0';
        p = tab + 1;
    }
    char *nl = strchr(fields[n - 1], '\n');
    if (nl != NULL) {
        *nl = '\0';
    }
    return n;
}

static iiko_status verify_error_status(const char *name) {
    if (strcmp(name, "ok") == 0) return IIKO_STATUS_OK;
    if (strcmp(name, "missing_header") == 0) return IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION;
    if (strcmp(name, "empty_expected_token") == 0) return IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN;
    if (strcmp(name, "malformed_header") == 0) return IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION;
    if (strcmp(name, "mismatch") == 0) return IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH;
    return -1;
}

static iiko_status parse_outcome_status(const char *name) {
    if (strcmp(name, "ok") == 0) return IIKO_STATUS_OK;
    if (strcmp(name, "too_large") == 0) return IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE;
    if (strcmp(name, "invalid_utf8") == 0) return IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8;
    if (strcmp(name, "too_deep") == 0) return IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP;
    if (strcmp(name, "invalid_json") == 0) return IIKO_STATUS_WEBHOOK_BODY_NOT_JSON;
    if (strcmp(name, "not_an_array") == 0) return IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY;
    return -1;
}

static iiko_status receive_outcome_status(const char *name) {
    if (strncmp(name, "unauthorized:", 13) == 0) return verify_error_status(name + 13);
    if (strncmp(name, "unparseable:", 12) == 0) return parse_outcome_status(name + 12);
    return parse_outcome_status(name);
}

/* Loads a body given as F:<file> or B:<base64>. */
static unsigned char *vector_body(const char *spec, size_t *len) {
    if (strncmp(spec, "F:", 2) == 0) {
        return read_vector_file(spec + 2, len);
    }
    return b64_decode(spec + 2, len);
}

/* Compares one expected field of event `index` with the C accessors. */
static void check_event_field(const iiko_events *events, size_t index, const char *field,
                              const char *b64value) {
    int is_null = strcmp(b64value, "~") == 0;
    size_t vlen = 0;
    unsigned char *raw = is_null ? NULL : b64_decode(b64value, &vlen);
    const char *want = (const char *)raw;
    struct {
        const char *field;
        const char *(*get)(const iiko_events *, size_t);
    } strings[] = {
        {"event_type", iiko_events_type_name},
        {"event_time", iiko_events_time},
        {"organization_id", iiko_events_organization_id},
        {"correlation_id", iiko_events_correlation_id},
        {"entity_id", iiko_events_entity_id},
        {"order_id", iiko_events_order_id},
        {"creation_status", iiko_events_creation_status},
        {"status", iiko_events_status},
        {"sum", iiko_events_sum},
        {"phone", iiko_events_phone},
        {"error_code", iiko_events_error_code},
        {"error_message", iiko_events_error_message},
        {"dedup_key", iiko_events_dedup_key},
    };
    int handled = 0;
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        if (strcmp(field, strings[i].field) == 0) {
            const char *got = strings[i].get(events, index);
            if (is_null) {
                if (got != NULL) {
                    fprintf(stderr, "  event %zu %s: got \"%s\", wanted NULL\n", index, field, got);
                    harness_failures++;
                }
            } else {
                CHECK_STR(got, want);
            }
            handled = 1;
        }
    }
    struct {
        const char *field;
        int32_t (*get)(const iiko_events *, size_t, int64_t *);
    } numbers[] = {
        {"timestamp", iiko_events_timestamp},
        {"order_number", iiko_events_order_number},
        {"event_time_utc", iiko_events_time_unix_ms},
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        if (strcmp(field, numbers[i].field) == 0) {
            int64_t got = -12345;
            int32_t present = numbers[i].get(events, index, &got);
            if (is_null) {
                CHECK(present == 0 && got == -12345);
            } else {
                CHECK(present == 1);
                CHECK(got == strtoll(want, NULL, 10));
                if (got != strtoll(want, NULL, 10)) {
                    fprintf(stderr, "  event %zu %s: got %lld, wanted %s\n", index, field,
                            (long long)got, want);
                }
            }
            handled = 1;
        }
    }
    if (strcmp(field, "kind_code") == 0) {
        CHECK(iiko_events_type(events, index) == atoi(want));
        handled = 1;
    } else if (strcmp(field, "kind") == 0) {
        int32_t type = iiko_events_type(events, index);
        CHECK(type >= 0 && type <= IIKO_EVENT_LAST);
        CHECK_STR(iiko_event_type_name(type), want);
        handled = 1;
    } else if (strcmp(field, "invalid") == 0) {
        CHECK((iiko_events_problem(events, index) != NULL) == (strcmp(want, "true") == 0));
        handled = 1;
    } else if (strcmp(field, "is_new_order") == 0) {
        CHECK(iiko_events_is_new_delivery_order(events, index) == (strcmp(want, "true") == 0));
        handled = 1;
    } else if (strcmp(field, "sum_text") == 0) {
        /* A sum that is no amount (iiko_events_sum NULL) keeps its text. */
        char *text = NULL;
        iiko_error *err = NULL;
        CHECK_STATUS(iiko_events_field(events, index, IIKO_EVENT_FIELD_ORDER_SUM, &text, &err),
                     IIKO_STATUS_OK, err);
        iiko_error_free(err);
        if (is_null) {
            CHECK(text == NULL);
        } else {
            CHECK_STR(text, want);
        }
        iiko_string_free(text);
        handled = 1;
    } else if (strcmp(field, "event_time_us") == 0) {
        /* C reads eventTime in milliseconds: event_time_utc. */
        handled = 1;
    } else if (strcmp(field, "item_count") == 0 || strcmp(field, "customer_name") == 0 ||
               strcmp(field, "unknown_event_info") == 0) {
        /* Not exposed by the C API: read them from iiko_events_json. */
        CHECK(iiko_events_json(events, index) != NULL);
        handled = 1;
    }
    if (!handled) {
        printf("  note: vector field \"%s\" is not checked by the C test\n", field);
    }
    free(raw);
}

/* One local time of event `index` (a T line): the field's text by its path,
 * and what iiko_local_time_parse makes of it, with nanoseconds. */
static void check_local_time(const iiko_events *events, size_t index, const char *path64,
                             const char *text64, const char *local64) {
    size_t n = 0;
    char *path = (char *)b64_decode(path64, &n);
    char *want_text = strcmp(text64, "~") == 0 ? NULL : (char *)b64_decode(text64, &n);
    char *want_local = strcmp(local64, "~") == 0 ? NULL : (char *)b64_decode(local64, &n);
    iiko_event_field field = iiko_event_field_by_path(path);
    CHECK(field != 0);
    char *text = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_events_field(events, index, field, &text, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    if (want_text == NULL) {
        CHECK(text == NULL);
    } else {
        CHECK_STR(text, want_text);
    }
    iiko_local_time t, untouched;
    memset(&t, 0x5A, sizeof t);
    memcpy(&untouched, &t, sizeof t);
    int32_t parsed = iiko_local_time_parse(text, &t);
    if (want_local == NULL) {
        CHECK(parsed == 0);
        CHECK(memcmp(&t, &untouched, sizeof t) == 0);
    } else {
        CHECK(parsed == 1);
        char got[64];
        snprintf(got, sizeof got, "%04d-%02d-%02dT%02d:%02d:%02d.%09d", (int)t.year, (int)t.month,
                 (int)t.day, (int)t.hour, (int)t.minute, (int)t.second, (int)t.nanosecond);
        CHECK_STR(got, want_local);
    }
    iiko_string_free(text);
    free(path);
    free(want_text);
    free(want_local);
}

static void run_verify_vector(char **f) {
    size_t tok_len = 0, hdr_len = 0;
    unsigned char *token = b64_decode(f[3], &tok_len);
    unsigned char *header = strcmp(f[2], "~") == 0 ? NULL : b64_decode(f[2], &hdr_len);
    iiko_error *err = NULL;
    iiko_status st = iiko_webhook_verify((const char *)token, (const char *)header, hdr_len, &err);
    CHECK_STATUS(st, verify_error_status(f[4]), err);
    if (err != NULL && tok_len >= 4) {
        /* Messages never carry the token. */
        CHECK(strstr(iiko_error_message(err), (const char *)token) == NULL);
    }
    iiko_error_free(err);
    free(token);
    free(header);
}

/* iiko_events_summary gives what the accessors give, for every event of a
 * parsed vector body; and refuses a size set too small. */
static void check_summaries(const iiko_events *events) {
    for (size_t i = 0; i < iiko_events_count(events); i++) {
        iiko_event_summary s;
        memset(&s, 0xA5, sizeof s);
        s.size = sizeof s;
        iiko_error *err = NULL;
        CHECK_STATUS(iiko_events_summary(events, i, &s, &err), IIKO_STATUS_OK, err);
        iiko_error_free(err);
        CHECK(s.size == sizeof s);
        CHECK(s.type_code == iiko_events_type(events, i));
        CHECK(s.is_new_delivery_order == iiko_events_is_new_delivery_order(events, i));
        /* The same borrowed pointers: the strings are built once per handle. */
        CHECK(s.type_name == iiko_events_type_name(events, i));
        CHECK(s.time == iiko_events_time(events, i));
        CHECK(s.organization_id == iiko_events_organization_id(events, i));
        CHECK(s.correlation_id == iiko_events_correlation_id(events, i));
        CHECK(s.problem == iiko_events_problem(events, i));
        CHECK(s.entity_id == iiko_events_entity_id(events, i));
        CHECK(s.order_id == iiko_events_order_id(events, i));
        CHECK(s.creation_status == iiko_events_creation_status(events, i));
        CHECK(s.status == iiko_events_status(events, i));
        CHECK(s.sum == iiko_events_sum(events, i));
        CHECK(s.phone == iiko_events_phone(events, i));
        CHECK(s.error_code == iiko_events_error_code(events, i));
        CHECK(s.error_message == iiko_events_error_message(events, i));
        CHECK(s.dedup_key == iiko_events_dedup_key(events, i));
        CHECK(s.json == iiko_events_json(events, i));
        int64_t v = 0;
        CHECK(s.has_time_unix_ms == iiko_events_time_unix_ms(events, i, &v));
        CHECK(!s.has_time_unix_ms || s.time_unix_ms == v);
        CHECK(s.has_timestamp == iiko_events_timestamp(events, i, &v));
        CHECK(!s.has_timestamp || s.timestamp == v);
        CHECK(s.has_order_number == iiko_events_order_number(events, i, &v));
        CHECK(!s.has_order_number || s.order_number == v);
    }
    iiko_event_summary small;
    small.size = sizeof small - 1;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_events_summary(events, 0, &small, &err), IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK(err != NULL && strstr(iiko_error_message(err), "size") != NULL);
    iiko_error_free(err);
    err = NULL;
    small.size = sizeof small;
    CHECK_STATUS(iiko_events_summary(events, iiko_events_count(events), &small, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_events_summary(events, 0, NULL, &err), IIKO_STATUS_NULL_ARGUMENT, err);
    iiko_error_free(err);
}

/* Runs a parse vector and returns its events (NULL when parsing failed). */
static iiko_events *run_parse_vector(char **f) {
    size_t body_len = 0;
    unsigned char *body = vector_body(f[2], &body_len);
    iiko_events *events = NULL;
    iiko_error *err = NULL;
    iiko_status st = iiko_webhook_parse((const char *)body, body_len, (size_t)atoll(f[3]), (size_t)atoll(f[4]),
                                        (uint32_t)atoi(f[5]), &events, &err);
    CHECK_STATUS(st, parse_outcome_status(f[6]), err);
    if (st == IIKO_STATUS_OK) {
        if (strcmp(f[7], "~") != 0) {
            CHECK(iiko_events_count(events) == (size_t)atoi(f[7]));
        }
        if (strcmp(f[8], "~") != 0) {
            CHECK(iiko_events_single_object(events) == atoi(f[8]));
        }
    } else {
        CHECK(events == NULL);
    }
    iiko_error_free(err);
    free(body);
    return events;
}

static void run_receive_vector(char **f, char ***headers, int nheaders) {
    size_t len = 0;
    unsigned char *token = b64_decode(f[2], &len);
    unsigned char *body = vector_body(f[3], &len);
    size_t body_len = len;
    char **names = calloc((size_t)nheaders + 1, sizeof *names);
    char **values = calloc((size_t)nheaders + 1, sizeof *values);
    for (int h = 0; h < nheaders; h++) {
        names[h] = (char *)b64_decode(headers[h][1], &len);
        values[h] = (char *)b64_decode(headers[h][2], &len);
    }
    iiko_events *events = NULL;
    iiko_error *err = NULL;
    iiko_status st = iiko_webhook_receive(
        (const char *)token, (const char *const *)names, (const char *const *)values,
        (size_t)nheaders, (const char *)body, body_len, (size_t)atoll(f[4]), (size_t)atoll(f[5]),
        (uint32_t)atoi(f[6]), &events, &err);
    CHECK_STATUS(st, receive_outcome_status(f[8]), err);
    CHECK(iiko_webhook_http_status(st) == atoi(f[7]));
    if (strcmp(f[9], "~") != 0) {
        CHECK(iiko_events_count(events) == (size_t)atoi(f[9]));
    }
    iiko_events_free(events);
    iiko_error_free(err);
    for (int h = 0; h < nheaders; h++) {
        free(names[h]);
        free(values[h]);
    }
    free(names);
    free(values);
    free(token);
    free(body);
}

/* The language-neutral vectors (tests/vectors/webhook_vectors.json, flattened
 * by tests/c/vectors.jq): verify, parse with every event field, receive. */
static void test_webhook_vectors(void) {
    const char *tsv = getenv("IIKO_VECTORS_TSV");
    FILE *file = tsv ? fopen(tsv, "r") : NULL;
    CHECK(file != NULL);
    if (file == NULL) {
        return;
    }
    /* Every line, split in place into at most 12 fields. */
    size_t count = 0, cap = 64;
    char **lines = malloc(cap * sizeof *lines);
    char ***fields = malloc(cap * sizeof *fields);
    int *nfields = malloc(cap * sizeof *nfields);
    char *line = NULL;
    size_t line_cap = 0;
    while (getline(&line, &line_cap, file) > 0) {
        if (count == cap) {
            cap *= 2;
            lines = realloc(lines, cap * sizeof *lines);
            fields = realloc(fields, cap * sizeof *fields);
            nfields = realloc(nfields, cap * sizeof *nfields);
        }
        lines[count] = line;
        fields[count] = calloc(12, sizeof(char *));
        nfields[count] = split_tabs(line, fields[count], 12);
        line = NULL;
        line_cap = 0;
        count++;
    }
    free(line);
    fclose(file);

    int verify_count = 0, parse_count = 0, receive_count = 0;
    for (size_t i = 0; i < count;) {
        char **f = fields[i];
        size_t name_len = 0;
        unsigned char *name = b64_decode(f[1], &name_len);
        int before = harness_failures;
        if (strcmp(f[0], "V") == 0 && nfields[i] == 5) {
            run_verify_vector(f);
            verify_count++;
            i++;
        } else if (strcmp(f[0], "P") == 0 && nfields[i] == 9) {
            iiko_events *events = run_parse_vector(f);
            parse_count++;
            if (events != NULL) {
                check_summaries(events);
            }
            for (i++; i < count && (strcmp(fields[i][0], "E") == 0 || strcmp(fields[i][0], "T") == 0);
                 i++) {
                if (events == NULL) {
                    continue;
                }
                if (fields[i][0][0] == 'T' && nfields[i] == 5) {
                    check_local_time(events, (size_t)atoi(fields[i][1]), fields[i][2],
                                     fields[i][3], fields[i][4]);
                } else if (fields[i][0][0] == 'E' && nfields[i] == 4) {
                    check_event_field(events, (size_t)atoi(fields[i][1]), fields[i][2],
                                      fields[i][3]);
                } else {
                    fprintf(stderr, "  unreadable vector line %zu (%s)\n", i + 1, fields[i][0]);
                    harness_failures++;
                }
            }
            iiko_events_free(events);
        } else if (strcmp(f[0], "R") == 0 && nfields[i] == 11) {
            int nheaders = atoi(f[10]);
            CHECK(i + (size_t)nheaders < count);
            if (i + (size_t)nheaders < count) {
                run_receive_vector(f, &fields[i + 1], nheaders);
            }
            receive_count++;
            i += 1 + (size_t)nheaders;
        } else {
            fprintf(stderr, "  unreadable vector line %zu (%s)\n", i + 1, f[0]);
            harness_failures++;
            i++;
        }
        if (harness_failures != before) {
            fprintf(stderr, "  ^ in vector \"%s\"\n", (const char *)name);
        }
        free(name);
    }
    for (size_t i = 0; i < count; i++) {
        free(lines[i]);
        free(fields[i]);
    }
    free(lines);
    free(fields);
    free(nfields);
    printf("  %d verify, %d parse and %d receive vectors\n", verify_count, parse_count,
           receive_count);
    CHECK(verify_count > 20 && parse_count > 20 && receive_count > 10);
}

static void test_webhook_events(void) {
    iiko_events *events = parse_file("payloads/multi_all_types.json");
    CHECK(iiko_events_count(events) == 8);
    CHECK(iiko_events_single_object(events) == 0);
    /* One event of every type the header knows. */
    CHECK(iiko_events_count(events) == IIKO_EVENT_LAST);
    int seen[IIKO_EVENT_LAST + 1] = {0};
    for (size_t i = 0; i < iiko_events_count(events); i++) {
        int32_t type = iiko_events_type(events, i);
        CHECK(type >= 1 && type <= IIKO_EVENT_LAST);
        if (type >= 1 && type <= IIKO_EVENT_LAST) {
            seen[type]++;
            CHECK_STR(iiko_events_type_name(events, i), iiko_event_type_name(type));
        }
        const char *json = iiko_events_json(events, i);
        CHECK(json != NULL && json[0] == '{');
        /* The borrowed pointer is stable across calls. */
        CHECK(json == iiko_events_json(events, i));
        CHECK(iiko_events_dedup_key(events, i) != NULL);
        CHECK(iiko_events_problem(events, i) == NULL);
    }
    for (int t = 1; t <= IIKO_EVENT_LAST; t++) {
        CHECK(seen[t] == 1);
    }
    /* The name table: static strings, "Unknown" for codes it lacks. */
    CHECK_STR(iiko_event_type_name(IIKO_EVENT_UNKNOWN), "Unknown");
    CHECK_STR(iiko_event_type_name(IIKO_EVENT_DELIVERY_ORDER_UPDATE), "DeliveryOrderUpdate");
    CHECK_STR(iiko_event_type_name(IIKO_EVENT_PERSONAL_SHIFT), "PersonalShift");
    CHECK_STR(iiko_event_type_name(IIKO_EVENT_LAST + 1), "Unknown");
    CHECK_STR(iiko_event_type_name(-1), "Unknown");
    CHECK(iiko_event_type_name(IIKO_EVENT_LAST) == iiko_event_type_name(IIKO_EVENT_LAST));
    /* Out of range and NULL. */
    int64_t v = 77;
    CHECK(iiko_events_type(events, 8) == -1);
    CHECK(iiko_events_type(NULL, 0) == -1);
    CHECK(iiko_events_json(events, 8) == NULL);
    CHECK(iiko_events_order_id(events, SIZE_MAX) == NULL);
    CHECK(iiko_events_timestamp(events, 8, &v) == 0 && v == 77);
    CHECK(iiko_events_timestamp(events, 0, NULL) == 0);
    CHECK(iiko_events_is_new_delivery_order(events, 8) == 0);
    CHECK(iiko_events_count(NULL) == 0);
    CHECK(iiko_events_single_object(NULL) == 0);
    CHECK(iiko_events_sum(NULL, 0) == NULL);
    CHECK(iiko_events_time_unix_ms(NULL, 0, &v) == 0 && v == 77);
    iiko_events_free(events);
    iiko_events_free(NULL);

    /* The delivery accessors on the first shared vector. */
    events = parse_file("payloads/delivery_order_update.json");
    CHECK(iiko_events_type(events, 0) == IIKO_EVENT_DELIVERY_ORDER_UPDATE);
    CHECK_STR(iiko_events_order_id(events, 0), "88ad6eef-3a98-5fe9-8bdb-4af52e46d835");
    CHECK_STR(iiko_events_sum(events, 0), "1780");
    CHECK_STR(iiko_events_status(events, 0), "CookingStarted");
    CHECK_STR(iiko_events_creation_status(events, 0), "Success");
    CHECK_STR(iiko_events_phone(events, 0), "+79161234567");
    CHECK(iiko_events_order_number(events, 0, &v) == 1 && v == 10452);
    CHECK(iiko_events_is_new_delivery_order(events, 0) == 0);
    CHECK(iiko_events_error_code(events, 0) == NULL);
    iiko_events_free(events);

    events = parse_file("payloads/delivery_order_error.json");
    CHECK(iiko_events_type(events, 0) == IIKO_EVENT_DELIVERY_ORDER_ERROR);
    CHECK_STR(iiko_events_error_code(events, 0), "ProductNotFound");
    CHECK_CONTAINS(iiko_events_error_message(events, 0), "not found");
    CHECK_STR(iiko_events_creation_status(events, 0), "Error");
    iiko_events_free(events);
}

static void test_webhook_bad_inputs(void) {
    iiko_events *events = SENTINEL;
    iiko_error *err = NULL;
    const char body[] = "[]";
    CHECK_STATUS(iiko_webhook_parse(NULL, 5, 0, 0, 0, &events, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_webhook_parse((const char *)body, 2, 0, 0, 0, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_webhook_parse((const char *)body, 2, 0, 0, 0x10, &events, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "flags");
    iiko_error_free(err);
    err = NULL;
    CHECK(events == SENTINEL);
    /* NULL with length 0 is the empty body: not JSON. */
    CHECK_STATUS(iiko_webhook_parse(NULL, 0, 0, 0, 0, &events, NULL),
                 IIKO_STATUS_WEBHOOK_BODY_NOT_JSON, NULL);
    CHECK_STATUS(iiko_webhook_verify(NULL, "x", 1, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_webhook_verify("s3cret", NULL, 0, NULL),
                 IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION, NULL);
    CHECK_STATUS(iiko_webhook_verify("s3cret\xff", "x", 1, NULL),
                 IIKO_STATUS_INVALID_UTF8, NULL);
    CHECK_STATUS(iiko_webhook_verify("s3cret", "Bearer s3cret", 13, NULL),
                 IIKO_STATUS_OK, NULL);
    /* A verify error carries no HTTP detail. */
    CHECK_STATUS(iiko_webhook_verify("s3cret", "guess", 5, &err),
                 IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH, NULL);
    CHECK(iiko_error_http_status(err) == 0 && iiko_error_correlation_id(err) == NULL);
    iiko_error_free(err);
    err = NULL;

    const char *names[] = {"authorization", NULL};
    const char *values[] = {"s3cret", "x"};
    CHECK_STATUS(iiko_webhook_receive("s3cret", names, values, 2, body, 2, 0, 0, 0, &events, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_webhook_receive("s3cret", NULL, values, 1, body, 2, 0, 0, 0, &events, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_webhook_receive("s3cret", NULL, NULL, 0, body, 2, 0, 0, 0, &events, NULL),
                 IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION, NULL);
    CHECK(events == SENTINEL);
    CHECK_STATUS(iiko_webhook_receive("s3cret", names, values, 1, body, 2, 0, 0, 0, &events, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(events != SENTINEL && iiko_events_count(events) == 0);
    if (events != SENTINEL) {
        iiko_events_free(events);
    }

    CHECK(iiko_webhook_http_status(IIKO_STATUS_OK) == 200);
    CHECK(iiko_webhook_http_status(IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH) == 401);
    CHECK(iiko_webhook_http_status(IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN) == 500);
    CHECK(iiko_webhook_http_status(IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY) == 200);
    CHECK(iiko_webhook_http_status(IIKO_STATUS_PANIC) == 500);
}

static void test_webhook_huge_bodies(void) {
    /* Over the default limit (16 MiB): refused before reading. */
    size_t big = ((size_t)16 << 20) + 1;
    uint8_t *body = malloc(big);
    CHECK(body != NULL);
    if (body == NULL) {
        return;
    }
    memset(body, ' ', big);
    body[0] = '[';
    body[big - 1] = ']';
    iiko_events *events = SENTINEL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_webhook_parse((const char *)body, big, 0, 0, 0, &events, &err),
                 IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE, err);
    CHECK(events == SENTINEL);
    iiko_error_free(err);
    err = NULL;
    /* The same body with a higher limit parses (whitespace only). */
    CHECK_STATUS(iiko_webhook_parse((const char *)body, big, big, 0, 0, &events, &err), IIKO_STATUS_OK, err);
    if (events != SENTINEL) {
        CHECK(iiko_events_count(events) == 0);
        iiko_events_free(events);
    }
    free(body);

    /* A large, real body: 2000 copies of a delivery event (about 12 MB). */
    size_t one_len = 0;
    unsigned char *one = read_vector_file("payloads/delivery_order_update.json", &one_len);
    CHECK(one != NULL);
    if (one == NULL) {
        return;
    }
    /* Strip the outer brackets of the one-event array. */
    unsigned char *open = memchr(one, '{', one_len);
    unsigned char *close = one + one_len - 1;
    while (close > one && *close != '}') {
        close--;
    }
    size_t event_len = (size_t)(close - open) + 1;
    size_t copies = 2000;
    size_t total = copies * (event_len + 1) + 2;
    body = malloc(total);
    size_t at = 0;
    body[at++] = '[';
    for (size_t i = 0; i < copies; i++) {
        memcpy(body + at, open, event_len);
        at += event_len;
        body[at++] = i + 1 < copies ? ',' : ']';
    }
    events = NULL;
    CHECK_STATUS(iiko_webhook_parse((const char *)body, at, at, 0, 0, &events, &err), IIKO_STATUS_OK, err);
    CHECK(iiko_events_count(events) == copies);
    CHECK_STR(iiko_events_sum(events, copies - 1), "1780");
    iiko_events_free(events);
    free(body);
    free(one);
}

static void test_deduplicator(void) {
    iiko_deduplicator *dedup = SENTINEL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_deduplicator_new(0, 1000, &dedup, &err), IIKO_STATUS_INVALID_ARGUMENT, err);
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_deduplicator_new(10, 0, &dedup, NULL), IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_deduplicator_new(10, 1000, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(dedup == SENTINEL);
    CHECK_STATUS(iiko_deduplicator_new(100, 24u * 3600 * 1000, &dedup, NULL), IIKO_STATUS_OK, NULL);

    iiko_events *first = parse_file("payloads/multi_all_types.json");
    iiko_events *again = parse_file("payloads/multi_all_types.json");
    int32_t seen = -1;
    for (size_t i = 0; i < iiko_events_count(first); i++) {
        CHECK_STATUS(iiko_deduplicator_first_seen(dedup, first, i, &seen, NULL), IIKO_STATUS_OK,
                     NULL);
        CHECK(seen == 1);
    }
    CHECK(iiko_deduplicator_len(dedup) == 8);
    for (size_t i = 0; i < iiko_events_count(again); i++) {
        CHECK_STATUS(iiko_deduplicator_first_seen(dedup, again, i, &seen, NULL), IIKO_STATUS_OK,
                     NULL);
        CHECK(seen == 0);
    }
    CHECK_STATUS(iiko_deduplicator_forget(dedup, again, 0, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_deduplicator_first_seen(dedup, first, 0, &seen, NULL), IIKO_STATUS_OK, NULL);
    CHECK(seen == 1);
    seen = 42;
    CHECK_STATUS(iiko_deduplicator_first_seen(dedup, first, 8, &seen, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "out of range");
    iiko_error_free(err);
    CHECK(seen == 42);
    CHECK_STATUS(iiko_deduplicator_first_seen(NULL, first, 0, &seen, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_deduplicator_first_seen(dedup, NULL, 0, &seen, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_deduplicator_first_seen(dedup, first, 0, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_deduplicator_forget(dedup, first, 9, NULL), IIKO_STATUS_INVALID_ARGUMENT,
                 NULL);
    CHECK(iiko_deduplicator_len(NULL) == 0);

    /* Keys stored elsewhere (e.g. across a restart) into a fresh de-duplicator. */
    iiko_deduplicator *restarted = NULL;
    CHECK_STATUS(iiko_deduplicator_new(100, 60000, &restarted, NULL), IIKO_STATUS_OK, NULL);
    const char *stored = iiko_events_dedup_key(first, 3);
    CHECK_STATUS(iiko_deduplicator_first_seen_key(restarted, stored, &seen, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK(seen == 1);
    CHECK_STATUS(iiko_deduplicator_first_seen(restarted, again, 3, &seen, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK(seen == 0);
    CHECK_STATUS(iiko_deduplicator_first_seen_key(restarted, stored, &seen, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK(seen == 0);
    CHECK_STATUS(iiko_deduplicator_first_seen_key(restarted, NULL, &seen, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_deduplicator_first_seen_key(restarted, "k\xff", &seen, NULL),
                 IIKO_STATUS_INVALID_UTF8, NULL);
    iiko_deduplicator_free(restarted);
    iiko_events_free(first);
    iiko_events_free(again);
    iiko_deduplicator_free(dedup);
    iiko_deduplicator_free(NULL);
}

static void test_ordering_guard(void) {
    iiko_ordering_guard *guard = SENTINEL;
    CHECK_STATUS(iiko_ordering_guard_new(0, &guard, NULL), IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_ordering_guard_new(10, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(guard == SENTINEL);
    CHECK_STATUS(iiko_ordering_guard_new(1000, &guard, NULL), IIKO_STATUS_OK, NULL);

    /* The same order: CookingStarted (newer), then InProgress (older) arrives late. */
    iiko_events *newer = parse_file("payloads/delivery_order_update.json");
    iiko_events *older = parse_file("payloads/delivery_order_update_in_progress.json");
    iiko_events *stop = parse_file("payloads/stop_list_update.json");
    int32_t decision = 0;
    int64_t last = 0;
    CHECK_STATUS(iiko_ordering_guard_observe(guard, newer, 0, &decision, &last, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(decision == IIKO_ORDERING_APPLY && last == 0);
    CHECK_STATUS(iiko_ordering_guard_observe(guard, older, 0, &decision, &last, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(decision == IIKO_ORDERING_STALE);
    CHECK(last == 1758038531877LL);
    /* The same version again is stale too; the last-applied pointer is optional. */
    CHECK_STATUS(iiko_ordering_guard_observe(guard, newer, 0, &decision, NULL, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(decision == IIKO_ORDERING_STALE);
    CHECK_STATUS(iiko_ordering_guard_observe(guard, stop, 0, &decision, NULL, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(decision == IIKO_ORDERING_UNTRACKED);
    CHECK(iiko_ordering_guard_len(guard) == 1);
    CHECK_STATUS(iiko_ordering_guard_forget(guard, newer, 0, NULL), IIKO_STATUS_OK, NULL);
    CHECK(iiko_ordering_guard_len(guard) == 0);
    CHECK_STATUS(iiko_ordering_guard_observe(guard, older, 0, &decision, NULL, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(decision == IIKO_ORDERING_APPLY);
    decision = 99;
    CHECK_STATUS(iiko_ordering_guard_observe(guard, older, 1, &decision, NULL, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_ordering_guard_observe(guard, older, 0, NULL, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_ordering_guard_observe(NULL, older, 0, &decision, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(decision == 99);
    CHECK_STATUS(iiko_ordering_guard_forget(guard, NULL, 0, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(iiko_ordering_guard_len(NULL) == 0);
    iiko_events_free(newer);
    iiko_events_free(older);
    iiko_events_free(stop);
    iiko_ordering_guard_free(guard);
    iiko_ordering_guard_free(NULL);
}

/* Several threads read one events handle (whose strings are built on first
 * use) and share one de-duplicator and one ordering guard. */
typedef struct {
    const iiko_events *events;
    const iiko_deduplicator *dedup;
    const iiko_ordering_guard *guard;
    int first_seen;
    int ok;
} webhook_thread_arg;

static void *webhook_thread(void *p) {
    webhook_thread_arg *arg = p;
    for (size_t i = 0; i < iiko_events_count(arg->events); i++) {
        int ok = iiko_events_dedup_key(arg->events, i) != NULL &&
                 iiko_events_json(arg->events, i) != NULL;
        (void)iiko_events_sum(arg->events, i);
        int32_t seen = 0, decision = 0;
        ok = ok && iiko_deduplicator_first_seen(arg->dedup, arg->events, i, &seen, NULL) ==
                       IIKO_STATUS_OK;
        ok = ok && iiko_ordering_guard_observe(arg->guard, arg->events, i, &decision, NULL,
                                               NULL) == IIKO_STATUS_OK;
        arg->first_seen += seen;
        arg->ok += ok;
    }
    return NULL;
}

static void test_webhook_threads(void) {
    iiko_events *events = parse_file("payloads/multi_all_types.json");
    iiko_deduplicator *dedup = NULL;
    iiko_ordering_guard *guard = NULL;
    CHECK_STATUS(iiko_deduplicator_new(1000, 60000, &dedup, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_ordering_guard_new(1000, &guard, NULL), IIKO_STATUS_OK, NULL);
    pthread_t threads[THREADS];
    webhook_thread_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (webhook_thread_arg){events, dedup, guard, 0, 0};
        CHECK(pthread_create(&threads[i], NULL, webhook_thread, &args[i]) == 0);
    }
    int first_seen = 0, ok = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        first_seen += args[i].first_seen;
        ok += args[i].ok;
    }
    /* Each event was first seen by exactly one thread. */
    CHECK(first_seen == 8);
    CHECK(ok == THREADS * 8);
    iiko_events_free(events);
    iiko_deduplicator_free(dedup);
    iiko_ordering_guard_free(guard);
}

/* Proves the sanitizer build is live: with IIKO_ASAN_PROBE set, reads past a
 * heap block, which ASan must report (the script expects a crash). */
static void test_asan_probe(void) {
    if (getenv("IIKO_ASAN_PROBE") == NULL) {
        return;
    }
    char *block = malloc(8);
    volatile char *p = block;
    memset(block, 1, 8);
    printf("  probe read: %d\n", p[8]);
    free(block);
}

/* One DeliveryOrderUpdate of order "c-order-1" with this status and version. */
static iiko_events *order_event(const char *status, long long timestamp) {
    char body[512];
    int n = snprintf(body, sizeof body,
                     "[{\"eventType\":\"DeliveryOrderUpdate\",\"organizationId\":\"org-1\","
                     "\"eventInfo\":{\"id\":\"c-order-1\",\"timestamp\":%lld,"
                     "\"creationStatus\":\"Success\",\"order\":{\"status\":\"%s\"}}}]",
                     timestamp, status);
    iiko_events *events = NULL;
    CHECK_STATUS(iiko_webhook_parse(body, (size_t)n, 0, 0, 0, &events, NULL), IIKO_STATUS_OK,
                 NULL);
    return events;
}

/* Two handles on one SQLite file stand for two processes (PHP-FPM workers). */
static void test_shared_store(void) {
    char dir[512];
    CHECK(test_temp_dir(dir, sizeof dir, "iiko-c-store") != NULL);
    char url[600];
    snprintf(url, sizeof url, "sqlite://%s/store.db", dir);
    iiko_deduplicator *a = NULL, *b = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_deduplicator_new_with_store(url, 60000, &a, &err), IIKO_STATUS_OK, err);
    CHECK_STATUS(iiko_deduplicator_new_with_store(url, 60000, &b, &err), IIKO_STATUS_OK, err);
    iiko_events *unconfirmed = order_event("Unconfirmed", 1000);
    iiko_events *wait_cooking = order_event("WaitCooking", 2000);
    int32_t seen = -1;
    CHECK_STATUS(iiko_deduplicator_first_seen(a, unconfirmed, 0, &seen, NULL), IIKO_STATUS_OK, NULL);
    CHECK(seen == 1);
    CHECK_STATUS(iiko_deduplicator_first_seen(b, unconfirmed, 0, &seen, NULL), IIKO_STATUS_OK, NULL);
    CHECK(seen == 0);
    /* Both statuses are "new" for the event, but the order is new once. */
    CHECK(iiko_events_is_new_delivery_order(unconfirmed, 0) == 1);
    CHECK(iiko_events_is_new_delivery_order(wait_cooking, 0) == 1);
    CHECK_STATUS(iiko_deduplicator_first_new_order(a, unconfirmed, 0, &seen, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK(seen == 1);
    CHECK_STATUS(iiko_deduplicator_first_new_order(b, wait_cooking, 0, &seen, NULL), IIKO_STATUS_OK,
                 NULL);
    CHECK(seen == 0);
    CHECK_STATUS(iiko_deduplicator_first_new_order(a, wait_cooking, 1, &seen, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);

    iiko_ordering_guard *ga = NULL, *gb = NULL;
    CHECK_STATUS(iiko_ordering_guard_new_with_store(url, 60000, &ga, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_ordering_guard_new_with_store(url, 60000, &gb, NULL), IIKO_STATUS_OK, NULL);
    int32_t decision = 0;
    int64_t last = 0;
    CHECK_STATUS(iiko_ordering_guard_observe(ga, wait_cooking, 0, &decision, &last, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(decision == IIKO_ORDERING_APPLY);
    CHECK_STATUS(iiko_ordering_guard_observe(gb, unconfirmed, 0, &decision, &last, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(decision == IIKO_ORDERING_STALE && last == 2000);

    /* Two clients sharing the token through the store get the same token. */
    char tokens[2][512] = {{0}};
    for (int i = 0; i < 2; i++) {
        iiko_client_options *options = emulator_options();
        CHECK_STATUS(iiko_client_options_set_token_store(options, url, NULL), IIKO_STATUS_OK, NULL);
        iiko_client *client = NULL;
        CHECK_STATUS(iiko_client_new(options, &client, NULL), IIKO_STATUS_OK, NULL);
        iiko_client_options_free(options);
        char *token = NULL;
        CHECK_STATUS(iiko_client_access_token(client, &token, NULL, &err), IIKO_STATUS_OK, err);
        if (token != NULL) {
            snprintf(tokens[i], sizeof tokens[i], "%s", token);
        }
        iiko_string_free(token);
        iiko_client_free(client);
    }
    CHECK(tokens[0][0] != '\0');
    CHECK_STR(tokens[1], tokens[0]);
    iiko_client_options *opts = emulator_options();
    CHECK_STATUS(iiko_client_options_set_token_store(opts, "redis://:hunter2@127.0.0.1:1/0", &err),
                 IIKO_STATUS_TRANSPORT_CONNECT, err);
    CHECK(strstr(iiko_error_message(err), "hunter2") == NULL);
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_options_set_token_store(opts, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    iiko_client_options_free(opts);

    /* Bad URLs and unreachable stores: clear errors, never the password. */
    iiko_deduplicator *bad = SENTINEL;
    CHECK_STATUS(iiko_deduplicator_new_with_store("mysql://x", 1000, &bad, &err),
                 IIKO_STATUS_INVALID_CONFIG, err);
    CHECK_CONTAINS(iiko_error_message(err), "scheme");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_deduplicator_new_with_store("redis://:hunter2@127.0.0.1:1/0", 1000, &bad, &err),
                 IIKO_STATUS_TRANSPORT_CONNECT, err);
    CHECK(strstr(iiko_error_message(err), "hunter2") == NULL);
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_deduplicator_new_with_store(NULL, 1000, &bad, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_deduplicator_new_with_store(url, 0, &bad, NULL), IIKO_STATUS_INVALID_ARGUMENT,
                 NULL);
    iiko_ordering_guard *bad_guard = SENTINEL;
    CHECK_STATUS(iiko_ordering_guard_new_with_store("sqlite://relative", 1000, &bad_guard, NULL),
                 IIKO_STATUS_INVALID_CONFIG, NULL);
    CHECK(bad == SENTINEL && bad_guard == SENTINEL);

    iiko_events_free(unconfirmed);
    iiko_events_free(wait_cooking);
    iiko_ordering_guard_free(ga);
    iiko_ordering_guard_free(gb);
    iiko_deduplicator_free(a);
    iiko_deduplicator_free(b);
    CHECK(test_remove_dir(dir) == 0);
}

/* The durable inbox on a real SQLite file: receive (stored, repeat, wrong
 * token, unreadable body), take, ack, release to the dead letters, visibility
 * timeout, two handles sharing the file, bad arguments. */
static void test_inbox(void) {
    char dir[512];
    CHECK(test_temp_dir(dir, sizeof dir, "iiko-c-inbox") != NULL);
    char url[600];
    snprintf(url, sizeof url, "sqlite://%s/inbox.db", dir);
    iiko_inbox *inbox = NULL;
    iiko_error *err = NULL;
    /* 0: the default visibility timeout (30 s), long enough under valgrind. */
    CHECK_STATUS(iiko_inbox_open(url, 0, 2, 0, &inbox, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    err = NULL;

    size_t len = 0;
    unsigned char *body = read_vector_file("payloads/delivery_order_update.json", &len);
    const char *names[] = {"Content-Type", "AUTHORIZATION"};
    const char *values[] = {"application/json", "Bearer inbox-token"};
    int32_t http = -1;
    size_t stored = 99, repeats = 99;
    char *reason = SENTINEL;
    CHECK_STATUS(iiko_inbox_receive(inbox, "inbox-token", NULL, names, values, 2,
                                    (const char *)body, len, &http, &stored, &repeats, &reason,
                                    &err),
                 IIKO_STATUS_OK, err);
    CHECK(http == 200 && stored == 1 && repeats == 0 && reason == NULL);
    /* The service resends: 200, stored once. */
    CHECK_STATUS(iiko_inbox_receive(inbox, "inbox-token", NULL, names, values, 2,
                                    (const char *)body, len, &http, &stored, &repeats, NULL, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(http == 200 && stored == 0 && repeats == 1);
    /* A wrong token: 401, nothing stored, the reason names no secret. */
    const char *wrong[] = {"application/json", "Bearer not-it-9z"};
    CHECK_STATUS(iiko_inbox_receive(inbox, "inbox-token", NULL, names, wrong, 2,
                                    (const char *)body, len, &http, NULL, NULL, &reason, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(http == 401 && reason != NULL);
    CHECK(reason != NULL && strstr(reason, "not-it-9z") == NULL &&
          strstr(reason, "inbox-token") == NULL);
    iiko_string_free(reason);
    /* An authentic unreadable body: 200 and kept as a dead letter. */
    CHECK_STATUS(iiko_inbox_receive(inbox, "inbox-token", NULL, names, values, 2, "{\"x\":", 5,
                                    &http, &stored, NULL, NULL, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(http == 200 && stored == 0);
    uint64_t pending = 99, dead = 99;
    CHECK_STATUS(iiko_inbox_counts(inbox, &pending, &dead, NULL), IIKO_STATUS_OK, NULL);
    CHECK(pending == 1 && dead == 1);

    /* Take, parse the event, ack. */
    iiko_delivery *d = NULL;
    CHECK_STATUS(iiko_inbox_take(inbox, &d, &err), IIKO_STATUS_OK, err);
    CHECK(d != NULL);
    iiko_events *parsed = parse_file("payloads/delivery_order_update.json");
    CHECK_STR(iiko_delivery_key(d), iiko_events_dedup_key(parsed, 0));
    CHECK(iiko_delivery_attempt(d) == 1);
    CHECK(iiko_delivery_received_at_ms(d) > 1700000000000LL);
    CHECK(iiko_delivery_id(d) != NULL && iiko_delivery_id(d)[0] != '\0');
    const char *json = iiko_delivery_event_json(d);
    CHECK(json != NULL);
    iiko_events *one = NULL;
    CHECK_STATUS(iiko_webhook_parse(json ? json : "", json ? strlen(json) : 0, 0, 0, 0, &one,
                                    NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(iiko_events_count(one) == 1);
    CHECK_STR(iiko_events_dedup_key(one, 0), iiko_events_dedup_key(parsed, 0));
    iiko_events_free(one);
    iiko_events_free(parsed);
    iiko_delivery *none = SENTINEL;
    CHECK_STATUS(iiko_inbox_take(inbox, &none, NULL), IIKO_STATUS_OK, NULL);
    CHECK(none == NULL); /* hidden while taken */
    if (none != NULL && none != SENTINEL) {
        iiko_delivery_free(none);
    }
    int32_t acked = -1;
    CHECK_STATUS(iiko_inbox_ack(inbox, d, &acked, NULL), IIKO_STATUS_OK, NULL);
    CHECK(acked == 1);
    CHECK_STATUS(iiko_inbox_ack(inbox, d, &acked, NULL), IIKO_STATUS_OK, NULL);
    CHECK(acked == 0);
    iiko_delivery_free(d);

    /* Released twice (max_attempts 2): a dead letter with the reason. A second
     * handle on the same file sees what the first wrote. */
    iiko_inbox *other = NULL;
    CHECK_STATUS(iiko_inbox_open(url, 0, 2, 0, &other, NULL), IIKO_STATUS_OK, NULL);
    size_t len2 = 0;
    unsigned char *body2 = read_vector_file("payloads/reserve_update.json", &len2);
    CHECK_STATUS(iiko_inbox_receive(other, "inbox-token", NULL, names, values, 2,
                                    (const char *)body2, len2, &http, &stored, NULL, NULL, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(http == 200 && stored == 1);
    free(body2);
    d = NULL;
    CHECK_STATUS(iiko_inbox_take(inbox, &d, NULL), IIKO_STATUS_OK, NULL);
    CHECK(d != NULL);
    CHECK_STATUS(iiko_inbox_release(inbox, d, "db down", NULL), IIKO_STATUS_OK, NULL);
    iiko_delivery_free(d);
    d = NULL;
    CHECK_STATUS(iiko_inbox_take(other, &d, NULL), IIKO_STATUS_OK, NULL);
    CHECK(d != NULL && iiko_delivery_attempt(d) == 2);
    CHECK_STATUS(iiko_inbox_release(other, d, "still down", NULL), IIKO_STATUS_OK, NULL);
    iiko_delivery_free(d);
    d = SENTINEL;
    CHECK_STATUS(iiko_inbox_take(inbox, &d, NULL), IIKO_STATUS_OK, NULL);
    CHECK(d == NULL);
    char *letters = NULL;
    CHECK_STATUS(iiko_inbox_dead_letters_json(inbox, 10, &letters, NULL), IIKO_STATUS_OK, NULL);
    CHECK_CONTAINS(letters, "still down");
    CHECK_CONTAINS(letters, "\"attempts\":2");
    iiko_string_free(letters);
    CHECK_STATUS(iiko_inbox_counts(inbox, &pending, &dead, NULL), IIKO_STATUS_OK, NULL);
    CHECK(pending == 0 && dead == 2);

    /* Not acknowledged within the visibility timeout (300 ms, set by the taker's
     * handle): handed out again. */
    iiko_inbox *quick = NULL;
    CHECK_STATUS(iiko_inbox_open(url, 300, 2, 0, &quick, NULL), IIKO_STATUS_OK, NULL);
    size_t len3 = 0;
    unsigned char *body3 = read_vector_file("payloads/table_order_update.json", &len3);
    CHECK_STATUS(iiko_inbox_receive(inbox, "inbox-token", NULL, names, values, 2,
                                    (const char *)body3, len3, &http, &stored, NULL, NULL, NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK(http == 200 && stored == 1);
    free(body3);
    iiko_delivery *first = NULL, *again = NULL;
    CHECK_STATUS(iiko_inbox_take(quick, &first, NULL), IIKO_STATUS_OK, NULL);
    CHECK(first != NULL);
    usleep(600 * 1000);
    CHECK_STATUS(iiko_inbox_take(other, &again, NULL), IIKO_STATUS_OK, NULL);
    CHECK(again != NULL && iiko_delivery_attempt(again) == 2);
    CHECK_STR(iiko_delivery_id(again), iiko_delivery_id(first));
    CHECK_STATUS(iiko_inbox_ack(inbox, first, &acked, NULL), IIKO_STATUS_OK, NULL);
    CHECK(acked == 0); /* a stale delivery cannot ack */
    CHECK_STATUS(iiko_inbox_ack(other, again, &acked, NULL), IIKO_STATUS_OK, NULL);
    CHECK(acked == 1);
    iiko_delivery_free(first);
    iiko_delivery_free(again);

    /* Bad arguments: clear statuses, out-parameters untouched, no crash. */
    CHECK_STATUS(iiko_inbox_receive(NULL, "t", NULL, NULL, NULL, 0, NULL, 0, &http, NULL, NULL,
                                    NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_receive(inbox, NULL, NULL, NULL, NULL, 0, NULL, 0, &http, NULL, NULL,
                                    NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_receive(inbox, "t", NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL,
                                    NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_receive(inbox, "t", NULL, NULL, NULL, 2, NULL, 0, &http, NULL, NULL,
                                    NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_receive(inbox, "t", NULL, NULL, NULL, 0, NULL, 5, &http, NULL, NULL,
                                    NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_receive(inbox, "\xff\xfe", NULL, NULL, NULL, 0, NULL, 0, &http, NULL,
                                    NULL, NULL, NULL),
                 IIKO_STATUS_INVALID_UTF8, NULL);
    CHECK_STATUS(iiko_inbox_receive(inbox, "t", "mysql://x", NULL, NULL, 0, NULL, 0, &http, NULL,
                                    NULL, NULL, NULL),
                 IIKO_STATUS_INVALID_CONFIG, NULL);
    CHECK_STATUS(iiko_inbox_take(NULL, &d, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_take(inbox, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_ack(inbox, NULL, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_release(inbox, NULL, "x", NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_counts(NULL, NULL, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_dead_letters_json(inbox, 1, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK(iiko_delivery_id(NULL) == NULL && iiko_delivery_key(NULL) == NULL);
    CHECK(iiko_delivery_event_json(NULL) == NULL && iiko_delivery_attempt(NULL) == 0);
    CHECK(iiko_delivery_received_at_ms(NULL) == 0);
    iiko_delivery_free(NULL);
    iiko_inbox_free(NULL);

    /* Bad URLs: memory: refused, a password never in the message. */
    iiko_inbox *bad = SENTINEL;
    err = NULL;
    CHECK_STATUS(iiko_inbox_open("memory:", 0, 0, 0, &bad, &err), IIKO_STATUS_INVALID_CONFIG, err);
    CHECK_CONTAINS(err ? iiko_error_message(err) : NULL, "outlive");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_inbox_open("redis://:hunter2@127.0.0.1:1/0", 0, 0, 0, &bad, &err),
                 IIKO_STATUS_TRANSPORT_CONNECT, err);
    CHECK(err != NULL && strstr(iiko_error_message(err), "hunter2") == NULL);
    iiko_error_free(err);
    CHECK_STATUS(iiko_inbox_open("sqlite://relative", 0, 0, 0, &bad, NULL),
                 IIKO_STATUS_INVALID_CONFIG, NULL);
    CHECK_STATUS(iiko_inbox_open(NULL, 0, 0, 0, &bad, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_inbox_open(url, 0, 0, 0, NULL, NULL), IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(bad == SENTINEL);

    free(body);
    iiko_inbox_free(quick);
    iiko_inbox_free(other);
    iiko_inbox_free(inbox);
    CHECK(test_remove_dir(dir) == 0);
}

/* ---- limits ---- */

/* What the C calls that take `limit` say about the raw `value`: IIKO_STATUS_OK
 * or a refusal with its message in *message_out (yours; free()). Only the
 * refusals are asked for: an accepted value would go on to the network. */
static iiko_status entry_point_refusal(const char *limit, uint64_t value, char **message_out) {
    iiko_error *err = NULL;
    iiko_status st = IIKO_STATUS_OK;
    if (strcmp(limit, "client.timeout") == 0 || strcmp(limit, "client.client_timeout") == 0 ||
        strcmp(limit, "client.max_response_bytes") == 0) {
        iiko_client_options *options = emulator_options();
        if (strcmp(limit, "client.timeout") == 0) {
            iiko_client_options_set_timeout_ms(options, value, NULL);
        } else if (strcmp(limit, "client.client_timeout") == 0) {
            iiko_client_options_set_client_timeout_ms(options, value, NULL);
        } else {
            iiko_client_options_set_max_response_bytes(options, value, NULL);
        }
        iiko_client *client = NULL;
        st = iiko_client_new(options, &client, &err);
        iiko_client_free(client);
        iiko_client_options_free(options);
    } else if (strcmp(limit, "call.timeout") == 0 || strcmp(limit, "wait.timeout") == 0) {
        iiko_client *client = emulator_client();
        char *json = NULL;
        if (strcmp(limit, "call.timeout") == 0) {
            st = iiko_client_call(client, "/api/1/organizations", "{}", value, 0, &json, &err);
        } else {
            st = iiko_client_wait_command(client, ORG_CENTRAL,
                                          "00000000-0000-4000-8000-000000000000", value, &err);
        }
        iiko_string_free(json);
        iiko_client_free(client);
    } else if (strcmp(limit, "dedup.capacity") == 0 || strcmp(limit, "dedup.max_age") == 0) {
        iiko_deduplicator *dedup = NULL;
        st = strcmp(limit, "dedup.capacity") == 0
                 ? iiko_deduplicator_new((size_t)value, 60000, &dedup, &err)
                 : iiko_deduplicator_new(10, value, &dedup, &err);
        iiko_deduplicator_free(dedup);
    } else if (strcmp(limit, "ordering.capacity") == 0) {
        iiko_ordering_guard *guard = NULL;
        st = iiko_ordering_guard_new((size_t)value, &guard, &err);
        iiko_ordering_guard_free(guard);
    } else if (strcmp(limit, "ordering.store_ttl") == 0) {
        iiko_ordering_guard *guard = NULL;
        st = iiko_ordering_guard_new_with_store("memory:", value, &guard, &err);
        iiko_ordering_guard_free(guard);
    } else {
        return -1; /* no C call refuses this limit's raw values */
    }
    *message_out = err != NULL ? strdup(iiko_error_message(err)) : NULL;
    iiko_error_free(err);
    return st;
}

/* The language-neutral limit vectors (tests/vectors/limits.json, flattened by
 * tests/c/limit_vectors.jq): the defaults of the table, every case through
 * the readers, and every refused C argument through the call that takes it. */
static void test_limit_vectors(void) {
    const char *tsv = getenv("IIKO_LIMITS_TSV");
    FILE *file = tsv ? fopen(tsv, "r") : NULL;
    CHECK(file != NULL);
    if (file == NULL) {
        return;
    }
    char *line = NULL;
    size_t line_cap = 0;
    int rows = 0, cases = 0, entry_points = 0;
    while (getline(&line, &line_cap, file) > 0) {
        line[strcspn(line, "\n")] = '\0';
        char *f[7] = {0};
        int n = split_tabs(line, f, 7);
        int before = harness_failures;
        uint64_t got = 12345;
        iiko_error *err = NULL;
        if (strcmp(f[0], "T") == 0 && n == 3) {
            CHECK_STATUS(iiko_limit_default(f[1], &got, &err), IIKO_STATUS_OK, err);
            CHECK(got == (strcmp(f[2], "-") == 0 ? 0 : strtoull(f[2], NULL, 10)));
            rows++;
        } else if (strcmp(f[0], "L") == 0 && n == 6) {
            const char *form = f[2];
            iiko_status st;
            if (strcmp(form, "absent") == 0) {
                st = iiko_limit_default(f[1], &got, &err);
            } else if (strcmp(form, "int") == 0) {
                st = iiko_limit_read(f[1], strtoll(f[3], NULL, 10), &got, &err);
            } else if (strcmp(form, "seconds") == 0) {
                st = iiko_limit_read_seconds(f[1], strtod(f[3], NULL), &got, &err);
            } else {
                st = iiko_limit_read_arg(f[1], strtoull(f[3], NULL, 10), &got, &err);
            }
            if (strcmp(f[4], "value") == 0) {
                CHECK_STATUS(st, IIKO_STATUS_OK, err);
                CHECK(got == (strcmp(f[5], "-") == 0 ? 0 : strtoull(f[5], NULL, 10)));
            } else {
                size_t len = 0;
                char *text = (char *)b64_decode(f[5], &len);
                CHECK(st == IIKO_STATUS_INVALID_ARGUMENT);
                CHECK(got == 12345); /* out-parameter untouched on failure */
                CHECK_CONTAINS(err ? iiko_error_message(err) : NULL, text);
                char *message = NULL;
                iiko_status entry = strcmp(form, "raw") == 0
                                        ? entry_point_refusal(f[1], strtoull(f[3], NULL, 10),
                                                              &message)
                                        : -1;
                if (entry != -1) {
                    CHECK(entry == IIKO_STATUS_INVALID_ARGUMENT ||
                          entry == IIKO_STATUS_INVALID_CONFIG);
                    CHECK_CONTAINS(message, text);
                    entry_points++;
                }
                free(message);
                free(text);
            }
            cases++;
        } else {
            fprintf(stderr, "  unreadable limit vector line: %s\n", f[0]);
            harness_failures++;
        }
        if (harness_failures != before) {
            fprintf(stderr, "  ^ in limit vector %s %s %s %s\n", f[1], f[2] ? f[2] : "",
                    f[3] ? f[3] : "", err ? iiko_error_message(err) : "");
        }
        iiko_error_free(err);
    }
    free(line);
    fclose(file);
    printf("  %d limits, %d cases, %d refused by the calls themselves\n", rows, cases,
           entry_points);
    CHECK(rows > 20 && cases > 100 && entry_points >= 8);
}

static const test_case cases[] = {
    {"version", test_version},
    {"status_str", test_status_str},
    {"panic_boundary", test_panic_boundary},
    {"null_arguments", test_null_arguments},
    {"bad_configuration", test_bad_configuration},
    {"access_token", test_access_token},
    {"token_cache_dir", test_token_cache_dir},
    {"wrong_credentials", test_wrong_credentials},
    {"organizations", test_organizations},
    {"bad_json_arguments", test_bad_json_arguments},
    {"webhook_settings", test_webhook_settings},
    {"stop_lists", test_stop_lists},
    {"raw_call", test_raw_call},
    {"errors_with_correlation_id", test_errors_with_correlation_id},
    {"transport_errors", test_transport_errors},
    {"large_bodies", test_large_bodies},
    {"threads_share_one_client", test_threads_share_one_client},
    {"webhook_vectors", test_webhook_vectors},
    {"webhook_events", test_webhook_events},
    {"webhook_bad_inputs", test_webhook_bad_inputs},
    {"webhook_huge_bodies", test_webhook_huge_bodies},
    {"deduplicator", test_deduplicator},
    {"ordering_guard", test_ordering_guard},
    {"shared_store", test_shared_store},
    {"inbox", test_inbox},
    {"limit_vectors", test_limit_vectors},
    {"webhook_threads", test_webhook_threads},
    {"asan_probe", test_asan_probe},
};

int main(int argc, char **argv) {
    base_url = getenv("IIKO_BASE_URL");
    vectors_dir = getenv("IIKO_VECTORS");
    if (base_url == NULL || vectors_dir == NULL) {
        fprintf(stderr, "set IIKO_BASE_URL and IIKO_VECTORS\n");
        return 2;
    }
    return run_cases(cases, sizeof cases / sizeof cases[0], "test_capi", argc - 1, argv + 1);
}
