/* Parses one webhook body N times through the C library: the whole-parse
 * instruction counts of benches/history.md (run under qemu-insn-count.c).
 *   parse-loop N FILE */
#include <stdio.h>
#include <stdlib.h>
#include "iikocloud.h"
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    FILE *f = fopen(argv[2], "rb");
    static char body[1 << 20];
    size_t len = fread(body, 1, sizeof body, f);
    fclose(f);
    size_t events = 0;
    for (int i = 0; i < n; i++) {
        iiko_events *ev = NULL;
        if (iiko_webhook_parse(body, len, 0, 0, 0, &ev, NULL) != IIKO_STATUS_OK) return 1;
        events += iiko_events_count(ev);
        iiko_events_free(ev);
    }
    printf("%zu bytes, %zu events\n", len, events);
    return 0;
}
