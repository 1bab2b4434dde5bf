/* A minimal test harness for the C API tests: named cases, checks that count
 * failures without stopping, and a closing "N passed, M failed" line. */
#ifndef IIKO_TEST_HARNESS_H
#define IIKO_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            harness_failures++;                                                      \
        }                                                                            \
    } while (0)

/* Checks a status and prints the error's message when it is not the one wanted. */
#define CHECK_STATUS(got, want, err)                                                      \
    do {                                                                                  \
        iiko_status got_ = (got);                                                         \
        if (got_ != (want)) {                                                             \
            fprintf(stderr, "  %s:%d: status %d (%s), wanted %d (%s)%s%s\n", __FILE__,    \
                    __LINE__, (int)got_, iiko_status_str(got_), (int)(want),              \
                    iiko_status_str(want), (err) ? ": " : "",                             \
                    (err) ? iiko_error_message(err) : "");                                \
            harness_failures++;                                                           \
        }                                                                                 \
    } while (0)

#define CHECK_STR(got, want)                                                              \
    do {                                                                                  \
        const char *got_s_ = (got);                                                       \
        const char *want_s_ = (want);                                                     \
        if (got_s_ == NULL || want_s_ == NULL || strcmp(got_s_, want_s_) != 0) {          \
            fprintf(stderr, "  %s:%d: %s is \"%s\", wanted \"%s\"\n", __FILE__, __LINE__, \
                    #got, got_s_ ? got_s_ : "(NULL)", want_s_ ? want_s_ : "(NULL)");      \
            harness_failures++;                                                           \
        }                                                                                 \
    } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                  \
    do {                                                                                  \
        const char *h_ = (haystack);                                                      \
        if (h_ == NULL || strstr(h_, (needle)) == NULL) {                                 \
            fprintf(stderr, "  %s:%d: %s (\"%.200s\") does not contain \"%s\"\n",         \
                    __FILE__, __LINE__, #haystack, h_ ? h_ : "(NULL)", (needle));         \
            harness_failures++;                                                           \
        }                                                                                 \
    } while (0)

typedef struct {
    const char *name;
    void (*run)(void);
} test_case;

/* Runs the cases selected by the filters (all when none), prints
 * one line per case and the summary; returns the process exit code. */
static inline int run_cases(const test_case *cases, size_t count, const char *suite, int nfilters,
                     char **filters) {
    int passed = 0;
    int failed = 0;
    for (size_t i = 0; i < count; i++) {
        /* "name" selects the cases containing it, "-name" leaves them out. */
        int includes = 0;
        int selected = 0;
        int excluded = 0;
        for (int f = 0; f < nfilters; f++) {
            if (filters[f][0] == '-') {
                excluded |= strstr(cases[i].name, filters[f] + 1) != NULL;
            } else {
                includes++;
                selected |= strstr(cases[i].name, filters[f]) != NULL;
            }
        }
        selected = (includes == 0 || selected) && !excluded;
        if (!selected) {
            continue;
        }
        harness_failures = 0;
        cases[i].run();
        if (harness_failures == 0) {
            passed++;
            printf("ok   %s\n", cases[i].name);
        } else {
            failed++;
            printf("FAIL %s\n", cases[i].name);
        }
        fflush(stdout);
    }
    printf("%s: %d passed, %d failed\n", suite, passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}

/* Reads a whole file; returns NULL on failure. Free with free(). */
static inline unsigned char *read_file(const char *path, size_t *len_out) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 4096;
    size_t len = 0;
    unsigned char *buf = malloc(cap);
    size_t n;
    while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf != NULL) {
        *len_out = len;
    }
    return buf;
}

#endif
