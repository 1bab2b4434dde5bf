/* Test setup only, never shipped: a stand-in for the one export of Windows'
 * bcryptprimitives.dll that Rust's standard library imports, ProcessPrng
 * (Windows 10 and later have it). Wine 8.0 has no such DLL, so without this
 * file in the test prefix's system32 no Rust program starts (the loader
 * fails with status 0xc0000135, exit code 53). scripts/wine-test.sh builds
 * it and installs it only where wine lacks the DLL.
 *
 * ProcessPrng fills the buffer from the system's random number generator and
 * always succeeds; BCryptGenRandom with the system-preferred generator, which
 * Wine implements, does the same. */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        /* BCryptGenRandom takes a ULONG length. */
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
            return FALSE;
        }
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
