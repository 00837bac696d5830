/*
 * fleet lab: stands in for OpenSSL's internal e_os.h, which engines/e_devcrypto.c includes as "../e_os.h" and
 * which Debian's libssl-dev does not install. The engine uses only these parts of it: the C library headers
 * (errno, fprintf, strerror) and OSSL_NELEM (internal/nelem.h). Everything else it calls is OpenSSL 3.0's public
 * API, from the libssl-dev headers lab/lab builds it against.
 */
#ifndef FLEET_LAB_E_OS_H
#define FLEET_LAB_E_OS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OSSL_NELEM(x) (sizeof(x) / sizeof((x)[0]))

#endif
