/*
 * Test-only entry points of libiikocloud. A library built with the cargo
 * feature `test-hooks` (the test scripts' builds) exports them; a release
 * library does not, so include/iikocloud.h does not declare them.
 * The declaration is the one of bindings/c/src/lib.rs.
 */
#ifndef IIKOCLOUD_TEST_HOOKS_H
#define IIKOCLOUD_TEST_HOOKS_H

#include "iikocloud.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Panics inside the library on purpose: IIKO_STATUS_PANIC, with an error in
 * *err_out when err_out is not NULL. */
iiko_status iiko_debug_force_panic(iiko_error **err_out);

#ifdef __cplusplus
}
#endif

#endif
