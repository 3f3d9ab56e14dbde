#include "gateways/sbi/h2_budget.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* Each block starts with its size so that free and realloc can account for it. */
#define PREFIX (alignof(max_align_t))

static void add(bsf_h2_budget_t *b, size_t n)
{
    atomic_fetch_add_explicit(&b->used, n, memory_order_relaxed);
}

static void sub(bsf_h2_budget_t *b, size_t n)
{
    atomic_fetch_sub_explicit(&b->used, n, memory_order_relaxed);
}

void bsf_h2_budget_charge(bsf_h2_budget_t *b, size_t n)
{
    add(b, n);
}

void bsf_h2_budget_release(bsf_h2_budget_t *b, size_t n)
{
    sub(b, n);
}

void *bsf_h2_budget_malloc(bsf_h2_budget_t *b, size_t n)
{
    if (n > SIZE_MAX - PREFIX)
        return NULL;
    char *p = malloc(n + PREFIX);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    add(b, n + PREFIX);
    return p + PREFIX;
}

void *bsf_h2_budget_calloc(bsf_h2_budget_t *b, size_t nmemb, size_t size)
{
    if (size && nmemb > (SIZE_MAX - PREFIX) / size)
        return NULL;
    void *p = bsf_h2_budget_malloc(b, nmemb * size);
    if (p)
        memset(p, 0, nmemb * size);
    return p;
}

void bsf_h2_budget_free(bsf_h2_budget_t *b, void *p)
{
    if (!p)
        return;
    char *base = (char *)p - PREFIX;
    size_t n;
    memcpy(&n, base, sizeof n);
    sub(b, n + PREFIX);
    free(base);
}

void *bsf_h2_budget_realloc(bsf_h2_budget_t *b, void *p, size_t n)
{
    if (!p)
        return bsf_h2_budget_malloc(b, n);
    if (n > SIZE_MAX - PREFIX)
        return NULL;
    char *base = (char *)p - PREFIX;
    size_t old;
    memcpy(&old, base, sizeof old);
    char *q = realloc(base, n + PREFIX);
    if (!q)
        return NULL;
    memcpy(q, &n, sizeof n);
    sub(b, old);
    add(b, n);
    return q + PREFIX;
}

static void *mem_malloc(size_t n, void *ud)
{
    return bsf_h2_budget_malloc(ud, n);
}

static void mem_free(void *p, void *ud)
{
    bsf_h2_budget_free(ud, p);
}

static void *mem_calloc(size_t nmemb, size_t size, void *ud)
{
    return bsf_h2_budget_calloc(ud, nmemb, size);
}

static void *mem_realloc(void *p, size_t n, void *ud)
{
    return bsf_h2_budget_realloc(ud, p, n);
}

void bsf_h2_budget_nghttp2_mem(bsf_h2_budget_t *b, nghttp2_mem *mem)
{
    *mem = (nghttp2_mem){b, mem_malloc, mem_free, mem_calloc, mem_realloc};
}

size_t bsf_h2_budget_used(const bsf_h2_budget_t *b)
{
    return atomic_load_explicit(&b->used, memory_order_relaxed);
}

int bsf_h2_budget_over(const bsf_h2_budget_t *b, unsigned num, unsigned den)
{
    if (!b->limit)
        return 0;
    return (unsigned long long)bsf_h2_budget_used(b) * den > (unsigned long long)b->limit * num;
}
