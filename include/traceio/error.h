/* traceio: status codes and the last error of this thread. */
#ifndef TRACEIO_ERROR_H
#define TRACEIO_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every function that can fail returns 0 or one of these (negative). */
enum tio_status {
	TIO_OK = 0,
	TIO_ERR_NOMEM = -1,  /* out of memory */
	TIO_ERR_IO = -2,     /* a system call failed */
	TIO_ERR_FORMAT = -3, /* the input is not what its format says (corrupt, truncated) */
	TIO_ERR_UNSUPPORTED = -4, /* valid input using something traceio does not do */
	TIO_ERR_USAGE = -5,  /* bad argument from the caller */
	TIO_ERR_LIMIT = -6,  /* input asks for more than the safety limits allow */
	TIO_ERR_SKIPPED = -7 /* data was skipped after an error, reading went on */
};

/* The message of the last error set on this thread ("" if none). */
const char *tio_error_message(void);

/* Forget the last error. */
void tio_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif
