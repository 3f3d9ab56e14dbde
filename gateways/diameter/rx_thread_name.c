/* Role names of freeDiameter's threads (see rx_thread_name.h). */
#include "gateways/diameter/rx_thread_name.h"

#include <pthread.h>

static _Thread_local const char *thread_role;

void bsf_rx_thread_name(const char *role)
{
    if (thread_role == role)
        return;
    thread_role = role;
    pthread_setname_np(pthread_self(), role);
}
