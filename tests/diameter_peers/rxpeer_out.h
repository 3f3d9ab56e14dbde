/*
 * rxpeer_out.h - thread-safe sink for JSON lines (stdout or a file).
 *
 * Every line is written whole under a mutex and flushed, so a reader (a test harness tailing
 * the stream) never sees a partial or interleaved record.
 */
#ifndef RXPEER_OUT_H
#define RXPEER_OUT_H

#include <pthread.h>
#include <stdio.h>
#include <stddef.h>

struct rxpeer_out {
	FILE *f;
	int owned;          /* fclose() on rxpeer_out_close() */
	pthread_mutex_t mu;
};

/* path NULL or "-" means stdout. Returns 0 or errno. */
int rxpeer_out_open(struct rxpeer_out *o, const char *path);
void rxpeer_out_close(struct rxpeer_out *o);

/* Write `len` bytes followed by '\n' and flush. Returns 0 or errno. */
int rxpeer_out_line(struct rxpeer_out *o, const char *line, size_t len);

#endif /* RXPEER_OUT_H */
