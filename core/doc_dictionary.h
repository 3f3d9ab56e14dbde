/* The compression dictionary of stored documents (bindings in projection records, events in
 * the embedded log; see common/compress.h): member names of bindings and events as msgpack
 * strings, then a typical binding in canonical msgpack (zstd favours the end of a raw
 * dictionary, where the most common content goes: the "imsi-" prefix, "internet", ".example"
 * domains...). Built from code, so every site running this version has the same dictionary;
 * changing it changes the stored bytes (and the digest) of every document. */
#ifndef BSF_CORE_DOC_DICTIONARY_H
#define BSF_CORE_DOC_DICTIONARY_H

#include <msgpack.h>

/* Appends the dictionary's bytes to `out`. Returns 0, or -1 when out of memory. Any thread. */
int bsf_doc_dictionary_pack(msgpack_sbuffer *out);

#endif
