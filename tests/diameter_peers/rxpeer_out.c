/* rxpeer_out.c - see rxpeer_out.h */
#include "rxpeer_out.h"

#include <errno.h>
#include <string.h>

int rxpeer_out_open(struct rxpeer_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (path == NULL || strcmp(path, "-") == 0) {
		o->f = stdout;
	} else {
		o->f = fopen(path, "a");
		if (o->f == NULL)
			return errno;
		o->owned = 1;
	}
	int ret = pthread_mutex_init(&o->mu, NULL);
	if (ret != 0 && o->owned) {
		fclose(o->f);
		o->f = NULL;
	}
	return ret;
}

void rxpeer_out_close(struct rxpeer_out *o)
{
	if (o->f == NULL)
		return;
	if (o->owned)
		fclose(o->f);
	else
		fflush(o->f);
	o->f = NULL;
	pthread_mutex_destroy(&o->mu);
}

int rxpeer_out_line(struct rxpeer_out *o, const char *line, size_t len)
{
	int ret = 0;
	if (o == NULL || o->f == NULL)
		return EINVAL;
	pthread_mutex_lock(&o->mu);
	if (fwrite(line, 1, len, o->f) != len || fputc('\n', o->f) == EOF || fflush(o->f) != 0)
		ret = errno ? errno : EIO;
	pthread_mutex_unlock(&o->mu);
	return ret;
}
