#include "tests/failmalloc/failmalloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
void __wrap_free(void *p);

static struct {
    bool armed;
    size_t count;   /* allocations since armed */
    size_t fail_at; /* 1-based; 0 = none fails */
    bool injected;  /* the fail_at-th allocation happened (and failed) */
    long live;      /* blocks allocated minus blocks freed since armed */
} fm;

/* Counts one allocation; true when it is the one to fail. */
static bool fail_this(void)
{
    if (!fm.armed)
        return false;
    if (++fm.count != fm.fail_at)
        return false;
    fm.injected = true;
    return true;
}

static void *counted(void *p)
{
    if (p && fm.armed)
        fm.live++;
    return p;
}

void *__wrap_malloc(size_t n)
{
    return fail_this() ? NULL : counted(__real_malloc(n));
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fail_this() ? NULL : counted(__real_calloc(n, size));
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
    return fail_this() ? NULL : counted(__real_aligned_alloc(align, n));
}

void *__wrap_realloc(void *p, size_t n)
{
    if (fail_this())
        return NULL; /* p stays allocated, as realloc promises */
    void *q = __real_realloc(p, n);
    return p ? q : counted(q);
}

void __wrap_free(void *p)
{
    if (p && fm.armed)
        fm.live--;
    __real_free(p);
}

static void arm(size_t fail_at)
{
    fm.count = 0;
    fm.fail_at = fail_at;
    fm.injected = false;
    fm.live = 0;
    fm.armed = true;
}

size_t bsf_fm_run(const char *name, bsf_fm_scenario_fn fn, void *ctx)
{
    arm(0);
    int rc = fn(ctx);
    fm.armed = false;
    size_t n = fm.count;
    if (rc != 0 || fm.live != 0)
        fail_msg("%s: the run without failures returned %d and left %ld blocks", name, rc,
                 fm.live);
    if (n == 0)
        fail_msg("%s: the scenario allocates nothing: nothing to fail", name);
    for (size_t i = 1; i <= n; i++) {
        arm(i);
        rc = fn(ctx);
        fm.armed = false;
        if (fm.injected ? rc != -1 : rc != 0)
            fail_msg("%s: allocation %zu of %zu %s, and the scenario returned %d", name, i, n,
                     fm.injected ? "failed" : "was not reached", rc);
        if (fm.live != 0)
            fail_msg("%s: allocation %zu of %zu failed and %ld blocks were left", name, i, n,
                     fm.live);
    }
    printf("[ FAILMALLOC ] %s: %zu allocations, each failed once\n", name, n);
    return n;
}
