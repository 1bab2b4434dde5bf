/* getrandom(3) answered from a fixed stream, preloaded (LD_PRELOAD) into the
 * training run of the profile-guided build only (scripts/dist-wheel.sh,
 * pgo_profile): the tables seeded from it (src/hashing.rs, the standard
 * library's HashMap) then probe the same way on every run, so the training's
 * counts, and the release build made from them, are the same every time.
 * Never part of anything shipped. */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/types.h>

static unsigned long long state = 0x9e3779b97f4a7c15ULL;

ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
    unsigned char *out = buf;
    (void)flags;
    for (size_t i = 0; i < len; i++) {
        /* xorshift64: any fixed stream will do. */
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out[i] = (unsigned char)state;
    }
    return (ssize_t)len;
}
