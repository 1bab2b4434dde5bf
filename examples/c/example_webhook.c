/* Verifies and prints one webhook request body read from a file or stdin.
 *
 *   ./example_webhook --token EXPECTED [--authorization 'Bearer EXPECTED'] [FILE | -]
 *
 * --authorization is the request's Authorization header (absent if omitted).
 * Prints the HTTP status a webhook endpoint would answer, then the events.
 * Exit status: 0 accepted, 1 rejected, 2 usage. Build:
 *   cc example_webhook.c $(pkg-config --cflags --libs iikocloud) */
#include <iikocloud.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL) {
                free(buf);
                return NULL;
            }
            buf = bigger;
        }
    }
    *len = n;
    return buf;
}

static const char *or_dash(const char *s) { return s != NULL ? s : "-"; }

int main(int argc, char **argv) {
    const char *token = NULL, *authorization = NULL, *path = "-";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--token") == 0 && i + 1 < argc) {
            token = argv[++i];
        } else if (strcmp(argv[i], "--authorization") == 0 && i + 1 < argc) {
            authorization = argv[++i];
        } else {
            path = argv[i];
        }
    }
    if (token == NULL) {
        fprintf(stderr, "usage: %s --token EXPECTED [--authorization VALUE] [FILE | -]\n", argv[0]);
        return 2;
    }
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    size_t len = 0;
    char *body = read_all(f, &len);
    if (f != stdin) {
        fclose(f);
    }
    if (body == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }

    /* What an HTTP handler does: headers as received, names in any case. */
    const char *names[1] = {"authorization"};
    const char *values[1] = {authorization};
    iiko_events *events = NULL;
    iiko_error *err = NULL;
    iiko_status st = iiko_webhook_receive(token, names, values, authorization ? 1 : 0, body, len,
                                          0, 0, 0, &events, &err);
    free(body);
    printf("answer HTTP %d\n", iiko_webhook_http_status(st));
    if (st != IIKO_STATUS_OK) {
        printf("rejected: %s\n", iiko_error_message(err));
        iiko_error_free(err);
        return 1;
    }

    size_t count = iiko_events_count(events);
    printf("%zu events\n", count);
    for (size_t i = 0; i < count; i++) {
        printf("#%zu %s (type %d) at %s, organization %s, correlationId %s\n", i,
               or_dash(iiko_events_type_name(events, i)), (int)iiko_events_type(events, i),
               or_dash(iiko_events_time(events, i)), or_dash(iiko_events_organization_id(events, i)),
               or_dash(iiko_events_correlation_id(events, i)));
        if (iiko_events_problem(events, i) != NULL) {
            printf("   unreadable: %s\n", iiko_events_problem(events, i));
            continue;
        }
        int64_t number = 0;
        switch (iiko_events_type(events, i)) {
        case IIKO_EVENT_DELIVERY_ORDER_UPDATE:
        case IIKO_EVENT_DELIVERY_ORDER_ERROR:
        case IIKO_EVENT_TABLE_ORDER_UPDATE:
        case IIKO_EVENT_TABLE_ORDER_ERROR:
            printf("   order %s", or_dash(iiko_events_order_id(events, i)));
            if (iiko_events_order_number(events, i, &number)) {
                printf(" #%" PRId64, number);
            }
            printf(", creation %s, status %s, sum %s, phone %s%s\n",
                   or_dash(iiko_events_creation_status(events, i)),
                   or_dash(iiko_events_status(events, i)), or_dash(iiko_events_sum(events, i)),
                   or_dash(iiko_events_phone(events, i)),
                   iiko_events_is_new_delivery_order(events, i) ? ", NEW ORDER" : "");
            if (iiko_events_error_code(events, i) != NULL) {
                printf("   error %s: %s\n", iiko_events_error_code(events, i),
                       or_dash(iiko_events_error_message(events, i)));
            }
            break;
        case IIKO_EVENT_RESERVE_UPDATE:
        case IIKO_EVENT_RESERVE_ERROR:
            printf("   reserve %s, status %s\n", or_dash(iiko_events_entity_id(events, i)),
                   or_dash(iiko_events_status(events, i)));
            break;
        case IIKO_EVENT_STOP_LIST_UPDATE:
            printf("   stop lists changed: call iiko_client_stop_lists\n");
            break;
        default:
            printf("   %s\n", iiko_events_json(events, i));
            break;
        }
    }
    iiko_events_free(events);
    return 0;
}
