/* Put first on the include path of the gateway targets (gateways/CMakeLists.txt): a gateway
 * that includes lmdb.h, directly or through a header, fails to build. Gateways read through
 * engine/read.h and write through engine/engine.h. */
#error "gateways must not include lmdb.h: read through engine/read.h"
