/* What every Nbsf_Management resource does with a write: parse the JSON body, hand a command
 * to the engine and answer on the request's worker once the engine is done. Worker thread of
 * the request only (the completion hops from the engine thread back to it). */
#ifndef BSF_GATEWAYS_SBI_NBSF_WRITE_H
#define BSF_GATEWAYS_SBI_NBSF_WRITE_H

#include "engine/engine.h"
#include "gateways/sbi/nbsf_internal.h"

/* Answers a command the engine is done with (on the worker; the command is freed after).
 * `ctx` is what the submitter gave bsf_nbsf_submit with it. */
typedef void (*bsf_nbsf_answer_fn)(bsf_nbsf_request_t *rq, const bsf_command_t *cmd,
                                   const void *ctx);

/* Parses the body, which must be of media type `media`, into `obj` (worker scratch).
 * Answers (400 ProblemDetails when there is no body, 415 with Accept-Patch for a PATCH of
 * another type, 400 when it does not parse) and returns -1 on failure. */
int bsf_nbsf_parse_body(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r, const char *media,
                        msgpack_object *obj);

/* A new command, or NULL after answering 500 (out of memory). */
bsf_command_t *bsf_nbsf_new_command(bsf_nbsf_request_t *rq, bsf_command_kind_t kind);

/* Parses the body of media type `media` into *doc (as bsf_nbsf_parse_body) and makes a
 * command of `kind`: the command (owned by the caller), or NULL after answering (415, 400 or
 * 500). */
bsf_command_t *bsf_nbsf_body_command(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                                     const char *media, bsf_command_kind_t kind,
                                     msgpack_object *doc);

/* Hands `cmd` (owned from here) to the engine; `answer` runs on the worker when it is done,
 * given `ctx` (not owned: it must outlive the write, as static data does). A full queue (503
 * NF_CONGESTION_RISK with Retry-After) or no memory is answered at once. */
void bsf_nbsf_submit(bsf_nbsf_request_t *rq, bsf_command_t *cmd, bsf_nbsf_answer_fn answer,
                     const void *ctx);

/* Unpacks the command's result body into the worker's zone: 0, or -1 when there is none. */
int bsf_nbsf_unpack_result(bsf_nbsf_request_t *rq, const bsf_command_t *cmd,
                           msgpack_object *obj);

#endif
