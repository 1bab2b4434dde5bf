/* The temporary directories of the C and C++ tests, on POSIX systems and on
 * Windows (MinGW, run under wine by scripts/wine-test.sh). */
#ifndef IIKO_TEST_PORTABLE_H
#define IIKO_TEST_PORTABLE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _WIN32
#include <direct.h>
#include <process.h>
#include <windows.h>
#endif

#ifdef _WIN32
/* POSIX getline, which the Windows C runtime lacks. */
static inline ssize_t test_getline(char **line, size_t *cap, FILE *file) {
    size_t len = 0;
    int c;
    while ((c = fgetc(file)) != EOF) {
        if (*line == NULL || len + 2 > *cap) {
            size_t bigger = *cap < 128 ? 128 : *cap * 2;
            char *grown = (char *)realloc(*line, bigger);
            if (grown == NULL) {
                return -1;
            }
            *line = grown;
            *cap = bigger;
        }
        (*line)[len++] = (char)c;
        if (c == '\n') {
            break;
        }
    }
    if (len == 0) {
        return -1;
    }
    (*line)[len] = '\0';
    return (ssize_t)len;
}
#define getline test_getline
#endif

/* Creates a new directory PREFIX-XXXXXX in the system's temporary directory
 * and writes its path to buf; returns buf, or NULL. */
static inline char *test_temp_dir(char *buf, size_t size, const char *prefix) {
#ifdef _WIN32
    char base[MAX_PATH + 1];
    DWORD n = GetTempPathA(sizeof base, base); /* ends with a backslash */
    if (n == 0 || n > MAX_PATH) {
        return NULL;
    }
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        unsigned tag = (unsigned)GetTickCount() ^ ((unsigned)_getpid() << 16) ^ (attempt * 7919u);
        if (snprintf(buf, size, "%s%s-%08x", base, prefix, tag) >= (int)size) {
            return NULL;
        }
        if (_mkdir(buf) == 0) {
            return buf;
        }
    }
    return NULL;
#else
    if (snprintf(buf, size, "/tmp/%s-XXXXXX", prefix) >= (int)size) {
        return NULL;
    }
    return mkdtemp(buf);
#endif
}

/* Deletes the files of a test directory (it holds no subdirectories), then
 * the directory; returns 0 on success. */
static inline int test_remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        return -1;
    }
    int rc = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        rc |= unlink(path);
    }
    closedir(d);
    return rc | rmdir(dir);
}

#endif
