/* libFuzzer: an archive segment file (log/log_archive.h) as read back by bsf_log_archive_scan.
 * The first byte chooses: odd, the rest is the file as it is (zstd frames and garbage); even,
 * the rest is compressed first, so that the header and record parser see arbitrary content.
 * Also fuzzes bsf_duration_parse on the same bytes. Never crashes, never visits a record
 * outside the input, never reports positions out of the name's range. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "common/duration_text.h"
#include "log/log_archive.h"

static char dir[64];
static char path[128];

static int visit(void *ctx, uint64_t position, const void *event, size_t len)
{
    (void)event;
    uint64_t *n = ctx;
    if (position < 1 || position > 100 || len > 1u << 20)
        abort();
    (*n)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/bsf-fuzz-archive-XXXXXX");
        if (!mkdtemp(dir))
            abort();
        snprintf(path, sizeof path, "%s/log-%020d-%020d.zst", dir, 1, 100);
    }
    char text[64];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    uint64_t ms;
    (void)bsf_duration_parse(text, &ms);
    if (size < 1)
        return 0;
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (data[0] & 1) {
        fwrite(data + 1, 1, size - 1, f);
    } else {
        size_t bound = ZSTD_compressBound(size - 1);
        void *z = malloc(bound);
        size_t zlen = ZSTD_compress(z, bound, data + 1, size - 1, 1);
        if (!ZSTD_isError(zlen))
            fwrite(z, 1, zlen, f);
        free(z);
    }
    fclose(f);
    uint64_t visited = 0, last;
    int stopped;
    (void)bsf_log_archive_scan(dir, 1, visit, &visited, &last, &stopped);
    unlink(path);
    return 0;
}
