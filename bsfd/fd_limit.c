#include "bsfd/fd_limit.h"

#include <sys/resource.h>

#include "common/diag.h"

unsigned long bsf_fd_limit_raise(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t old = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            rl.rlim_cur = old;
        else
            BSF_INFO("bsfd", "descriptor limit raised from %llu to %llu", (unsigned long long)old,
                     (unsigned long long)rl.rlim_cur);
    }
    return rl.rlim_cur == RLIM_INFINITY ? 1ul << 20 : (unsigned long)rl.rlim_cur;
}

unsigned bsf_fd_limit_connections(unsigned configured, unsigned workers)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return configured;
    unsigned long soft = (unsigned long)rl.rlim_cur;
    unsigned long avail = soft > 2 * BSF_FD_RESERVE ? soft - BSF_FD_RESERVE : soft / 2;
    unsigned long per = avail / (workers ? workers : 1);
    if (per == 0)
        per = 1;
    if (configured && configured <= per)
        return configured;
    BSF_INFO("bsfd", "sbi.max_connections %u per worker capped to %lu (descriptor limit %lu, "
             "%u workers, %u kept for the store, Kafka, Diameter and ops)",
             configured, per, soft, workers, BSF_FD_RESERVE);
    return (unsigned)per;
}
