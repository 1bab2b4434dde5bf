/* The operation table and iiko_client_call_operation against the emulator:
 * the accessors, bad arguments (NULL, invalid UTF-8, malformed JSON, unknown
 * numbers and flags, limits), command errors, the answers that are JSON lists
 * and the one with no content, and every case of
 * tests/vectors/operations.json (flattened by tests/c/ops_vectors.jq), with
 * amounts as numbers and as strings. Needs IIKO_BASE_URL and IIKO_OPS_TSV. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "iikocloud.h"

#define SENTINEL ((void *)0x1)
#define ORG "441e1320-3f58-4702-9f9e-aa34cdef9c04"
#define TG "7b668cda-784b-4938-bd54-cd2bd147a44c"

static const char *base_url;

static iiko_client *emulator_client(void) {
    iiko_client_options *options = NULL;
    iiko_client *client = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_options_new(&options, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_v2(options, "emulator-app", "emulator-secret",
                                            "emulator-api-key", NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_base_url(options, base_url, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    iiko_client_options_free(options);
    return client;
}

/* ---- a minimal JSON path reader (enough for the vectors' checks) ---- */

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') {
        p++;
    }
    return p;
}

/* Returns the end of the JSON value starting at p (NULL if malformed). */
static const char *skip_value(const char *p) {
    p = skip_ws(p);
    if (*p == '"') {
        for (p++; *p != '\0'; p++) {
            if (*p == '\\' && p[1] != '\0') {
                p++;
            } else if (*p == '"') {
                return p + 1;
            }
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = skip_ws(p + 1);
        if (*p == close) {
            return p + 1;
        }
        for (;;) {
            if (close == '}') {
                p = skip_value(p); /* the key */
                if (p == NULL || *(p = skip_ws(p)) != ':') {
                    return NULL;
                }
                p++;
            }
            p = skip_value(p);
            if (p == NULL) {
                return NULL;
            }
            p = skip_ws(p);
            if (*p == ',') {
                p = skip_ws(p + 1);
            } else if (*p == close) {
                return p + 1;
            } else {
                return NULL;
            }
        }
    }
    while (*p != '\0' && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') {
        p++;
    }
    return p;
}

/* Finds the raw text of the value at a dotted path ("a.0.b"); writes its
 * length; NULL when absent. */
static const char *json_at(const char *json, const char *path, size_t *len_out) {
    const char *p = skip_ws(json);
    char key[256];
    while (*path != '\0') {
        size_t k = strcspn(path, ".");
        if (k >= sizeof key) {
            return NULL;
        }
        memcpy(key, path, k);
        key[k] = '\0';
        path += k + (path[k] == '.');
        if (*p == '{') {
            p = skip_ws(p + 1);
            const char *found = NULL;
            while (*p == '"') {
                const char *kend = skip_value(p);
                if (kend == NULL) {
                    return NULL;
                }
                int match = (size_t)(kend - p - 2) == strlen(key) &&
                            strncmp(p + 1, key, strlen(key)) == 0;
                p = skip_ws(kend);
                if (*p != ':') {
                    return NULL;
                }
                p = skip_ws(p + 1);
                if (match) {
                    found = p;
                    break;
                }
                p = skip_value(p);
                if (p == NULL) {
                    return NULL;
                }
                p = skip_ws(p);
                if (*p == ',') {
                    p = skip_ws(p + 1);
                }
            }
            if (found == NULL) {
                return NULL;
            }
            p = found;
        } else if (*p == '[') {
            long index = strtol(key, NULL, 10);
            p = skip_ws(p + 1);
            for (long i = 0; i < index; i++) {
                p = skip_value(p);
                if (p == NULL || *(p = skip_ws(p)) != ',') {
                    return NULL;
                }
                p = skip_ws(p + 1);
            }
            if (*p == ']') {
                return NULL;
            }
        } else {
            return NULL;
        }
    }
    const char *end = skip_value(p);
    if (end == NULL) {
        return NULL;
    }
    *len_out = (size_t)(end - p);
    return p;
}

static int raw_equals(const char *raw, size_t len, const char *want) {
    return raw != NULL && strlen(want) == len && strncmp(raw, want, len) == 0;
}

/* ---- the table ---- */

static void test_table(void) {
    iiko_operation n = iiko_operation_count();
    CHECK(n >= 225);
    CHECK(iiko_operation_by_name("deliveries.create") == IIKO_OP_DELIVERIES_CREATE);
    CHECK_STR(iiko_operation_name(IIKO_OP_DELIVERIES_CREATE), "deliveries.create");
    CHECK_STR(iiko_operation_path(IIKO_OP_DELIVERIES_CREATE), "/api/1/deliveries/create");
    CHECK(iiko_operation_is_command(IIKO_OP_DELIVERIES_CREATE) == 1);
    CHECK(iiko_operation_is_safe_to_retry(IIKO_OP_DELIVERIES_CREATE) == 0);
    CHECK(iiko_operation_is_command(IIKO_OP_TERMINAL_GROUPS) == 0);
    CHECK(iiko_operation_is_safe_to_retry(IIKO_OP_TERMINAL_GROUPS) == 1);
    CHECK(iiko_operation_is_deprecated(IIKO_OP_ACCESS_TOKEN_V1) == 1);
    CHECK(iiko_operation_restriction_group(IIKO_OP_DELIVERIES_CREATE) != NULL);
    CHECK(iiko_operation_restriction_group(IIKO_OP_ACCESS_TOKEN) == NULL);
    /* The numbering is append-only: these two were given first and stay. */
    CHECK(IIKO_OP_ACCESS_TOKEN == 1);
    CHECK(IIKO_OP_DELIVERIES_CREATE == 27);
    int named = 0;
    for (iiko_operation op = 1; op <= n; op++) {
        const char *name = iiko_operation_name(op);
        if (name != NULL) {
            named++;
            CHECK(iiko_operation_by_name(name) == op);
            CHECK(iiko_operation_path(op) != NULL && iiko_operation_path(op)[0] == '/');
        }
    }
    CHECK(named >= 225);
    iiko_operation bad[] = {0, -1, n + 1, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(iiko_operation_name(bad[i]) == NULL);
        CHECK(iiko_operation_path(bad[i]) == NULL);
        CHECK(iiko_operation_restriction_group(bad[i]) == NULL);
        CHECK(iiko_operation_is_command(bad[i]) == -1);
        CHECK(iiko_operation_is_safe_to_retry(bad[i]) == -1);
        CHECK(iiko_operation_is_deprecated(bad[i]) == -1);
    }
    CHECK(iiko_operation_by_name(NULL) == 0);
    CHECK(iiko_operation_by_name("") == 0);
    CHECK(iiko_operation_by_name("deliveries") == 0);
    CHECK(iiko_operation_by_name("deliveries.create\xff") == 0);
}

/* ---- bad arguments: nothing is sent, the right status comes back ---- */

static void test_bad_arguments(void) {
    iiko_client *client = emulator_client();
    char *json = SENTINEL;
    iiko_error *err = NULL;
    const char *req = "{\"organizationIds\":[\"" ORG "\"]}";

    CHECK_STATUS(iiko_client_call_operation(NULL, IIKO_OP_TERMINAL_GROUPS, req, 0, 0, &json, &err),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK(json == SENTINEL);
    CHECK_CONTAINS(iiko_error_message(err), "client");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_TERMINAL_GROUPS, req, 0, 0, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_client_call_operation(client, 0, req, 0, 0, &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_CONTAINS(iiko_error_message(err), "no operation numbered 0");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_call_operation(client, iiko_operation_count() + 1, req, 0, 0, &json,
                                            NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(
        iiko_client_call_operation(client, IIKO_OP_TERMINAL_GROUPS, "{\"a\":\"\xff\"}", 0, 0, &json,
                                   &err),
        IIKO_STATUS_INVALID_UTF8, err);
    CHECK_CONTAINS(iiko_error_message(err), "request_json");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_TERMINAL_GROUPS, "{\"organizationIds\":",
                                            0, 0, &json, &err),
                 IIKO_STATUS_INVALID_JSON, err);
    iiko_error_free(err);
    err = NULL;
    /* IIKO_CALL_IDEMPOTENT is the raw call's: an operation has its own rule. */
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_TERMINAL_GROUPS, req, 0,
                                            IIKO_CALL_IDEMPOTENT, &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "unknown flags");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_TERMINAL_GROUPS, req, 999, 0, &json,
                                            &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err),
                   "call.timeout must be between 1 s and 1 h, got 999 ms");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_client_call_operation_wait(client, IIKO_OP_DELIVERIES_CREATE, "{}", 0,
                                                 86400001, 0, &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "wait.timeout must be between");
    iiko_error_free(err);
    err = NULL;
    CHECK(json == SENTINEL);

    /* NULL request means {}: terminal_groups requires organizationIds. */
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_TERMINAL_GROUPS, NULL, 0, 0, &json,
                                            &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "organizationIds");
    iiko_error_free(err);
    err = NULL;
    /* With a request, and a Timeout of its own. */
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_TERMINAL_GROUPS, req, 2000, 0, &json,
                                            &err),
                 IIKO_STATUS_OK, err);
    CHECK_CONTAINS(json, "terminalGroups");
    iiko_string_free(json);
    json = SENTINEL;

    /* prepare: the same checks without sending; gives the JSON that would go. */
    CHECK_STATUS(iiko_operation_prepare(IIKO_OP_TERMINAL_GROUPS, req, 0, &json, &err),
                 IIKO_STATUS_OK, err);
    CHECK_CONTAINS(json, ORG);
    iiko_string_free(json);
    json = SENTINEL;
    CHECK_STATUS(iiko_operation_prepare(IIKO_OP_DELIVERIES_BY_ID,
                                        "{\"organizationId\":\"" ORG "\",\"orderIds\":[\"x\"]}",
                                        0, &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "orderIds[0]");
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_operation_prepare(IIKO_OP_TERMINAL_GROUPS, req, 0, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_operation_prepare(-5, req, 0, &json, NULL), IIKO_STATUS_INVALID_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_operation_prepare(IIKO_OP_TERMINAL_GROUPS, req, IIKO_CALL_MONEY_AS_STRING,
                                        &json, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK(json == SENTINEL);
    iiko_client_free(client);
}

/* ---- keys that are no field ---- */

/* A misspelt key at the top, nested and in a list item is refused with its
 * path and the nearest field, before anything is sent; IIKO_CALL_ALLOW_UNKNOWN_FIELDS
 * sends it (the emulator, which knows the document, then refuses it itself). */
static void test_unknown_fields(void) {
    iiko_client *client = emulator_client();
    char *json = SENTINEL;
    iiko_error *err = NULL;
    static const struct {
        const char *request;
        const char *message;
    } misspelt[] = {
        {"{\"organisationId\":\"" ORG "\",\"terminalGroupId\":\"" TG "\",\"order\":{}}",
         "organisationId: not a field of CreateOrderRequest; did you mean organizationId?"},
        {"{\"organizationId\":\"" ORG "\",\"terminalGroupId\":\"" TG "\",\"order\":{"
         "\"phone\":\"+79160000007\",\"delivery_point\":{},\"items\":[{\"type\":\"Product\","
         "\"productId\":\"b1e604c4-586f-4a06-b3d0-ff67e6c542a2\",\"amount\":1,\"price\":5}]}}",
         "order.delivery_point: not a field of DeliveryOrder; did you mean deliveryPoint?"},
        {"{\"organizationId\":\"" ORG "\",\"terminalGroupId\":\"" TG "\",\"order\":{"
         "\"phone\":\"+79160000007\",\"items\":[{\"type\":\"Product\","
         "\"productId\":\"b1e604c4-586f-4a06-b3d0-ff67e6c542a2\",\"amount\":1,\"price\":5,"
         "\"coment\":\"no onions\"}]}}",
         "order.items[0].coment: not a field of ProductOrderItem; did you mean comment?"},
    };
    for (size_t i = 0; i < sizeof misspelt / sizeof misspelt[0]; i++) {
        CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_DELIVERIES_CREATE,
                                                misspelt[i].request, 0, 0, &json, &err),
                     IIKO_STATUS_INVALID_ARGUMENT, err);
        CHECK(json == SENTINEL);
        CHECK_CONTAINS(iiko_error_message(err), misspelt[i].message);
        iiko_error_free(err);
        err = NULL;
        CHECK_STATUS(iiko_operation_prepare(IIKO_OP_DELIVERIES_CREATE, misspelt[i].request, 0,
                                            &json, &err),
                     IIKO_STATUS_INVALID_ARGUMENT, err);
        iiko_error_free(err);
        err = NULL;
    }
    /* Allowed through: prepare writes it as given, the call sends it. */
    CHECK_STATUS(iiko_operation_prepare(IIKO_OP_DELIVERIES_CREATE, misspelt[2].request,
                                        IIKO_CALL_ALLOW_UNKNOWN_FIELDS, &json, &err),
                 IIKO_STATUS_OK, err);
    CHECK_CONTAINS(json, "\"coment\":\"no onions\"");
    iiko_string_free(json);
    json = SENTINEL;
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_DELIVERIES_CREATE, misspelt[2].request,
                                            0, IIKO_CALL_ALLOW_UNKNOWN_FIELDS, &json, &err),
                 IIKO_STATUS_API_BAD_REQUEST, err);
    CHECK_CONTAINS(iiko_error_message(err), "coment");
    iiko_error_free(err);
    iiko_client_free(client);
}

