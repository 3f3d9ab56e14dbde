/* What the document-style binding collections (/pcf-ue-bindings, /pcf-mbs-bindings) share:
 * the routing of collection and member requests, the answers to their writes and the JSON
 * array a discovery renders. Each collection describes itself with a bsf_nbsf_doc_resource_t
 * and keeps its own body decoding and query parsing. Worker thread of the request only. */
#ifndef BSF_GATEWAYS_SBI_NBSF_DOC_RESOURCE_H
#define BSF_GATEWAYS_SBI_NBSF_DOC_RESOURCE_H

#include <stdbool.h>

#include "gateways/sbi/nbsf_internal.h"
#include "gateways/sbi/nbsf_write.h"

/* What the ProblemDetails of a refused write carries of the binding the engine answered with:
 * nothing, the binding itself (pcfBindings' ExtProblemDetails), or its members for
 * EXISTING_BINDING_INFO_FOUND alone (MbsExtProblemDetails). */
typedef enum {
    BSF_NBSF_REFUSAL_BARE,
    BSF_NBSF_REFUSAL_BINDING,
    BSF_NBSF_REFUSAL_EXT_EXISTING,
} bsf_nbsf_refusal_body_t;

/* A collection: its name (the path segment), the detail of the 404 for a member id that does
 * not parse, its command kinds, what its refusals carry, its discovery (called with the
 * worker's zone cleared: it answers, or returns -1 with *p set for bsf_nbsf_doc_discover to
 * answer, as for a query that does not parse), the decoders of a registration's body (with
 * the rules; a pointer to the binding's supportedFeatures slot in *supp_feat) and of a patch
 * into the command (each reads the service's settings `cfg`; 0, or -1 with the problem set).
 * Static data; not owned by the calls. */
typedef struct {
    const char *name;
    const char *not_found;
    bsf_command_kind_t register_kind, update_kind, deregister_kind;
    bsf_nbsf_refusal_body_t refusal_body;
    int (*discover)(bsf_nbsf_request_t *rq, const char *query, size_t query_len,
                    bsf_problem_t *p);
    int (*decode_binding)(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                          bsf_command_t *cmd, const char ***supp_feat, bsf_problem_t *p);
    int (*decode_patch)(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                        bsf_command_t *cmd, bsf_problem_t *p);
} bsf_nbsf_doc_resource_t;

/* Handles the request when `res` (the path after /nbsf-management/v1/, without the query)
 * names the collection or one of its members: true when it did (answered or pending), false
 * when the resource is not ours. `query` is after the '?', or NULL. GET on the collection
 * discovers, POST registers (the features agreed), PATCH / DELETE on a member update /
 * deregister (by the PCF), each write answered as bsf_nbsf_doc_submit says; other methods
 * get 405 with Allow, a query on a write 400 INVALID_QUERY_PARAM, a bad id 404. */
bool bsf_nbsf_doc_route(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                        const bsf_h2_request_t *r, const char *res, size_t res_len,
                        const char *query, size_t query_len);

/* The command of a registration (id NULL: its body decoded by d->decode_binding, the features
 * agreed) or of an update of `id` (its body a merge patch, decoded by d->decode_patch): owned
 * by the caller, who submits it; or NULL after answering (415, 400, or the decoder's problem).
 * pcf_bindings.c decodes its writes through it too, and adds what its registrations carry. */
bsf_command_t *bsf_nbsf_doc_command(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                                    const bsf_h2_request_t *r, const bsf_binding_id_t *id);

/* Hands a write of the collection (`cmd`, owned from here) to the engine, answered when it is
 * done: a refusal with its ProblemDetails and what d->refusal_body says of the binding the
 * engine answered with; else 204 for a deregistration, or the binding (none: 500) as JSON,
 * 200 for an update, 201 with Location for a registration. pcf_bindings.c submits through it
 * too. */
void bsf_nbsf_doc_submit(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                         bsf_command_t *cmd);

/* Replaces *supp_feat (when set) by the features both sides support (TS 29.500 6.6), copied
 * into `zone`; left as it is when the zone has no memory. */
void bsf_nbsf_doc_agree_features(msgpack_zone *zone, const char **supp_feat);

/* Submits a deregistration of `id` by the PCF (d->deregister_kind), as bsf_nbsf_doc_submit. */
void bsf_nbsf_doc_deregister(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                             const bsf_binding_id_t *id);

/* A discovery by d->discover of the query (after the '?', `query_len` bytes), answered by it
 * or with the ProblemDetails it returned. pcf_bindings.c discovers through it too. */
void bsf_nbsf_doc_discover(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                           const char *query, size_t query_len);

/* Ends a discovery whose read (inside the worker's snapshot, begun by the caller) returned
 * `rc`: renders the `n` records (the first at `first`, the next every `stride` bytes, as in
 * an array of match structs) as a JSON array with the features of `supp_feat` agreed, ends
 * the snapshot, and answers 200 with the array ([] on a miss) or 500 (logged with `what`). */
void bsf_nbsf_doc_answer_discovery(bsf_nbsf_request_t *rq, int rc, const char *supp_feat,
                                   const bsf_record_t *first, size_t stride, size_t n,
                                   const char *what);

#endif
