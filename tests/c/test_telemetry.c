/* The telemetry table (iiko_telemetry_set) against a running emulator: a
 * scripted run (a call with its token fetch, a call refused with 401 and sent
 * again with a new token, a command that fails, a webhook body received twice
 * and judged a duplicate) whose callbacks collect every span, metric point and
 * log record; the checks read names, parents, attributes and the absence of
 * the run's secrets. The table is set once per process, so this is a program
 * of its own. Also the thread-local capture (iiko_telemetry_capture_*) the
 * PHP package uses.
 *
 * Environment: IIKO_BASE_URL (the emulator), IIKO_VECTORS (the webhook
 * bodies). Run natively and under valgrind by scripts/c-test.sh. */
#define _POSIX_C_SOURCE 200809L

#include "iikocloud.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

#define ORG "441e1320-3f58-4702-9f9e-aa34cdef9c04"
#define TG "7b668cda-784b-4938-bd54-cd2bd147a44c"
#define HOOK_TOKEN "tele-hook-token-5e1f"

static const char *base_url;
static const char *vectors_dir;

/* ---- what the callbacks collect (they may run on any thread) ---- */

#define MAX_RECORDS 512
#define MAX_TEXT 2048

typedef struct {
    char name[128];
    char kind[16];
    int status;
    uint64_t trace_id, span_id, parent_id, start_ns, end_ns;
    char attrs[MAX_TEXT];  /* "key=value;" for each attribute */
    char events[MAX_TEXT]; /* "name{key=value;}" for each event */
    pthread_t thread;
} span_copy;

typedef struct {
    char name[96];
    char kind[16];
    char unit[24];
    size_t index;
    double value;
    char attrs[MAX_TEXT];
} point_copy;

typedef struct {
    int level;
    char target[96];
    char message[256];
    uint64_t span_id;
    char attrs[MAX_TEXT];
} log_copy;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static span_copy spans[MAX_RECORDS];
static point_copy points[MAX_RECORDS];
static log_copy logs[MAX_RECORDS];
static size_t span_count, point_count, log_count;
static int user_data_seen_wrong;
static int user_data_tag = 42;

static void append(char *buf, const char *text) {
    size_t used = strlen(buf);
    snprintf(buf + used, MAX_TEXT - used, "%s", text);
}

static void append_attrs(char *buf, const iiko_attribute *attrs, size_t count) {
    for (size_t i = 0; i < count; i++) {
        char one[512];
        const iiko_attribute *a = &attrs[i];
        switch (a->value_type) {
        case IIKO_ATTR_STRING:
            snprintf(one, sizeof one, "%s=%s;", a->key, a->string_value);
            break;
        case IIKO_ATTR_INT:
            snprintf(one, sizeof one, "%s=%lld;", a->key, (long long)a->int_value);
            break;
        case IIKO_ATTR_DOUBLE:
            snprintf(one, sizeof one, "%s=%g;", a->key, a->double_value);
            break;
        case IIKO_ATTR_BOOL:
            snprintf(one, sizeof one, "%s=%s;", a->key, a->bool_value ? "true" : "false");
            break;
        default:
            snprintf(one, sizeof one, "%s=?type%d;", a->key, (int)a->value_type);
        }
        append(buf, one);
    }
}

static void on_span_end(void *user_data, const iiko_span *span) {
    pthread_mutex_lock(&lock);
    user_data_seen_wrong |= user_data != &user_data_tag;
    if (span_count < MAX_RECORDS) {
        span_copy *c = &spans[span_count++];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "%s", span->name);
        snprintf(c->kind, sizeof c->kind, "%s", span->kind);
        c->status = span->status;
        c->trace_id = span->trace_id;
        c->span_id = span->span_id;
        c->parent_id = span->parent_span_id;
        c->start_ns = span->start_unix_ns;
        c->end_ns = span->end_unix_ns;
        c->thread = pthread_self();
        append_attrs(c->attrs, span->attributes, span->attribute_count);
        for (size_t i = 0; i < span->event_count; i++) {
            append(c->events, span->events[i].name);
            append(c->events, "{");
            append_attrs(c->events, span->events[i].attributes, span->events[i].attribute_count);
            append(c->events, "}");
        }
    }
    pthread_mutex_unlock(&lock);
}

