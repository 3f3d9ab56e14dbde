/* Helpers shared by the access-token test (test_sbi_oauth2.c) and bench/oauth2_bench.c, which
 * sign their own tokens. Any thread. */
#ifndef BSF_TESTS_UNIT_JWS_FIXTURES_H
#define BSF_TESTS_UNIT_JWS_FIXTURES_H

#include <stddef.h>

/* Writes `in` as base64url without padding (RFC 7515 §2) and a NUL into `out`, which must
 * hold 4 * ((len + 2) / 3) + 1 bytes. Cannot fail. */
void tj_b64url(const unsigned char *in, size_t len, char *out);

#endif
