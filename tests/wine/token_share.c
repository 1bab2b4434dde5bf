/* Two processes sharing one access token through the token cache directory
 * (a file only its owner can read, and a lock file across processes).
 * scripts/wine-test.sh starts two of these at once: each waits for GO_FILE
 * to appear, so both ask for a token together, and writes the token it got
 * to OUT_FILE (never to the log). The script checks that the two files are
 * equal and that the emulator issued one token.
 *
 *   token_share BASE_URL CACHE_DIR GO_FILE OUT_FILE */
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "iikocloud.h"

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: token_share BASE_URL CACHE_DIR GO_FILE OUT_FILE\n");
        return 2;
    }
    for (int i = 0; i < 3000 && GetFileAttributesA(argv[3]) == INVALID_FILE_ATTRIBUTES; i++) {
        Sleep(10);
    }
    iiko_client_options *options = NULL;
    iiko_client *client = NULL;
    iiko_error *err = NULL;
    char *token = NULL;
    int rc = 1;
    if (iiko_client_options_new(&options, &err) == IIKO_STATUS_OK &&
        iiko_client_options_set_v2(options, "emulator-app", "emulator-secret", "emulator-api-key",
                                   &err) == IIKO_STATUS_OK &&
        iiko_client_options_set_base_url(options, argv[1], &err) == IIKO_STATUS_OK &&
        iiko_client_options_set_token_cache_dir(options, argv[2], &err) == IIKO_STATUS_OK &&
        iiko_client_new(options, &client, &err) == IIKO_STATUS_OK &&
        iiko_client_access_token(client, &token, NULL, &err) == IIKO_STATUS_OK) {
        FILE *out = fopen(argv[4], "wb");
        if (out != NULL && fputs(token, out) >= 0 && fclose(out) == 0) {
            printf("token_share: got a token of %u characters\n", (unsigned)strlen(token));
            rc = 0;
        }
    } else {
        fprintf(stderr, "token_share: %s\n", err ? iiko_error_message(err) : "failed");
    }
    iiko_string_free(token);
    iiko_error_free(err);
    iiko_client_free(client);
    iiko_client_options_free(options);
    return rc;
}
