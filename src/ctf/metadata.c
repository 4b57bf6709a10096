/*
 * The CTF metadata stream (CTF 1.8.3 section 7.1): plain text starting
 * with "/ * CTF 1.8" (after a UTF-8 BOM and white space, if any), or
 * packetized (metadata packet header with magic
 * 0x75D11D57, either byte order).  Also recognizes CTF 2 metadata (first
 * byte 0x1E, the JSON text sequence record separator) and loads it as is.
 */
#include "ctf/ctf.h"
#include "ctf/tsdl.h"

#include <stdlib.h>

#define META_MAGIC 0x75D11D57u
#define META_HDR 37 /* bytes: magic, uuid[16], checksum, content_size, packet_size, 5 x u8 */

static int meta_err(int st, const char *path, uint64_t off, const char *fmt, ...) TIO_PRINTF(4, 5);
static int meta_err(int st, const char *path, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tio_err_set(st, "%s@0x%llx: %s", path, (unsigned long long)off, msg);
}

/*
 * Concatenate the content of every packet.  A trailing piece too short to
 * hold a packet header ends the stream without error once at least one
 * packet was read (babeltrace2 accepts such a trailing byte and only
 * warns).  Padding after a packet's content may be missing at the end of
 * the file.
 */
static int load_packets(const tio_map *m, tio_ctf_meta *out, tio_buf *text)
{
	uint64_t off = 0;
	uint32_t npk = 0;
	bool be = tio_be32(m->p) == META_MAGIC;
	out->packetized = true;
	out->byte_order = be ? TIO_BE : TIO_LE;
	while (off < m->size) {
		uint64_t left = m->size - off;
		const uint8_t *h = m->p + off;
		if (left < META_HDR) {
			if (npk)
				break;
			return meta_err(TIO_ERR_FORMAT, m->path, off, "packet header truncated (%llu bytes left)",
					(unsigned long long)left);
		}
		uint32_t magic = be ? tio_be32(h) : tio_le32(h);
		if (magic != META_MAGIC)
			return meta_err(TIO_ERR_FORMAT, m->path, off,
					"bad metadata packet magic 0x%08x (expected 0x%08x)", magic, META_MAGIC);
		uint32_t content = be ? tio_be32(h + 24) : tio_le32(h + 24);
		uint32_t psize = be ? tio_be32(h + 28) : tio_le32(h + 28);
		uint8_t comp = h[32], enc = h[33], csum = h[34], major = h[35], minor = h[36];
		if (!((major == 1 && minor == 8) || (major == 2 && minor == 0)))
			return meta_err(TIO_ERR_UNSUPPORTED, m->path, off,
					"unsupported metadata packet version %u.%u (expected 1.8)", major, minor);
		if (comp || enc || csum)
			return meta_err(TIO_ERR_UNSUPPORTED, m->path, off,
					"compressed, encrypted or checksummed metadata packets are not supported "
					"(schemes %u/%u/%u)", comp, enc, csum);
		if (content % 8 || psize % 8)
			return meta_err(TIO_ERR_FORMAT, m->path, off,
					"content size (%u bits) or packet size (%u bits) is not a multiple of 8",
					content, psize);
		if (content / 8 < META_HDR || psize < content)
			return meta_err(TIO_ERR_FORMAT, m->path, off,
					"invalid content size %u bits for packet size %u bits (header is %u bits)",
					content, psize, META_HDR * 8);
		if (content / 8 > left)
			return meta_err(TIO_ERR_FORMAT, m->path, off,
					"packet content truncated: %u bytes announced, %llu bytes left", content / 8,
					(unsigned long long)left);
		if (npk == 0) {
			memcpy(out->uuid, h + 4, 16);
			out->has_uuid = true;
			out->ctf_major = major;
		} else if (memcmp(out->uuid, h + 4, 16)) {
			return meta_err(TIO_ERR_FORMAT, m->path, off, "metadata packet UUID differs from the first packet's");
		}
		if (tio_buf_add(text, h + META_HDR, content / 8 - META_HDR))
			return TIO_ERR_NOMEM;
		npk++;
		off += psize / 8;
	}
	return 0;
}

/* Where the signature of plain-text metadata should be: after a UTF-8 BOM and white space. */
static size_t sig_start(const char *p, size_t n)
{
	size_t i = n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3) ? 3 : 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == '\v' || p[i] == '\f'))
		i++;
	return i;
}

int tio_ctf_meta_load(const char *dir, tio_ctf_meta *out)
{
	memset(out, 0, sizeof(*out));
	char *path = tio_path_join(dir, "metadata");
	if (!path)
		return TIO_ERR_NOMEM;
	tio_map m = {0};
	tio_buf text = {0};
	int rc = tio_map_open(&m, path);
	if (rc)
		goto out;
	if (m.size > TSDL_MAX_TEXT * 2ull) {
		rc = tio_err_set(TIO_ERR_LIMIT, "%s: metadata file is %llu bytes, more than the %u byte limit", path,
				 (unsigned long long)m.size, TSDL_MAX_TEXT * 2);
		goto out;
	}
	if (m.size == 0) {
		rc = tio_err_set(TIO_ERR_FORMAT, "%s: metadata stream is empty", path);
		goto out;
	}
	if (m.size >= 4 && (tio_le32(m.p) == META_MAGIC || tio_be32(m.p) == META_MAGIC)) {
		if ((rc = load_packets(&m, out, &text)))
			goto out;
	} else {
		out->ctf_major = 1;
		if (tio_buf_add(&text, m.p, m.size)) {
			rc = TIO_ERR_NOMEM;
			goto out;
		}
	}
	if (text.len && text.p[0] == 0x1E) {
		out->ctf_major = 2;
	} else {
		out->ctf_major = 1;
		/*
		 * Plain text must announce itself; packet content need not.  A
		 * UTF-8 BOM and white space may come before the signature (as
		 * babeltrace 2.1 reads them; the lexer skips both).
		 */
		static const char sig[] = "/* CTF ";
		if (!out->packetized) {
			unsigned ma = 0, mi = 0;
			size_t at = sig_start(text.p, text.len);
			if (text.len - at < sizeof(sig) - 1 || memcmp(text.p + at, sig, sizeof(sig) - 1) ||
			    sscanf(tio_buf_cstr(&text) + at + sizeof(sig) - 1, "%u.%u", &ma, &mi) != 2) {
				rc = tio_err_set(TIO_ERR_FORMAT,
						 "%s: not a CTF metadata stream (no \"/* CTF 1.8\" signature, no packet magic)",
						 path);
				goto out;
			}
			if (ma != 1 || mi != 8) {
				rc = tio_err_set(TIO_ERR_UNSUPPORTED, "%s: unsupported metadata version %u.%u (expected 1.8)",
						 path, ma, mi);
				goto out;
			}
		}
	}
	if (tio_buf_reserve(&text, 0)) {
		rc = TIO_ERR_NOMEM;
		goto out;
	}
	text.p[text.len] = 0;
	out->text = text.p;
	out->len = text.len;
	text.p = NULL;
out:
	tio_buf_free(&text);
	tio_map_close(&m);
	free(path);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

void tio_ctf_meta_free(tio_ctf_meta *m)
{
	if (!m)
		return;
	free(m->text);
	memset(m, 0, sizeof(*m));
}