static void on_metric(void *user_data, const iiko_metric_point *point) {
    pthread_mutex_lock(&lock);
    user_data_seen_wrong |= user_data != &user_data_tag;
    if (point_count < MAX_RECORDS) {
        point_copy *c = &points[point_count++];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "%s", point->name);
        snprintf(c->kind, sizeof c->kind, "%s", point->kind);
        snprintf(c->unit, sizeof c->unit, "%s", point->unit);
        c->index = point->metric_index;
        c->value = point->value;
        append_attrs(c->attrs, point->attributes, point->attribute_count);
    }
    pthread_mutex_unlock(&lock);
}

static void on_log(void *user_data, const iiko_log_record *record) {
    pthread_mutex_lock(&lock);
    user_data_seen_wrong |= user_data != &user_data_tag;
    if (log_count < MAX_RECORDS) {
        log_copy *c = &logs[log_count++];
        memset(c, 0, sizeof *c);
        c->level = record->level;
        snprintf(c->target, sizeof c->target, "%s", record->target);
        snprintf(c->message, sizeof c->message, "%s", record->message);
        c->span_id = record->span_id;
        append_attrs(c->attrs, record->attributes, record->attribute_count);
    }
    pthread_mutex_unlock(&lock);
}

/* ---- lookups ---- */

static const span_copy *span_named(const char *name, size_t nth) {
    for (size_t i = 0; i < span_count; i++) {
        if (strcmp(spans[i].name, name) == 0 && nth-- == 0) {
            return &spans[i];
        }
    }
    return NULL;
}

static const span_copy *span_by_id(uint64_t id) {
    for (size_t i = 0; i < span_count; i++) {
        if (spans[i].span_id == id) {
            return &spans[i];
        }
    }
    return NULL;
}

static size_t points_with(const char *name, const char *attr) {
    size_t n = 0;
    for (size_t i = 0; i < point_count; i++) {
        if (strcmp(points[i].name, name) == 0 && (attr == NULL || strstr(points[i].attrs, attr))) {
            n++;
        }
    }
    return n;
}

static iiko_client *emulator_client(void) {
    iiko_client_options *options = NULL;
    CHECK_STATUS(iiko_client_options_new(&options, NULL), IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_v2(options, "emulator-app", "emulator-secret",
                                            "emulator-api-key", NULL),
                 IIKO_STATUS_OK, NULL);
    CHECK_STATUS(iiko_client_options_set_base_url(options, base_url, NULL), IIKO_STATUS_OK, NULL);
    iiko_client *client = NULL;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_new(options, &client, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    iiko_client_options_free(options);
    return client;
}

static char *current_token(iiko_client *client) {
    char *token = NULL;
    int64_t expires = 0;
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_client_access_token(client, &token, &expires, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    return token;
}

/* ---- cases ---- */

static iiko_telemetry full_table(void) {
    iiko_telemetry t;
    memset(&t, 0, sizeof t);
    t.size = sizeof t;
    t.version = IIKO_TELEMETRY_VERSION;
    t.log_level = IIKO_LOG_DEBUG;
    t.user_data = &user_data_tag;
    t.on_span_end = on_span_end;
    t.on_metric = on_metric;
    t.on_log = on_log;
    return t;
}

/* Runs first: nothing here may set the table. */
static void test_bad_tables_are_refused(void) {
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_telemetry_set(NULL, &err), IIKO_STATUS_NULL_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "telemetry");
    iiko_error_free(err);
    err = NULL;

    iiko_telemetry t = full_table();
    t.size = sizeof t - sizeof(void *);
    CHECK_STATUS(iiko_telemetry_set(&t, &err), IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "sizeof(iiko_telemetry)");
    iiko_error_free(err);
    err = NULL;

    t = full_table();
    t.version = IIKO_TELEMETRY_VERSION + 98;
    CHECK_STATUS(iiko_telemetry_set(&t, &err), IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "IIKO_TELEMETRY_VERSION");
    iiko_error_free(err);
    err = NULL;

    t = full_table();
    t.log_level = 9;
    CHECK_STATUS(iiko_telemetry_set(&t, &err), IIKO_STATUS_INVALID_ARGUMENT, err);
    CHECK_CONTAINS(iiko_error_message(err), "log_level");
    iiko_error_free(err);
    err = NULL;

    CHECK_STATUS(iiko_telemetry_capture_begin(-1, &err), IIKO_STATUS_INVALID_ARGUMENT, err);
    iiko_error_free(err);
    err = NULL;
    CHECK_STATUS(iiko_telemetry_capture_take(NULL, &err), IIKO_STATUS_NULL_ARGUMENT, err);
    iiko_error_free(err);

    /* None of them was kept: a call reaches no callback. */
    iiko_client *client = emulator_client();
    iiko_organizations *orgs = NULL;
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, NULL), IIKO_STATUS_OK, NULL);
    iiko_organizations_free(orgs);
    iiko_client_free(client);
    CHECK(span_count == 0 && point_count == 0 && log_count == 0);
}