/* ---- commands ---- */

static void test_command_errors_carry_the_reason(void) {
    iiko_client *client = emulator_client();
    char *json = SENTINEL;
    iiko_error *err = NULL;
    const char *order = "{\"organizationId\":\"" ORG "\",\"terminalGroupId\":\"" TG "\","
                        "\"order\":{\"phone\":\"+79160000005\",\"items\":[{\"type\":\"Product\","
                        "\"productId\":\"00000000-0000-4000-8000-000000000009\",\"amount\":1,"
                        "\"price\":5}]}}";
    CHECK_STATUS(iiko_client_call_operation_wait(client, IIKO_OP_DELIVERIES_CREATE, order, 0,
                                                 20000, 0, &json, &err),
                 IIKO_STATUS_COMMAND_FAILED, err);
    CHECK(json == SENTINEL);
    CHECK(iiko_error_correlation_id(err) != NULL);
    CHECK_CONTAINS(iiko_error_message(err), "ProductNotFound");
    CHECK_CONTAINS(iiko_status_str(IIKO_STATUS_COMMAND_FAILED), "IIKO_STATUS_COMMAND_FAILED");
    iiko_error_free(err);
    err = NULL;
    /* Waiting on a correlationId of one's own. */
    const char *good = "{\"organizationId\":\"" ORG "\",\"terminalGroupId\":\"" TG "\","
                       "\"order\":{\"phone\":\"+79160000006\",\"items\":[{\"type\":\"Product\","
                       "\"productId\":\"b1e604c4-586f-4a06-b3d0-ff67e6c542a2\",\"amount\":1,"
                       "\"price\":5}]}}";
    CHECK_STATUS(iiko_client_call_operation(client, IIKO_OP_DELIVERIES_CREATE, good, 0, 0, &json,
                                            &err),
                 IIKO_STATUS_OK, err);
    size_t len = 0;
    const char *cid = json != SENTINEL ? json_at(json, "correlationId", &len) : NULL;
    CHECK(cid != NULL && len == 38);
    if (cid != NULL && len == 38) {
        char id[37];
        memcpy(id, cid + 1, 36);
        id[36] = '\0';
        CHECK_STATUS(iiko_client_wait_command(client, ORG, id, 20000, &err), IIKO_STATUS_OK, err);
        CHECK_STATUS(iiko_client_wait_command(client, ORG, "8c1bd5c1-0000-4000-8000-00000000dead",
                                              20000, &err),
                     IIKO_STATUS_COMMAND_EXPIRED, err);
        iiko_error_free(err);
        err = NULL;
    }
    CHECK_STATUS(iiko_client_wait_command(client, ORG, NULL, 0, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_client_wait_command(NULL, ORG, ORG, 0, NULL), IIKO_STATUS_NULL_ARGUMENT,
                 NULL);
    if (json != SENTINEL) {
        iiko_string_free(json);
    }
    json = SENTINEL;
    /* A read is not a command: refused before sending. */
    CHECK_STATUS(iiko_client_call_operation_wait(client, IIKO_OP_TERMINAL_GROUPS,
                                                 "{\"organizationIds\":[\"" ORG "\"]}", 0, 0, 0,
                                                 &json, &err),
                 IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "not a command");
    iiko_error_free(err);
    err = NULL;
    iiko_error_free(err);
    iiko_client_free(client);
}

/* ---- the answers that are JSON lists, and the one with no content ---- */

/* Calls `op` and returns its answer's text (NULL after a failed check). */
static char *call_ok(iiko_client *client, iiko_operation op, const char *request) {
    char *json = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_call_operation(client, op, request, 0, 0, &json, &err),
                 IIKO_STATUS_OK, err);
    iiko_error_free(err);
    return json;
}

