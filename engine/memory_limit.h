/* The memory this process may fill: the machine's RAM, or less when its cgroup (v2
 * memory.max, v1 memory.limit_in_bytes) sets a lower limit. The store's warm-up sizes itself
 * by it, so that a store larger than its container's memory is not read in whole. */
#ifndef BSF_ENGINE_MEMORY_LIMIT_H
#define BSF_ENGINE_MEMORY_LIMIT_H

#include <stddef.h>

/* Bytes; 0 when not even the RAM size is known. Reads /proc and /sys: any thread, at start. */
size_t bsf_memory_limit(void);

/* The limit found in `cgroup_file` (the text of /proc/self/cgroup) under the cgroup mount
 * `root` (normally /sys/fs/cgroup), or SIZE_MAX when none is set or readable. For tests. */
size_t bsf_memory_limit_cgroup(const char *cgroup_file, const char *root);

#endif