/* Run on a thread of its own: its call's span must arrive on that thread. */
static void *call_on_a_thread(void *arg) {
    iiko_client *client = arg;
    char *json = NULL;
    CHECK_STATUS(iiko_client_stop_lists(client, "{\"organizationIds\":[\"" ORG "\"]}", &json, NULL),
                 IIKO_STATUS_OK, NULL);
    iiko_string_free(json);
    return NULL;
}

static void test_scripted_run(void) {
    iiko_telemetry t = full_table();
    iiko_error *err = NULL;
    CHECK_STATUS(iiko_telemetry_set(&t, &err), IIKO_STATUS_OK, err);
    iiko_error_free(err);
    err = NULL;
    /* Once per process: a second table is refused and the first stays. */
    t.on_span_end = NULL;
    CHECK_STATUS(iiko_telemetry_set(&t, &err), IIKO_STATUS_ALREADY_SET, err);
    CHECK(iiko_status_group(IIKO_STATUS_ALREADY_SET) == IIKO_STATUS_GROUP_ARGUMENTS);
    CHECK_CONTAINS(iiko_error_message(err), "first table stays");
    iiko_error_free(err);
    err = NULL;

    iiko_client *client = emulator_client();
    /* 1. A call, with its token fetch. */
    iiko_organizations *orgs = NULL;
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err), IIKO_STATUS_OK, err);
    iiko_organizations_free(orgs);
    char *first_token = current_token(client);

    /* 2. Tokens expire: the next call gets 401, a new token, and is sent again. */
    char *answer = NULL;
    CHECK_STATUS(iiko_client_call(client, "/_emulator/expire-tokens", "{}", 0, 0, &answer, &err),
                 IIKO_STATUS_OK, err);
    iiko_string_free(answer);
    orgs = NULL;
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err), IIKO_STATUS_OK, err);
    iiko_organizations_free(orgs);
    char *second_token = current_token(client);

    /* 3. A command that fails, followed to its end. */
    char *json = NULL;
    const char *order = "{\"organizationId\":\"" ORG "\",\"terminalGroupId\":\"" TG "\","
                        "\"order\":{\"phone\":\"+79160000005\",\"items\":[{\"type\":\"Product\","
                        "\"productId\":\"00000000-0000-4000-8000-000000000009\",\"amount\":1,"
                        "\"price\":5}]}}";
    CHECK_STATUS(iiko_client_call_operation_wait(client, IIKO_OP_DELIVERIES_CREATE, order, 0,
                                                 20000, 0, &json, &err),
                 IIKO_STATUS_COMMAND_FAILED, err);
    iiko_error_free(err);
    err = NULL;

    /* 4. A webhook body received twice; the second is a duplicate. */
    char path[1024];
    snprintf(path, sizeof path, "%s/payloads/delivery_order_update.json", vectors_dir);
    size_t body_len = 0;
    unsigned char *body = read_file(path, &body_len);
    CHECK(body != NULL);
    iiko_deduplicator *dedup = NULL;
    CHECK_STATUS(iiko_deduplicator_new(1000, 3600000, &dedup, &err), IIKO_STATUS_OK, err);
    const char *names[] = {"Authorization"};
    const char *values[] = {"Bearer " HOOK_TOKEN};
    int firsts[2] = {-1, -1};
    for (int round = 0; round < 2 && body != NULL; round++) {
        iiko_events *events = NULL;
        CHECK_STATUS(iiko_webhook_receive(HOOK_TOKEN, names, values, 1, (const char *)body,
                                          body_len, 0, 0, 0, &events, &err),
                     IIKO_STATUS_OK, err);
        CHECK(iiko_events_count(events) == 1);
        CHECK_STATUS(iiko_deduplicator_first_seen(dedup, events, 0, &firsts[round], &err),
                     IIKO_STATUS_OK, err);
        iiko_events_free(events);
    }
    CHECK(firsts[0] == 1 && firsts[1] == 0);
    iiko_deduplicator_free(dedup);
    free(body);

    /* 5. A call on another thread. */
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, call_on_a_thread, client) == 0);
    pthread_join(thread, NULL);
    iiko_client_free(client);

    pthread_mutex_lock(&lock);
    CHECK(!user_data_seen_wrong);

    /* Every span: ids set, a parent that was delivered (or none), children
     * in their parent's trace, inside its time, ended after they started. */
    CHECK(span_count >= 10);
    for (size_t i = 0; i < span_count; i++) {
        const span_copy *s = &spans[i];
        CHECK(s->span_id != 0 && s->trace_id != 0);
        CHECK(s->end_ns >= s->start_ns && s->start_ns > 1600000000ull * 1000000000ull);
        CHECK(strcmp(s->kind, "client") == 0 || strcmp(s->kind, "server") == 0 ||
              strcmp(s->kind, "internal") == 0);
        if (s->parent_id == 0) {
            CHECK(s->trace_id == s->span_id);
        } else {
            const span_copy *p = span_by_id(s->parent_id);
            CHECK(p != NULL);
            if (p != NULL) {
                CHECK(s->trace_id == p->trace_id);
                CHECK(s->start_ns >= p->start_ns && s->end_ns <= p->end_ns);
                /* Children end first, so are delivered first. */
                CHECK(s < p);
            }
        }
    }

    /* 1: the call and its token fetch beneath it. */
    const span_copy *call = span_named("organizations", 0);
    const span_copy *token = span_named("access_token", 0);
    CHECK(call != NULL && token != NULL);
    if (call != NULL && token != NULL) {
        CHECK(token->parent_id == call->span_id);
        CHECK_STR(call->kind, "client");
        CHECK(call->status == IIKO_SPAN_STATUS_UNSET);
        CHECK_CONTAINS(call->attrs, "http.request.method=POST;");
        CHECK_CONTAINS(call->attrs, "http.response.status_code=200;");
        CHECK_CONTAINS(call->attrs, "iiko.operation=organizations;");
        CHECK_CONTAINS(call->attrs, "server.address=127.0.0.1;");
        CHECK_CONTAINS(call->attrs, "/api/1/organizations;");
        CHECK_CONTAINS(call->attrs, "iiko.correlation_id=");
        CHECK(strstr(call->attrs, "http.request.resend_count") == NULL);
    }
    /* 2: the 401, a new token, the resend. */
    const span_copy *again = span_named("organizations", 1);
    const span_copy *token2 = span_named("access_token", 1);
    CHECK(again != NULL && token2 != NULL);
    if (again != NULL && token2 != NULL) {
        CHECK(token2->parent_id == again->span_id);
        CHECK(again->trace_id != (call ? call->trace_id : 0));
        CHECK_CONTAINS(again->attrs, "http.request.resend_count=1;");
        CHECK_CONTAINS(again->attrs, "http.response.status_code=200;");
        CHECK_CONTAINS(again->events, "resend{iiko.retry.cause=token_refused;");
        /* The core's `log` records are log records, not span events. */
        CHECK(strstr(again->events, "refreshing") == NULL);
        CHECK(again->status == IIKO_SPAN_STATUS_UNSET);
    }
    CHECK(points_with("iiko.client.retries", "iiko.retry.cause=token_refused;") == 1);
    CHECK(points_with("iiko.client.token.fetches", NULL) == 2);
    /* 3: the command's wait, its reason, its polls beneath it. */
    const span_copy *create = span_named("deliveries.create", 0);
    const span_copy *wait = span_named("wait_command", 0);
    CHECK(create != NULL && wait != NULL);
    if (create != NULL && wait != NULL) {
        CHECK_CONTAINS(create->attrs, "iiko.organization_id=" ORG ";");
        CHECK_STR(wait->kind, "internal");
        CHECK(wait->status == IIKO_SPAN_STATUS_ERROR);
        CHECK_CONTAINS(wait->attrs, "iiko.command.outcome=Error;");
        CHECK_CONTAINS(wait->attrs, "iiko.command.reason=ProductNotFound;");
        CHECK_CONTAINS(wait->attrs, "error.type=Error;");
        const span_copy *poll = span_named("commands.status", 0);
        CHECK(poll != NULL && poll->parent_id == wait->span_id);
        size_t polls = 0;
        while (span_named("commands.status", polls) != NULL) {
            polls++;
        }
        char want[64];
        snprintf(want, sizeof want, "iiko.command.polls=%zu;", polls);
        CHECK_CONTAINS(wait->attrs, want);
    }
    CHECK(points_with("iiko.client.command.wait.duration", "iiko.command.outcome=Error;") == 1);
    /* 4: two webhook spans with their event; the duplicate counted. */
    const span_copy *hook = span_named("webhook.receive", 0);
    CHECK(hook != NULL && span_named("webhook.receive", 1) != NULL);
    if (hook != NULL) {
        CHECK_STR(hook->kind, "server");
        CHECK(hook->parent_id == 0);
        CHECK_CONTAINS(hook->attrs, "http.response.status_code=200;");
        CHECK_CONTAINS(hook->attrs, "iiko.webhook.events=1;");
        CHECK_CONTAINS(hook->events, "webhook event{iiko.event.type=DeliveryOrderUpdate;");
    }
    CHECK(points_with("iiko.webhook.requests", "http.response.status_code=200;") == 2);
    CHECK(points_with("iiko.webhook.events", "iiko.event.outcome=duplicate;") == 1);
    /* 5: the other thread's call arrived on that thread. */
    const span_copy *stop = span_named("stop_lists", 0);
    CHECK(stop != NULL && pthread_equal(stop->thread, thread));

    /* Every point names a metric of the table, as the table says. */
    CHECK(points_with("http.client.request.duration", "iiko.operation=organizations;") >= 2);
    for (size_t i = 0; i < point_count; i++) {
        CHECK(points[i].name[0] != '\0' && points[i].unit[0] != '\0');
        CHECK(strcmp(points[i].kind, "counter") == 0 || strcmp(points[i].kind, "histogram") == 0 ||
              strcmp(points[i].kind, "gauge") == 0);
        if (strcmp(points[i].name, "http.client.request.duration") == 0) {
            CHECK(points[i].index == 0 && strcmp(points[i].unit, "s") == 0 &&
                  strcmp(points[i].kind, "histogram") == 0 && points[i].value >= 0);
        }
    }

    /* Log records at DEBUG and above: the resend (DEBUG) in its span, the
     * webhook events (INFO), and the core's `log` records such as the 401's
     * refresh (DEBUG), in the call's span too. */
    size_t resends = 0, hook_events = 0, refreshes = 0;
    for (size_t i = 0; i < log_count; i++) {
        CHECK(logs[i].level >= IIKO_LOG_ERROR && logs[i].level <= IIKO_LOG_DEBUG);
        CHECK(strncmp(logs[i].target, "iikocloud", 9) == 0);
        CHECK(strstr(logs[i].attrs, "log.") == NULL);
        if (strstr(logs[i].message, "401, refreshing the token once") != NULL) {
            refreshes++;
            CHECK(logs[i].level == IIKO_LOG_DEBUG);
            CHECK(again != NULL && logs[i].span_id == again->span_id);
            CHECK_CONTAINS(logs[i].target, "iikocloud::client");
        }
        if (strcmp(logs[i].message, "resend") == 0) {
            resends++;
            CHECK(logs[i].level == IIKO_LOG_DEBUG);
            CHECK(again != NULL && logs[i].span_id == again->span_id);
            CHECK_CONTAINS(logs[i].attrs, "iiko.retry.cause=token_refused;");
        }
        if (strcmp(logs[i].message, "webhook event") == 0) {
            hook_events++;
            CHECK(logs[i].level == IIKO_LOG_INFO);
        }
    }
    CHECK(resends == 1 && hook_events == 2 && refreshes == 1);
    if (getenv("IIKO_TELEMETRY_PRINT") != NULL) {
        for (size_t i = 0; i < log_count; i++) {
            printf("  log %d %s: %s {%s}\n", logs[i].level, logs[i].target, logs[i].message,
                   logs[i].attrs);
        }
    }

    /* No secret anywhere: the credentials, both tokens, the webhook token. */
    const char *secrets[] = {"emulator-secret", "emulator-api-key", first_token, second_token,
                             HOOK_TOKEN};
    for (size_t k = 0; k < sizeof secrets / sizeof secrets[0]; k++) {
        const char *secret = secrets[k];
        if (secret == NULL || strlen(secret) < 8) {
            CHECK(secret != NULL);
            continue;
        }
        for (size_t i = 0; i < span_count; i++) {
            CHECK(strstr(spans[i].name, secret) == NULL);
            CHECK(strstr(spans[i].attrs, secret) == NULL);
            CHECK(strstr(spans[i].events, secret) == NULL);
        }
        for (size_t i = 0; i < point_count; i++) {
            CHECK(strstr(points[i].attrs, secret) == NULL);
        }
        for (size_t i = 0; i < log_count; i++) {
            CHECK(strstr(logs[i].message, secret) == NULL);
            CHECK(strstr(logs[i].attrs, secret) == NULL);
        }
    }
    CHECK(first_token != NULL && second_token != NULL &&
          strcmp(first_token, second_token) != 0);
    pthread_mutex_unlock(&lock);
    iiko_string_free(first_token);
    iiko_string_free(second_token);
}

