/* One line of a .tiktoken rank file, read as lbpe/formats/tiktoken.py reads a well-formed one. */
#include "core.h"

/* the six bits a base64 letter carries; 64 for anything else */
static inline unsigned b64(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return 64;
}

/* The line at s[0:end - s): "<token> <rank>", then a newline or the end of the data. The token
 * is canonical base64 (whole groups of four letters, "=" only to pad the last group to "xxx=" or
 * "xx=="; as a2b_base64 does, bits a padded group leaves over are dropped); the rank is 1 to 18
 * digits. Writes the token's bytes to tok (room for 3/4 of the line) and its length to *len, the
 * rank to *rank. Returns where the next line starts (end: this was the last), or NULL when the
 * line is anything else, which the caller's slower reader then names. */
LBPE_FN const char *rank_line(const char *s, const char *end, unsigned char *tok, size_t *len,
                              uint64_t *rank) {
    const unsigned char *p = (const unsigned char *)s, *e = (const unsigned char *)end;
    size_t n = 0;
    for (;;) {
        if (e - p < 4) return NULL;
        unsigned a = b64(p[0]), b = b64(p[1]), c = b64(p[2]), d = b64(p[3]);
        if (a > 63 || b > 63) return NULL;
        if (c > 63 || d > 63) { /* padding, which ends the token */
            if (d > 63 && p[3] != '=') return NULL;
            if (c > 63 && (p[2] != '=' || p[3] != '=')) return NULL;
            tok[n++] = (unsigned char)(a << 2 | b >> 4);
            if (c <= 63) tok[n++] = (unsigned char)(b << 4 | c >> 2);
            p += 4;
            break;
        }
        tok[n++] = (unsigned char)(a << 2 | b >> 4);
        tok[n++] = (unsigned char)(b << 4 | c >> 2);
        tok[n++] = (unsigned char)(c << 6 | d);
        p += 4;
        if (p < e && *p == ' ') break;
    }
    if (p == e || *p != ' ') return NULL;
    p++;
    uint64_t r = 0;
    int digits = 0;
    while (p < e && *p >= '0' && *p <= '9' && digits < 19) {
        r = r * 10 + (uint64_t)(*p - '0');
        p++;
        digits++;
    }
    if (digits == 0 || digits > 18) return NULL;
    if (p < e) {
        if (*p != '\n') return NULL;
        p++; /* a newline may end the file */
    }
    *len = n;
    *rank = r;
    return (const char *)p;
}