/* The value at `path` is exactly `want` (raw JSON text). */
static void check_at(const char *json, const char *path, const char *want) {
    size_t len = 0;
    const char *raw = json != NULL ? json_at(json, path, &len) : NULL;
    if (!raw_equals(raw, len, want)) {
        fprintf(stderr, "  %s: %.*s, wanted %s\n", path, raw != NULL ? (int)len : 6,
                raw != NULL ? raw : "absent", want);
        CHECK(raw_equals(raw, len, want));
    }
}

/* The value at `path` is there. */
static void check_has(const char *json, const char *path) {
    size_t len = 0;
    if (json == NULL || json_at(json, path, &len) == NULL) {
        fprintf(stderr, "  %s: absent\n", path);
        CHECK(0);
    }
}

static void test_list_answers(void) {
    iiko_client *client = emulator_client();
    size_t len = 0;

    /* OLAP columns: a list of {name, displayName, type, tags, canAggregate,
     * canFilter, canGroup}, not a map keyed by name. */
    char *json = call_ok(client, IIKO_OP_REPORTING_OLAP_COLUMNS_GET, "{\"reportType\":\"SALES\"}");
    CHECK(json != NULL && json[0] == '[');
    check_at(json, "0.name", "\"OpenDate.Typed\"");
    check_at(json, "0.displayName", "\"Open date\"");
    check_at(json, "0.type", "\"DATE\"");
    check_at(json, "0.tags", "[\"Date and time\"]");
    check_at(json, "0.canFilter", "true");
    check_at(json, "0.canGroup", "true");
    check_at(json, "5.name", "\"DishSumInt\"");
    check_at(json, "5.canAggregate", "true");
    CHECK(json != NULL && json_at(json, "7", &len) == NULL); /* seven columns */
    CHECK(json != NULL && strstr(json, "aggregationAllowed") == NULL);
    iiko_string_free(json);

    json = call_ok(client, IIKO_OP_REPORTING_OLAP_PRESETS_LIST, NULL);
    CHECK(json != NULL && json[0] == '[');
    check_has(json, "0.presetId");
    check_at(json, "0.name", "\"Sales by day\"");
    iiko_string_free(json);

    /* The organization tree: legal entities, organizations as leaves. */
    json = call_ok(client, IIKO_OP_INVENTORY_ORGANIZATIONS_TREE, "{}");
    CHECK(json != NULL && json[0] == '[');
    check_at(json, "0.type", "\"JUR_PERSON\"");
    check_at(json, "0.name", "\"Emulator Restaurants LLC\"");
    check_has(json, "0.jurPersonId");
    check_at(json, "0.children.0.organizationId", "\"" ORG "\"");
    check_at(json, "0.children.0.code", "\"EMU-PIZZA\"");
    check_at(json, "0.children.0.type", "\"Rms\"");
    check_at(json, "0.children.0.children", "[]");
    iiko_string_free(json);

    json = call_ok(client, IIKO_OP_FINANCE_ACCOUNT_TYPE_LIST, NULL);
    CHECK(json != NULL && json[0] == '[');
    check_at(json, "0.code", "\"CASH\"");
    iiko_string_free(json);

    /* An inventory created on a day of its own is listed for that day
     * (other runs against the same emulator may have added theirs). */
    json = call_ok(client, IIKO_OP_INVENTORY_INCOMING_INVENTORY_CREATE,
                   "{\"organizationId\":\"" ORG "\",\"store\":\"" TG "\","
                   "\"date\":\"2031-07-14T09:00:00\",\"items\":[],\"itemsFirstStep\":[]}");
    const char *id = json != NULL ? json_at(json, "documentId", &len) : NULL;
    CHECK(id != NULL && len == 38);
    char document[39] = "";
    if (id != NULL && len == 38) {
        memcpy(document, id, 38);
        document[38] = '\0';
    }
    iiko_string_free(json);
    json = call_ok(client, IIKO_OP_INVENTORY_INCOMING_INVENTORY_LIST,
                   "{\"organizationId\":\"" ORG "\",\"from\":\"2031-07-14\",\"to\":\"2031-07-14\"}");
    CHECK(json != NULL && json[0] == '[');
    CHECK_CONTAINS(json, document);
    check_at(json, "0.processed", "false");
    check_at(json, "0.deleted", "false");
    check_at(json, "0.storeFrom", "\"" TG "\"");
    CHECK(json != NULL && strstr(json, "\"status\"") == NULL);
    iiko_string_free(json);

    /* deliveries.update_tracking_link is declared with no content: none
     * comes, and the answer's text is JSON null. */
    json = call_ok(client, IIKO_OP_DELIVERIES_UPDATE_TRACKING_LINK,
                   "{\"organizationId\":\"" ORG "\",\"orderId\":\"" TG "\"}");
    CHECK_STR(json, "null");
    iiko_string_free(json);
    iiko_client_free(client);
}

