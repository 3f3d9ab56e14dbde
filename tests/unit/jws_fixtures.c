#include "tests/unit/jws_fixtures.h"

#include <openssl/evp.h>

void tj_b64url(const unsigned char *in, size_t len, char *out)
{
    int n = EVP_EncodeBlock((unsigned char *)out, in, (int)len);
    for (int i = 0; i < n; i++)
        out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
    while (n > 0 && out[n - 1] == '=')
        n--;
    out[n] = '\0';
}
