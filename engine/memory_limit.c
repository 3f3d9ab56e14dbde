#include "engine/memory_limit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A limit file's value: a byte count, or SIZE_MAX for "max", absent or unreadable. */
static size_t read_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return SIZE_MAX;
    char buf[64];
    size_t limit = SIZE_MAX;
    if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9') {
        unsigned long long v = strtoull(buf, NULL, 10);
        limit = v < SIZE_MAX ? (size_t)v : SIZE_MAX;
    }
    fclose(f);
    return limit;
}

size_t bsf_memory_limit_cgroup(const char *cgroup_file, const char *root)
{
    FILE *f = fopen(cgroup_file, "r");
    if (!f)
        return SIZE_MAX;
    char line[1024], path[1400];
    size_t limit = SIZE_MAX;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        /* "0::/path" (v2) or "N:memory:/path" (v1; the controller list may hold others) */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c2[1] != '/')
            continue;
        *c2 = '\0';
        size_t v = SIZE_MAX;
        if (strcmp(c1 + 1, "") == 0) {
            snprintf(path, sizeof path, "%s%s/memory.max", root, c2 + 1);
            v = read_limit(path);
        } else if (strstr(c1 + 1, "memory")) {
            snprintf(path, sizeof path, "%s/memory%s/memory.limit_in_bytes", root, c2 + 1);
            v = read_limit(path);
        }
        if (v < limit)
            limit = v;
    }
    fclose(f);
    return limit;
}

size_t bsf_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    size_t ram = (size_t)pages * (size_t)page;
    size_t cg = bsf_memory_limit_cgroup("/proc/self/cgroup", "/sys/fs/cgroup");
    return cg < ram ? cg : ram;
}