/* The per-thread capture, beside the table: the same spans as JSON. */
static void test_capture_on_this_thread(void) {
    iiko_client *client = emulator_client();
    iiko_error *err = NULL;
    char *json = NULL;
    /* Nothing begun: empty lists. */
    CHECK_STATUS(iiko_telemetry_capture_take(&json, &err), IIKO_STATUS_OK, err);
    CHECK_STR(json, "{\"logs\":[],\"spans\":[]}");
    iiko_string_free(json);
    json = NULL;

    CHECK_STATUS(iiko_telemetry_capture_begin(IIKO_LOG_DEBUG, &err), IIKO_STATUS_OK, err);
    iiko_organizations *orgs = NULL;
    CHECK_STATUS(iiko_client_organizations(client, NULL, &orgs, &err), IIKO_STATUS_OK, err);
    iiko_organizations_free(orgs);
    /* Another thread's call is not this thread's. */
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, call_on_a_thread, client) == 0);
    pthread_join(thread, NULL);
    CHECK_STATUS(iiko_telemetry_capture_take(&json, &err), IIKO_STATUS_OK, err);
    CHECK_CONTAINS(json, "\"name\":\"organizations\"");
    CHECK_CONTAINS(json, "\"iiko.operation\":\"organizations\"");
    CHECK(strstr(json, "stop_lists") == NULL);
    CHECK(strstr(json, "emulator-secret") == NULL && strstr(json, "emulator-api-key") == NULL);
    iiko_string_free(json);
    json = NULL;
    /* Taken: the capture ended. */
    CHECK_STATUS(iiko_telemetry_capture_take(&json, &err), IIKO_STATUS_OK, err);
    CHECK_STR(json, "{\"logs\":[],\"spans\":[]}");
    iiko_string_free(json);
    iiko_client_free(client);
}

int main(int argc, char **argv) {
    base_url = getenv("IIKO_BASE_URL");
    vectors_dir = getenv("IIKO_VECTORS");
    if (base_url == NULL || vectors_dir == NULL) {
        fprintf(stderr, "set IIKO_BASE_URL and IIKO_VECTORS\n");
        return 2;
    }
    /* In this order: the bad tables before the one that is kept. */
    static const test_case cases[] = {
        {"bad_tables_are_refused", test_bad_tables_are_refused},
        {"scripted_run", test_scripted_run},
        {"capture_on_this_thread", test_capture_on_this_thread},
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], "telemetry", argc - 1, argv + 1);
}
