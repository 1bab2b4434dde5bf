/* Any operation of the official document by its IIKO_OP_* number: syncs the
 * menu (nomenclature), creates a delivery order and waits for its command.
 * Requests and answers are JSON text; amounts in answers are exact decimals.
 *
 *   IIKO_BASE_URL=http://127.0.0.1:8787 IIKO_APP_ID=... IIKO_CLIENT_SECRET=... \
 *   IIKO_API_KEY=... ORG_ID=... TERMINAL_GROUP_ID=... PRODUCT_ID=... ./example_operations
 *
 * Build: cc example_operations.c $(pkg-config --cflags --libs iikocloud) */
#include <iikocloud.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, iiko_status status, iiko_error *err) {
    fprintf(stderr, "%s failed (%s): %s\n", what, iiko_status_str(status),
            err ? iiko_error_message(err) : "");
    if (iiko_status_group(status) == IIKO_STATUS_GROUP_COMMAND && err != NULL && iiko_error_description(err) != NULL) {
        fprintf(stderr, "  the service's reason: %s\n", iiko_error_description(err));
    }
    iiko_error_free(err);
    return 1;
}

int main(void) {
    const char *org = getenv("ORG_ID");
    const char *tg = getenv("TERMINAL_GROUP_ID");
    const char *product = getenv("PRODUCT_ID");
    const char *base_url = getenv("IIKO_BASE_URL");
    if (org == NULL || tg == NULL || product == NULL || getenv("IIKO_APP_ID") == NULL ||
        getenv("IIKO_CLIENT_SECRET") == NULL || getenv("IIKO_API_KEY") == NULL) {
        fprintf(stderr, "set IIKO_APP_ID, IIKO_CLIENT_SECRET, IIKO_API_KEY, ORG_ID, "
                        "TERMINAL_GROUP_ID and PRODUCT_ID\n");
        return 2;
    }
    iiko_client_options *options = NULL;
    iiko_client *client = NULL;
    iiko_error *err = NULL;
    iiko_status st;
    if ((st = iiko_client_options_new(&options, &err)) != IIKO_STATUS_OK ||
        (st = iiko_client_options_set_v2(options, getenv("IIKO_APP_ID"),
                                         getenv("IIKO_CLIENT_SECRET"), getenv("IIKO_API_KEY"),
                                         &err)) != IIKO_STATUS_OK ||
        (base_url != NULL &&
         (st = iiko_client_options_set_base_url(options, base_url, &err)) != IIKO_STATUS_OK) ||
        (st = iiko_client_new(options, &client, &err)) != IIKO_STATUS_OK) {
        iiko_client_options_free(options);
        return fail("configuration", st, err);
    }
    iiko_client_options_free(options);

    char request[1024];
    char *answer = NULL;
    /* The menu: a read, retried by the library after a network error or a 5xx. */
    snprintf(request, sizeof request, "{\"organizationId\":\"%s\"}", org);
    st = iiko_client_call_operation(client, IIKO_OP_NOMENCLATURE, request, 0, 0, &answer, &err);
    if (st != IIKO_STATUS_OK) {
        iiko_client_free(client);
        return fail("nomenclature", st, err);
    }
    printf("menu: %zu bytes of JSON\n", strlen(answer));
    iiko_string_free(answer);

    /* An order: a command, never repeated; the waiting call follows it to its
     * end and never creates it twice. Amounts may be given as numbers. */
    snprintf(request, sizeof request,
             "{\"organizationId\":\"%s\",\"terminalGroupId\":\"%s\",\"order\":{\"phone\":"
             "\"+79160000000\",\"items\":[{\"type\":\"Product\",\"productId\":\"%s\","
             "\"amount\":2,\"price\":99.9}]}}",
             org, tg, product);
    st = iiko_client_call_operation_wait(client, IIKO_OP_DELIVERIES_CREATE, request, 0, 60000, 0,
                                         &answer, &err);
    iiko_client_free(client);
    if (st != IIKO_STATUS_OK) {
        return fail("deliveries.create", st, err);
    }
    const char *sum = strstr(answer, "\"sum\":");
    printf("order created: %s\n", strstr(answer, "\"creationStatus\":\"Success\"") ? "Success" : "?");
    if (sum != NULL) {
        printf("sum %.*s\n", (int)strcspn(sum + 6, ",}"), sum + 6);
    }
    iiko_string_free(answer);
    return 0;
}
