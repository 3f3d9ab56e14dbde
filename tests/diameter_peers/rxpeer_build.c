/* rxpeer_build.c - see rxpeer_build.h */
#include "rxpeer_build.h"

#include <errno.h>
#include <string.h>

/* Create an AVP from `model`, set `value` (NULL for grouped) and append it to `parent`. */
static int rxpeer_add_value(void *parent, struct dict_object *model, union avp_value *value, struct avp **out)
{
	struct avp *a = NULL;
	int ret;

	if (parent == NULL || model == NULL)
		return EINVAL;
	if ((ret = fd_msg_avp_new(model, 0, &a)) != 0)
		return ret;
	if (value != NULL && (ret = fd_msg_avp_setvalue(a, value)) != 0) {
		fd_msg_free(a);
		return ret;
	}
	if ((ret = fd_msg_avp_add(parent, MSG_BRW_LAST_CHILD, a)) != 0) {
		fd_msg_free(a);
		return ret;
	}
	if (out)
		*out = a;
	return 0;
}

int rxpeer_add_u32(void *parent, struct dict_object *model, uint32_t v)
{
	union avp_value val;
	memset(&val, 0, sizeof val);
	val.u32 = v;
	return rxpeer_add_value(parent, model, &val, NULL);
}

int rxpeer_add_i32(void *parent, struct dict_object *model, int32_t v)
{
	union avp_value val;
	memset(&val, 0, sizeof val);
	val.i32 = v;
	return rxpeer_add_value(parent, model, &val, NULL);
}

int rxpeer_add_os(void *parent, struct dict_object *model, const void *data, size_t len)
{
	union avp_value val;
	memset(&val, 0, sizeof val);
	val.os.data = (uint8_t *)(uintptr_t)data; /* copied by fd_msg_avp_setvalue */
	val.os.len = len;
	return rxpeer_add_value(parent, model, &val, NULL);
}

int rxpeer_add_str(void *parent, struct dict_object *model, const char *s)
{
	if (s == NULL)
		return EINVAL;
	return rxpeer_add_os(parent, model, s, strlen(s));
}

int rxpeer_add_grouped(void *parent, struct dict_object *model, struct avp **out)
{
	return rxpeer_add_value(parent, model, NULL, out);
}

int rxpeer_add_session_id(struct msg *m, const bsf_rx_dict_t *rx, const char *sid)
{
	struct avp *a = NULL;
	union avp_value val;
	int ret;

	if (m == NULL || sid == NULL)
		return EINVAL;
	if ((ret = fd_msg_avp_new(rx->session_id, 0, &a)) != 0)
		return ret;
	memset(&val, 0, sizeof val);
	val.os.data = (uint8_t *)(uintptr_t)sid;
	val.os.len = strlen(sid);
	if ((ret = fd_msg_avp_setvalue(a, &val)) != 0 ||
	    (ret = fd_msg_avp_add(m, MSG_BRW_FIRST_CHILD, a)) != 0) {
		fd_msg_free(a);
		return ret;
	}
	return 0;
}

int rxpeer_add_destination(struct msg *m, const bsf_rx_dict_t *rx, const char *host, const char *realm)
{
	int ret;
	/* Realm first: the order of the Rx ABNF ({ Destination-Realm } before Destination-Host). */
	if (realm != NULL && (ret = rxpeer_add_str(m, rx->destination_realm, realm)) != 0)
		return ret;
	if (host != NULL && host[0] != '\0' && (ret = rxpeer_add_str(m, rx->destination_host, host)) != 0)
		return ret;
	return 0;
}

int rxpeer_add_exp_result(struct msg *m, const bsf_rx_dict_t *rx, uint32_t vendor, uint32_t code)
{
	struct avp *g = NULL;
	int ret;

	if (m == NULL)
		return EINVAL;
	/* Build the group detached, so that an error leaves the message untouched. */
	if ((ret = fd_msg_avp_new(rx->experimental_result, 0, &g)) != 0)
		return ret;
	if ((ret = rxpeer_add_u32(g, rx->vendor_id, vendor)) != 0 ||
	    (ret = rxpeer_add_u32(g, rx->experimental_result_code, code)) != 0 ||
	    (ret = fd_msg_avp_add(m, MSG_BRW_LAST_CHILD, g)) != 0) {
		fd_msg_free(g);
		return ret;
	}
	return 0;
}
