/* SPDX-License-Identifier: MIT */
/*
 * plain_criterion.h - a stand-in for the few Criterion macros that the multi-threaded tests
 * use, for the ThreadSanitizer build only. Criterion 2.4 cannot start under TSan: its BoxFort
 * arena is mapped at an address TSan reserves, and every test program dies with "Could not
 * initialize inheritable arena" (Criterion issue #274, open since 2018). With BB_PLAIN_TESTS
 * defined (tests/CMakeLists.txt does so when BB_SANITIZE contains "thread") a test file that
 * includes this header instead of <criterion/criterion.h> becomes a plain program with the
 * same semantics that matter here: every Test runs in its own forked child (fresh process
 * state, as under Criterion), a cr_assert_* failure ends that test, a cr_expect_* failure
 * marks it failed and goes on, and the program prints "N passed, N failed" and exits 1 if any
 * test failed or crashed. Optional message arguments work as in Criterion.
 */
#ifndef BB_PLAIN_CRITERION_H
#define BB_PLAIN_CRITERION_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct plain_test {
    const char *name;
    void (*fn)(void);
} plain_test;

enum { PLAIN_MAX_TESTS = 64 };
static plain_test plain_tests[PLAIN_MAX_TESTS];
static int plain_n_tests;
static bool plain_failed; /* in the child: some check of the running test failed */

static void plain_register(const char *name, void (*fn)(void)) {
    if (plain_n_tests == PLAIN_MAX_TESTS) {
        fprintf(stderr, "plain_criterion: more than %d tests\n", PLAIN_MAX_TESTS);
        exit(2);
    }
    plain_tests[plain_n_tests++] = (plain_test){name, fn};
}

/* Registration at load time, as Criterion does it, so test files need no list. */
#define Test(suite, name)                                                                   \
    static void suite##_##name(void);                                                       \
    __attribute__((constructor)) static void plain_reg_##suite##_##name(void) {             \
        plain_register(#suite "::" #name, suite##_##name);                                  \
    }                                                                                       \
    static void suite##_##name(void)

/* One check: on failure print where and why; a fatal check ends the test's child. */
static void plain_check(bool ok, bool fatal, const char *expr, const char *file, int line,
                        const char *fmt, ...) {
    if (ok) return;
    fprintf(stderr, "%s:%d: %s failed: %s", file, line, fatal ? "assertion" : "expectation", expr);
    if (fmt[0]) {
        va_list ap;
        va_start(ap, fmt);
        fputs(": ", stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
    plain_failed = true;
    if (fatal) exit(1);
}

/* `"" __VA_ARGS__` turns an absent message into "" and keeps a present one as the format. */
#define PLAIN_CHECK(ok, fatal, expr, ...) \
    plain_check((ok), (fatal), (expr), __FILE__, __LINE__, "" __VA_ARGS__)
#define cr_assert(c, ...) PLAIN_CHECK((c), true, #c, __VA_ARGS__)
#define cr_assert_not_null(p, ...) PLAIN_CHECK((p) != NULL, true, #p " != NULL", __VA_ARGS__)
#define cr_assert_eq(a, b, ...) PLAIN_CHECK((a) == (b), true, #a " == " #b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) PLAIN_CHECK((a) != (b), true, #a " != " #b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) PLAIN_CHECK((a) < (b), true, #a " < " #b, __VA_ARGS__)
#define cr_assert_arr_eq(a, b, n, ...) \
    PLAIN_CHECK(memcmp((a), (b), (n)) == 0, true, #a " == " #b, __VA_ARGS__)
#define cr_expect(c, ...) PLAIN_CHECK((c), false, #c, __VA_ARGS__)
#define cr_expect_eq(a, b, ...) PLAIN_CHECK((a) == (b), false, #a " == " #b, __VA_ARGS__)
#define cr_expect_arr_eq(a, b, n, ...) \
    PLAIN_CHECK(memcmp((a), (b), (n)) == 0, false, #a " == " #b, __VA_ARGS__)
#define cr_log_info(...) (fputs("info: ", stderr), fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))

int main(void) {
    int passed = 0, failed = 0;
    for (int i = 0; i < plain_n_tests; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 2; }
        if (pid == 0) {
            plain_tests[i].fn();
            exit(plain_failed ? 1 : 0);
        }
        int st = 0;
        bool ok = waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
        fprintf(stderr, "[%s] %s\n", ok ? "PASS" : "FAIL", plain_tests[i].name);
        ok ? passed++ : failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif /* BB_PLAIN_CRITERION_H */
