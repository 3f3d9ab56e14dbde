/* A progress bar on stderr for the long commands (rebuild, replay, export, history): done and
 * total, rate, ETA. Drawn only when stderr is a terminal (isatty), at most ten times a second,
 * and erased at the end, so that piped or redirected output stays clean. One thread. */
#ifndef BSF_BSFCTL_PROGRESS_H
#define BSF_BSFCTL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *label;
    uint64_t total; /* 0: unknown (no bar, no ETA) */
    uint64_t done;
    uint64_t t0_ns, drawn_ns;
    bool tty, drawn;
} bsfctl_progress_t;

/* Starts counting `label` (a string literal) towards `total` events (0: unknown). */
void bsfctl_progress_start(bsfctl_progress_t *p, const char *label, uint64_t total);
/* `n` more events done; redraws when due. */
void bsfctl_progress_add(bsfctl_progress_t *p, uint64_t n);
/* Erases the bar (the command then prints its own summary). */
void bsfctl_progress_end(bsfctl_progress_t *p);
/* The text of the bar for `done` of `total` after `secs` seconds, into out (for tests and the
 * drawing). */
void bsfctl_progress_format(const char *label, uint64_t done, uint64_t total, double secs,
                            char *out, size_t cap);

#endif
