/*
 * The C API's part of the profile-guided build's training
 * (scripts/dist-wheel.sh, pgo_profile): what a C program and the PHP
 * binding do with a webhook body, run on an instrumented libiikocloud, so
 * that the C API's own functions get counts too (scripts/pgo-train.py only
 * reaches the core through the Python module).
 *
 *     pgo-train-c ROUNDS BODY.json...
 *
 * Each body is received (verified, then parsed) and parsed; every event is
 * read as PHP reads it (iiko_events_summary) and as C reads it (each
 * string accessor, each field by number, the timestamps).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iikocloud.h"

#define TOKEN "pgo-training-token"

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    char *text = NULL;
    size_t size = 0;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        char *grown = realloc(text, size + n);
        if (grown == NULL) {
            free(text);
            fclose(f);
            return NULL;
        }
        text = grown;
        memcpy(text + size, chunk, n);
        size += n;
    }
    fclose(f);
    *len = size;
    return text;
}

/* Every read of every event; returns how many events were read. */
static size_t read_events(const iiko_events *events) {
    size_t count = iiko_events_count(events);
    iiko_event_field fields = iiko_event_field_count();
    for (size_t i = 0; i < count; i++) {
        iiko_event_summary summary;
        memset(&summary, 0, sizeof summary);
        summary.size = sizeof summary;
        if (iiko_events_summary(events, i, &summary, NULL) != IIKO_STATUS_OK) {
            fprintf(stderr, "pgo-train-c: iiko_events_summary failed\n");
            exit(1);
        }
        const char *(*readers[])(const iiko_events *, size_t) = {
            iiko_events_type_name,   iiko_events_time,          iiko_events_organization_id,
            iiko_events_correlation_id, iiko_events_problem,    iiko_events_entity_id,
            iiko_events_order_id,    iiko_events_creation_status, iiko_events_status,
            iiko_events_sum,         iiko_events_phone,         iiko_events_error_code,
            iiko_events_error_message, iiko_events_dedup_key,   iiko_events_json,
        };
        for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++) {
            readers[r](events, i);
        }
        int64_t number;
        iiko_events_time_unix_ms(events, i, &number);
        iiko_events_timestamp(events, i, &number);
        iiko_events_order_number(events, i, &number);
        iiko_events_is_new_delivery_order(events, i);
        iiko_event_type_name(iiko_events_type(events, i));
        for (iiko_event_field field = 1; field <= fields; field++) {
            char *value = NULL;
            iiko_error *err = NULL;
            if (iiko_events_field(events, i, field, &value, &err) == IIKO_STATUS_OK) {
                iiko_string_free(value);
            } else {
                iiko_error_free(err);
            }
        }
    }
    return count;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s ROUNDS BODY.json...\n", argv[0]);
        return 2;
    }
    long rounds = strtol(argv[1], NULL, 10);
    int bodies = argc - 2;
    char **text = calloc((size_t)bodies, sizeof *text);
    size_t *len = calloc((size_t)bodies, sizeof *len);
    if (text == NULL || len == NULL) {
        return 1;
    }
    for (int b = 0; b < bodies; b++) {
        text[b] = read_file(argv[b + 2], &len[b]);
        if (text[b] == NULL) {
            fprintf(stderr, "pgo-train-c: cannot read %s\n", argv[b + 2]);
            return 1;
        }
    }
    const char *names[] = {"Content-Type", "Authorization"};
    const char *values[] = {"application/json", "Bearer " TOKEN};
    size_t read = 0;
    for (long r = 0; r < rounds; r++) {
        for (int b = 0; b < bodies; b++) {
            iiko_events *events = NULL;
            iiko_error *err = NULL;
            if (iiko_webhook_receive(TOKEN, names, values, 2, text[b], len[b], 0, 0, 0, &events,
                                     &err) == IIKO_STATUS_OK) {
                read += read_events(events);
                iiko_events_free(events);
            } else {
                iiko_error_free(err);
            }
            events = NULL;
            err = NULL;
            if (iiko_webhook_parse(text[b], len[b], 0, 0, 0, &events, &err) == IIKO_STATUS_OK) {
                read += read_events(events);
                iiko_events_free(events);
            } else {
                iiko_error_free(err);
            }
        }
    }
    /* A training that read nothing (every body refused) would give the C
       API no counts while the build went on as if it had. */
    if (read == 0) {
        fprintf(stderr, "pgo-train-c: no event read from %d bodies\n", bodies);
        return 1;
    }
    printf("pgo-train-c: %zu events read\n", read);
    for (int b = 0; b < bodies; b++) {
        free(text[b]);
    }
    free(text);
    free(len);
    return 0;
}