/* ---- the language-neutral vectors ---- */

static unsigned char *b64_decode(const char *in) {
    size_t n = strlen(in);
    unsigned char *out = malloc(n / 4 * 3 + 4);
    size_t len = 0;
    unsigned int acc = 0;
    int bits = 0;
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; out != NULL && i < n && in[i] != '='; i++) {
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
    if (out != NULL) {
        out[len] = '\0';
    }
    return out;
}

static char *copy_text(const char *s) {
    size_t n = strlen(s) + 1;
    char *out = malloc(n);
    if (out != NULL) {
        memcpy(out, s, n);
    }
    return out;
}

static void strip_newline(char *line) {
    line[strcspn(line, "\r\n")] = '\0';
}

static int split(char *line, char **fields, int max) {
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
    return n;
}

typedef struct {
    char *name;
    char op[128];
    int wait;
    char outcome[32];
    char *request;
    char *contains[8];
    int ncontains;
    char *check_path[16];
    char check_kind[16][16];
    char *check_value[16];
    int nchecks;
} vector_case;

static void free_case(vector_case *c) {
    free(c->name);
    free(c->request);
    for (int i = 0; i < c->ncontains; i++) {
        free(c->contains[i]);
    }
    for (int i = 0; i < c->nchecks; i++) {
        free(c->check_path[i]);
        free(c->check_value[i]);
    }
    memset(c, 0, sizeof *c);
}

