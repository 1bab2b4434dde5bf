# A program as MSVC's toolchain would link it: assembled by llvm-mc for
# x86_64-pc-windows-msvc and linked by lld-link (which reads import libraries
# as link.exe does) against the zip's lib\iikocloud.lib; scripts/dist-test.sh
# runs it under wine. It calls two exports through the import library's
# __imp_ pointers and exits with iiko_webhook_http_status(IIKO_STATUS_OK),
# 200, when iiko_version() starts with the character MAJOR_CHAR (the
# version's major digit, given to llvm-mc with --defsym), else with 1.
# No C runtime: ExitProcess comes from an import library of kernel32.def.
    .text
    .globl main
main:
    subq    $40, %rsp                           # shadow space; keeps rsp 16-aligned
    callq   *__imp_iiko_version(%rip)
    movzbl  (%rax), %ecx
    cmpl    $MAJOR_CHAR, %ecx
    jne     .Lwrong_version
    xorl    %ecx, %ecx                          # IIKO_STATUS_OK
    callq   *__imp_iiko_webhook_http_status(%rip)
    movl    %eax, %ecx
    callq   *__imp_ExitProcess(%rip)
.Lwrong_version:
    movl    $1, %ecx
    callq   *__imp_ExitProcess(%rip)
