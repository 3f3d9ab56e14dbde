/* Event upcasters (see event_upcast.h). Version 2 (docs/events.md, "Versions") writes the
 * events that carry a binding or a subscription more compactly: no `createdHlc` in a
 * registration (it is the event's `hlc`) and no nil `originTs` / `senderTs` (absent means
 * no header). Version 1 reads an absent `createdHlc` as 0 and writes the nil timestamps, so
 * the 1 -> 2 step makes v1's implicit 0 explicit and drops the nils. */
#include "core/event_upcast.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool str_is(const msgpack_object *o, const char *s)
{
    size_t n = strlen(s);
    return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
           memcmp(o->via.str.ptr, s, n) == 0;
}

/* The `type` values whose events carry `createdHlc` (a binding or a subscription). */
static bool carries_created(const msgpack_object *type)
{
    static const char *const names[] = {
        "BindingRegistered",    "BindingUpdated",    "UeBindingRegistered",
        "UeBindingUpdated",     "MbsBindingRegistered", "MbsBindingUpdated",
        "SubscriptionCreated",  "SubscriptionReplaced",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (str_is(type, names[i]))
            return true;
    return false;
}

static const msgpack_object *member(const msgpack_object *map, const char *name)
{
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (str_is(&map->via.map.ptr[i].key, name))
            return &map->via.map.ptr[i].val;
    return NULL;
}

static msgpack_object text(const char *s)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_STR};
    o.via.str.ptr = s;
    o.via.str.size = (uint32_t)strlen(s);
    return o;
}

static msgpack_object uint_object(uint64_t u)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_POSITIVE_INTEGER};
    o.via.u64 = u;
    return o;
}

/* 1 -> 2. */
static int upcast_1_to_2(msgpack_object *root, msgpack_zone *zone, char *err, size_t err_cap)
{
    const msgpack_object *type = member(root, "type");
    if (type && type->type != MSGPACK_OBJECT_STR) {
        snprintf(err, err_cap, "member type has a wrong value");
        return -1;
    }
    bool add_created = type && carries_created(type) && !member(root, "createdHlc");
    uint32_t n = root->via.map.size;
    msgpack_object_kv *kv = msgpack_zone_malloc(zone, sizeof *kv * ((size_t)n + 1));
    if (!kv) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        const msgpack_object_kv *m = &root->via.map.ptr[i];
        if ((str_is(&m->key, "originTs") || str_is(&m->key, "senderTs")) &&
            m->val.type == MSGPACK_OBJECT_NIL)
            continue; /* v1's "no header" */
        kv[out] = *m;
        if (str_is(&m->key, "v"))
            kv[out].val = uint_object(2);
        out++;
    }
    if (add_created) { /* v1 read an absent createdHlc as 0; v2 would read the hlc */
        kv[out].key = text("createdHlc");
        kv[out].val = uint_object(0);
        out++;
    }
    root->via.map.ptr = kv;
    root->via.map.size = out;
    return 0;
}

typedef int (*upcast_step_fn)(msgpack_object *, msgpack_zone *, char *, size_t);

/* steps[v] turns version v into v + 1 */
static const upcast_step_fn steps[BSF_EVENT_UPCAST_NEWEST] = {
    [1] = upcast_1_to_2,
};

int bsf_event_upcast(msgpack_object *root, unsigned from, msgpack_zone *zone, char *err,
                     size_t err_cap)
{
    if (from < BSF_EVENT_UPCAST_OLDEST || from > BSF_EVENT_UPCAST_NEWEST ||
        root->type != MSGPACK_OBJECT_MAP) {
        snprintf(err, err_cap, "unsupported event version %u (this build reads versions %u to %u)",
                 from, BSF_EVENT_UPCAST_OLDEST, BSF_EVENT_UPCAST_NEWEST);
        return -1;
    }
    msgpack_object work = *root;
    for (unsigned v = from; v < BSF_EVENT_UPCAST_NEWEST; v++)
        if (steps[v](&work, zone, err, err_cap))
            return -1;
    *root = work;
    return 0;
}
