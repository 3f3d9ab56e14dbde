/* The build's version: CMake's project version, with `git describe` when the tree was a git
 * checkout at configure time (e.g. "0.1.0+g1a2b3c4" or "0.1.0+g1a2b3c4.dirty"). */
#ifndef BSF_COMMON_VERSION_H
#define BSF_COMMON_VERSION_H

/* A static string; never NULL. Any thread. */
const char *bsf_version(void);
/* The git revision alone ("" when unknown). Any thread. */
const char *bsf_version_revision(void);

#endif