static int run_case(iiko_client *client, const vector_case *c, uint32_t flags) {
    int before = harness_failures;
    iiko_operation op = iiko_operation_by_name(c->op);
    char *json = NULL;
    iiko_error *err = NULL;
    iiko_status st;
    if (op == 0) {
        /* Unknown to the table: the by-name route must agree it is unknown. */
        st = IIKO_STATUS_INVALID_ARGUMENT;
    } else if (c->wait) {
        st = iiko_client_call_operation_wait(client, op, c->request, 0, 20000, flags, &json, &err);
    } else {
        st = iiko_client_call_operation(client, op, c->request, 0, flags, &json, &err);
    }
    const char *message = err != NULL ? iiko_error_message(err) : NULL;
    if (strcmp(c->outcome, "ok") == 0) {
        CHECK_STATUS(st, IIKO_STATUS_OK, err);
        for (int i = 0; st == IIKO_STATUS_OK && i < c->nchecks; i++) {
            size_t len = 0;
            const char *raw = json_at(json, c->check_path[i], &len);
            const char *kind = c->check_kind[i];
            const char *want = c->check_value[i];
            int ok;
            if (strcmp(kind, "equals") == 0) {
                ok = raw_equals(raw, len, want);
            } else if (strcmp(kind, "money") == 0) {
                /* Exactly these digits in the JSON text: a number, or a string. */
                char quoted[128];
                snprintf(quoted, sizeof quoted, "\"%s\"", want);
                ok = raw_equals(raw, len, (flags & IIKO_CALL_MONEY_AS_STRING) ? quoted : want);
            } else {
                ok = raw != NULL && !raw_equals(raw, len, "null");
            }
            if (!ok) {
                fprintf(stderr, "  %s: %s %s %s, got %.*s in %.300s\n", c->name, c->check_path[i],
                        kind, want, raw ? (int)len : 6, raw ? raw : "(none)", json);
                harness_failures++;
            }
        }
    } else if (strcmp(c->outcome, "invalid") == 0) {
        /* An unknown name has no number: the table says so (op == 0). */
        CHECK_STATUS(st, IIKO_STATUS_INVALID_ARGUMENT, err);
    } else if (strcmp(c->outcome, "command_failed") == 0) {
        CHECK_STATUS(st, IIKO_STATUS_COMMAND_FAILED, err);
    } else {
        fprintf(stderr, "  %s: unknown outcome %s\n", c->name, c->outcome);
        harness_failures++;
    }
    for (int i = 0; op != 0 && i < c->ncontains; i++) {
        CHECK_CONTAINS(message, c->contains[i]);
    }
    iiko_string_free(json);
    iiko_error_free(err);
    if (harness_failures != before) {
        fprintf(stderr, "  ^ vector \"%s\" (flags %u)\n", c->name, flags);
    }
    return harness_failures == before;
}

