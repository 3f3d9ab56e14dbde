/* Lists of HTTP status codes as configuration gives them ("500,502;503\n504"): codes 300..599
 * separated by ',', ';' or '\n'. Pure; any thread. */
#ifndef BSF_GATEWAYS_SBI_STATUS_LIST_H
#define BSF_GATEWAYS_SBI_STATUS_LIST_H

#include <stdint.h>

#define BSF_STATUS_LIST_SIZE 600

/* Sets set[code] = 1 for each code of `list` ("" sets none). Returns 0, or -1 at a code out
 * of range or a bad separator (set then holds the codes before it). */
int bsf_status_list_parse(const char *list, uint8_t set[BSF_STATUS_LIST_SIZE]);

#endif
