/* Gets a token, lists the organizations and points their webhook at your URL.
 *
 *   IIKO_BASE_URL=http://127.0.0.1:8787 IIKO_APP_ID=... IIKO_CLIENT_SECRET=... \
 *   IIKO_API_KEY=... WEBHOOK_URL=https://pos.example.com/iiko WEBHOOK_TOKEN=... \
 *   ./example_client
 *
 * (or IIKO_API_LOGIN=... instead of the three v2 credentials). Build:
 *   cc example_client.c $(pkg-config --cflags --libs iikocloud) */
#include <iikocloud.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *what, iiko_status status, iiko_error *err) {
    fprintf(stderr, "%s failed: %s\n", what, err ? iiko_error_message(err) : iiko_status_str(status));
    if (err != NULL && iiko_error_correlation_id(err) != NULL) {
        fprintf(stderr, "  correlationId: %s (quote it to iiko support)\n",
                iiko_error_correlation_id(err));
    }
    iiko_error_free(err);
    return 1;
}

int main(void) {
    const char *base_url = getenv("IIKO_BASE_URL");
    const char *app_id = getenv("IIKO_APP_ID");
    const char *secret = getenv("IIKO_CLIENT_SECRET");
    const char *api_key = getenv("IIKO_API_KEY");
    const char *api_login = getenv("IIKO_API_LOGIN");
    const char *hook_url = getenv("WEBHOOK_URL");
    const char *hook_token = getenv("WEBHOOK_TOKEN");
    if ((api_login == NULL && (app_id == NULL || secret == NULL || api_key == NULL)) ||
        hook_url == NULL || hook_token == NULL) {
        fprintf(stderr, "set IIKO_APP_ID, IIKO_CLIENT_SECRET and IIKO_API_KEY (or IIKO_API_LOGIN),\n"
                        "WEBHOOK_URL and WEBHOOK_TOKEN; IIKO_BASE_URL is optional\n");
        return 2;
    }
    printf("libiikocloud %s\n", iiko_version());

    iiko_error *err = NULL;
    iiko_client_options *options = NULL;
    iiko_status st = iiko_client_options_new(&options, &err);
    if (st == IIKO_STATUS_OK) {
        st = api_login != NULL
                 ? iiko_client_options_set_api_login(options, api_login, &err)
                 : iiko_client_options_set_v2(options, app_id, secret, api_key, &err);
    }
    if (st == IIKO_STATUS_OK && base_url != NULL) {
        st = iiko_client_options_set_base_url(options, base_url, &err);
    }
    iiko_client *client = NULL;
    if (st == IIKO_STATUS_OK) {
        st = iiko_client_new(options, &client, &err);
    }
    iiko_client_options_free(options); /* copied by iiko_client_new */
    if (st != IIKO_STATUS_OK) {
        return fail("client setup", st, err);
    }

    /* 1. A token (the calls below fetch and cache it themselves). */
    char *token = NULL;
    int64_t expires_ms = 0;
    st = iiko_client_access_token(client, &token, &expires_ms, &err);
    if (st != IIKO_STATUS_OK) {
        iiko_client_free(client);
        return fail("access token", st, err);
    }
    printf("token: %zu characters, valid for %" PRId64 " s\n", strlen(token),
           (expires_ms - (int64_t)time(NULL) * 1000) / 1000);
    iiko_string_free(token);

    /* 2. The organizations. */
    iiko_organizations *orgs = NULL;
    st = iiko_client_organizations(client, NULL, &orgs, &err);
    if (st != IIKO_STATUS_OK) {
        iiko_client_free(client);
        return fail("organizations", st, err);
    }
    size_t count = iiko_organizations_count(orgs);
    printf("%zu organizations\n", count);
    for (size_t i = 0; i < count; i++) {
        const char *name = iiko_organizations_name(orgs, i);
        printf("  %s  %s\n", iiko_organizations_id(orgs, i), name ? name : "(no name)");
    }

    /* 3. The webhook of each organization. Build the JSON with your JSON
     * library in real code: these values need escaping if they hold quotes. */
    int failures = 0;
    for (size_t i = 0; i < count; i++) {
        char request[2048];
        snprintf(request, sizeof request,
                 "{\"organizationId\":\"%s\",\"webHooksUri\":\"%s\",\"authToken\":\"%s\","
                 "\"webHooksFilter\":{\"deliveryOrderFilter\":{\"orderStatuses\":"
                 "[\"Unconfirmed\",\"WaitCooking\",\"CookingStarted\",\"Delivered\",\"Cancelled\"],"
                 "\"errors\":true},\"stopListUpdateFilter\":{\"updates\":true}}}",
                 iiko_organizations_id(orgs, i), hook_url, hook_token);
        char *answer = NULL;
        st = iiko_client_update_webhook_settings(client, request, &answer, &err);
        if (st != IIKO_STATUS_OK) {
            failures += fail("update_webhook_settings", st, err);
            err = NULL;
            continue;
        }
        iiko_string_free(answer);
        char *settings = NULL;
        st = iiko_client_webhook_settings(client, iiko_organizations_id(orgs, i), &settings, &err);
        if (st != IIKO_STATUS_OK) {
            failures += fail("webhook_settings", st, err);
            err = NULL;
            continue;
        }
        printf("webhook of %s set to %s\n", iiko_organizations_id(orgs, i), hook_url);
        iiko_string_free(settings); /* holds the token in clear: not printed */
    }
    iiko_organizations_free(orgs);
    iiko_client_free(client);
    return failures == 0 ? 0 : 1;
}