static void test_vectors(void) {
    const char *path = getenv("IIKO_OPS_TSV");
    CHECK(path != NULL);
    FILE *f = path ? fopen(path, "r") : NULL;
    CHECK(f != NULL);
    if (f == NULL) {
        return;
    }
    iiko_client *client = emulator_client();
    char line[65536];
    int cases = 0;
    int passed = 0;
    vector_case c;
    memset(&c, 0, sizeof c);
    int have = 0;
    uint32_t modes[] = {0, IIKO_CALL_MONEY_AS_STRING};
    for (;;) {
        char *got = fgets(line, sizeof line, f);
        if (got != NULL) {
            strip_newline(line);
        }
        if (got == NULL || line[0] == 'C') {
            if (have) {
                for (size_t m = 0; m < 2; m++) {
                    cases++;
                    passed += run_case(client, &c, modes[m]);
                }
                free_case(&c);
                have = 0;
            }
            if (got == NULL) {
                break;
            }
            char *fields[6];
            if (split(line, fields, 6) != 6) {
                CHECK(!"a C line has 6 fields");
                continue;
            }
            c.name = (char *)b64_decode(fields[1]);
            snprintf(c.op, sizeof c.op, "%s", fields[2]);
            c.wait = fields[3][0] == '1';
            snprintf(c.outcome, sizeof c.outcome, "%s", fields[4]);
            c.request = (char *)b64_decode(fields[5]);
            have = 1;
        } else if (line[0] == 'X' && c.ncontains < 8) {
            char *fields[2];
            if (split(line, fields, 2) == 2) {
                c.contains[c.ncontains++] = (char *)b64_decode(fields[1]);
            }
        } else if (line[0] == 'K' && c.nchecks < 16) {
            char *fields[4];
            if (split(line, fields, 4) == 4) {
                c.check_path[c.nchecks] = copy_text(fields[1]);
                snprintf(c.check_kind[c.nchecks], 16, "%s", fields[2]);
                c.check_value[c.nchecks] = (char *)b64_decode(fields[3]);
                c.nchecks++;
            }
        }
    }
    fclose(f);
    iiko_client_free(client);
    printf("     operation vectors: %d of %d runs passed\n", passed, cases);
    CHECK(cases >= 20);
}

