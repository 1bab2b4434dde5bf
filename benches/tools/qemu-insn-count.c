/* A qemu TCG plugin (qemu 7.2, plugin API version 1) that prints the number
 * of guest instructions a program executed: "insns N" on exit. Used for the
 * NEON figures of benches/history.md, where qemu timings would say nothing.
 *   gcc -O2 -shared -fPIC -o libinsn.so qemu-insn-count.c
 *   qemu-aarch64 -L /usr/aarch64-linux-gnu -plugin ./libinsn.so -d plugin PROGRAM
 * The few declarations it needs are written out (qemu-plugin.h is not in
 * Debian's packages). */
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *, enum qemu_plugin_op, void *, uint64_t);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);
extern void qemu_plugin_outs(const char *);
__attribute__((visibility("default"))) int qemu_plugin_version = 1;
static uint64_t count;
static void trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &count, qemu_plugin_tb_n_insns(tb));
}
static void done(qemu_plugin_id_t id, void *p) {
    (void)id; (void)p;
    char line[64];
    snprintf(line, sizeof line, "insns %llu\n", (unsigned long long)count);
    qemu_plugin_outs(line);
}
__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info; (void)argc; (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
    qemu_plugin_register_atexit_cb(id, done, NULL);
    return 0;
}