/* ---- webhook event fields (generated IIKO_EVENT_FIELD_*) ---- */

static void test_event_fields(void) {
    const char *dir = getenv("IIKO_VECTORS");
    CHECK(dir != NULL);
    if (dir == NULL) {
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/payloads/multi_all_types.json", dir);
    size_t len = 0;
    unsigned char *body = read_file(path, &len);
    CHECK(body != NULL);
    if (body == NULL) {
        return;
    }
    iiko_events *events = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_webhook_parse((const char *)body, len, 0, 0, 0, &events, &err),
                 IIKO_STATUS_OK, err);
    free(body);
    char *value = SENTINEL;
    CHECK_STATUS(iiko_events_field(events, 0, IIKO_EVENT_FIELD_EVENT_TYPE, &value, &err),
                 IIKO_STATUS_OK, err);
    CHECK_STR(value, "DeliveryOrderUpdate");
    iiko_string_free(value);
    /* The amount as the body wrote it, never through a double. */
    CHECK_STATUS(iiko_events_field(events, 0, IIKO_EVENT_FIELD_ORDER_SUM, &value, &err),
                 IIKO_STATUS_OK, err);
    CHECK_STR(value, "1780.0");
    iiko_string_free(value);
    CHECK_STATUS(iiko_events_field(events, 0, IIKO_EVENT_FIELD_ORDER_PHONE, &value, &err),
                 IIKO_STATUS_OK, err);
    CHECK_STR(value, "+79161234567");
    iiko_string_free(value);
    /* A table order's phone is null: NULL. A reserve field of a delivery: NULL. */
    CHECK_STATUS(iiko_events_field(events, 4, IIKO_EVENT_FIELD_ORDER_PHONE, &value, &err),
                 IIKO_STATUS_OK, err);
    CHECK(value == NULL);
    value = SENTINEL;
    CHECK_STATUS(iiko_events_field(events, 0, IIKO_EVENT_FIELD_RESERVE_ORDER_SUM, &value, &err),
                 IIKO_STATUS_OK, err);
    CHECK(value == NULL);
    value = SENTINEL;
    CHECK_STATUS(iiko_events_field(events, 99, IIKO_EVENT_FIELD_ORDER_SUM, &value, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK_STATUS(iiko_events_field(events, 0, 0, &value, NULL), IIKO_STATUS_INVALID_ARGUMENT,
                 NULL);
    CHECK_STATUS(iiko_events_field(events, 0, iiko_event_field_count() + 1, &value, NULL),
                 IIKO_STATUS_INVALID_ARGUMENT, NULL);
    CHECK(value == SENTINEL);
    CHECK_STATUS(iiko_events_field(events, 0, IIKO_EVENT_FIELD_ORDER_SUM, NULL, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STATUS(iiko_events_field(NULL, 0, IIKO_EVENT_FIELD_ORDER_SUM, &value, NULL),
                 IIKO_STATUS_NULL_ARGUMENT, NULL);
    CHECK_STR(iiko_event_field_path(IIKO_EVENT_FIELD_ORDER_SUM), "eventInfo.order.sum");
    CHECK(iiko_event_field_by_path("eventInfo.order.sum") == IIKO_EVENT_FIELD_ORDER_SUM);
    CHECK(iiko_event_field_by_path("eventInfo.order") == 0);
    CHECK(iiko_event_field_by_path(NULL) == 0);
    CHECK(iiko_event_field_path(0) == NULL);
    iiko_events_free(events);
}

static const test_case cases[] = {
    {"event_fields", test_event_fields},
    {"table", test_table},
    {"bad_arguments", test_bad_arguments},
    {"command_errors", test_command_errors_carry_the_reason},
    {"unknown_fields", test_unknown_fields},
    {"list_answers", test_list_answers},
    {"vectors", test_vectors},
};

int main(int argc, char **argv) {
    base_url = getenv("IIKO_BASE_URL");
    if (base_url == NULL) {
        fprintf(stderr, "set IIKO_BASE_URL and IIKO_OPS_TSV\n");
        return 2;
    }
    return run_cases(cases, sizeof cases / sizeof cases[0], "test_operations", argc - 1, argv + 1);
}
