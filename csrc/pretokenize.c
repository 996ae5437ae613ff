/* The preset pre-tokenisers (gpt2/r50k/p50k, cl100k, o200k, llama3, qwen2, paper) written out
 * as code: for each, the piece the preset's regular expression would match at a position, with
 * the character classes (C_L ...) the host fills from lbpe/pretokenize/classes.py, so both paths
 * see the same Unicode data. DeepSeek-V3's tokenizer.json Sequence of three Split regexes is
 * written out the same way (sequence_v3_end). */
#include "core.h"

/* letters: 0 " ?L+", 1 "[^\r\n L N]?L+", 2 o200k's two forms; numbers: 0 " ?N+", 1 "N{1,3}", 2 "N";
 * other_tail: 0 none, 1 "[\r\n]*", 2 "[\r\n/]*"; space: see split_space() */
LBPE_FN const Preset PRESETS[N_PRESETS] = {
    /* 0 r50k_base (gpt2, p50k_base) */ {CONTR_CASE, 0, 0, 0, 0, SEQ_NONE},
    /* 1 cl100k_base */ {CONTR_ANY_CASE, 1, 1, 1, 1, SEQ_NONE},
    /* 2 o200k_base */ {CONTR_NONE, 2, 1, 2, 2, SEQ_NONE},
    /* 3 llama3 */ {CONTR_ANY_CASE, 1, 1, 1, 2, SEQ_NONE},
    /* 4 qwen2 */ {CONTR_ANY_CASE, 1, 2, 1, 2, SEQ_NONE},
    /* 5 paper */ {CONTR_CASE, 0, 2, 0, 0, SEQ_NONE},
    /* 6 deepseek_v3 */ {CONTR_NONE, 0, 0, 0, 0, SEQ_DEEPSEEK_V3},
};
#define CP(i)    read_cp(kind, data, (i))
#define CLS(i)   cls[CP(i)]
#define IS(i, f) ((CLS(i) & (f)) != 0)
#define OTHER(i) ((CLS(i) & (C_L | C_N | C_S)) == 0)
#define CRLF(ch) ((ch) == '\r' || (ch) == '\n')

/* Length of the contraction ('s 't 're 've 'm 'll 'd) at p, or 0. */
static LBPE_ALWAYS_INLINE ptrdiff_t contraction(int kind, const void *data, ptrdiff_t n,
                                                ptrdiff_t p, int any_case) {
    if (p + 1 >= n || CP(p) != '\'') return 0;
    uint32_t a = CP(p + 1), b = p + 2 < n ? CP(p + 2) : 0;
    if (any_case) {
        if (a == 0x17F) a = 's'; /* LATIN SMALL LETTER LONG S folds to s */
        if (a < 128) a |= 0x20;
        if (b < 128 && b) b |= 0x20;
    }
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return 2;
    if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) return 3;
    return 0;
}

static LBPE_ALWAYS_INLINE ptrdiff_t run(const unsigned char *cls, int kind, const void *data,
                                        ptrdiff_t n, ptrdiff_t p, unsigned char f) {
    while (p < n && IS(p, f)) p++;
    return p;
}

static LBPE_ALWAYS_INLINE ptrdiff_t run_other(const unsigned char *cls, int kind, const void *data,
                                              ptrdiff_t n, ptrdiff_t p) {
    while (p < n && OTHER(p)) p++;
    return p;
}

/* o200k: "[U]*[W]+" from s (end, or -1) and "[U]+[W]*" from s */
static LBPE_ALWAYS_INLINE ptrdiff_t upper_lower(const unsigned char *cls, int kind,
                                                const void *data, ptrdiff_t n, ptrdiff_t s) {
    ptrdiff_t u = run(cls, kind, data, n, s, C_U);
    if (u < n && IS(u, C_W)) return run(cls, kind, data, n, u, C_W);
    for (ptrdiff_t k = u - 1; k >= s; k--)
        if (IS(k, C_W)) return k + 1;
    return -1;
}

static LBPE_ALWAYS_INLINE ptrdiff_t upper_then_lower(const unsigned char *cls, int kind,
                                                     const void *data, ptrdiff_t n, ptrdiff_t s) {
    ptrdiff_t u = run(cls, kind, data, n, s, C_U);
    return u == s ? -1 : run(cls, kind, data, n, u, C_W);
}

/* White space at p (reached only when CP(p) is white space). */
static LBPE_ALWAYS_INLINE ptrdiff_t split_space(const unsigned char *cls, int kind,
                                                const void *data, ptrdiff_t n, ptrdiff_t p,
                                                int style) {
    ptrdiff_t r = run(cls, kind, data, n, p, C_S);
    ptrdiff_t last_newline = -1;
    if (style)
        for (ptrdiff_t k = r - 1; k >= p; k--)
            if (CRLF(CP(k))) {
                last_newline = k;
                break;
            }
    if (style == 2 && last_newline >= 0) return last_newline + 1; /* \s*[\r\n]+ first */
    if (r == n) return n; /* \s+$ (or \s+(?!\S) at the end) */
    if (style == 1 && last_newline >= 0) return last_newline + 1; /* cl100k: \s*[\r\n] */
    return r - p >= 2 ? r - 1 : p + 1;                            /* \s+(?!\S), then \s */
}

/* DeepSeek-V3's pre-tokeniser, a Sequence of Isolated Splits, each on every piece of the one
 * before (a piece's end is the end of the string for the next pattern):
 *   1. \p{N}{1,3}
 *   2. [\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+
 *   3. [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+ | [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
 *      | ?[\p{P}\p{S}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
 *   (then ByteLevel without its regex, which splits nothing).
 * Step 1 cuts runs of N into threes; step 2 makes each CJK run a string of its own; step 3 runs
 * in the N-free, CJK-free stretches between them and inside each CJK run (no N there), and what
 * it does not match is a piece too. So a piece at p is: an N chunk if CP(p) is N; else step 3's
 * piece inside the stretch of p's kind (CJK or other) that starts at p, which ends at the first
 * code point of the other kind or an N. Everything looks only forward: the same piece ends as
 * the three passes over the whole text give. */
#define DS_SEG (C_N | C_CJK)
/* whether i < n is inside a stretch whose code points have (class & DS_SEG) == want */
#define IN(i) ((i) < n && (CLS(i) & DS_SEG) == want)
#define DS_LM(i) (IN(i) && IS(i, C_L | C_M))

static LBPE_ALWAYS_INLINE int ascii_punct(uint32_t c) {
    return c < 128 && c > ' ' && c != 127 && !(c >= '0' && c <= '9') &&
           !((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static LBPE_ALWAYS_INLINE int ascii_letter(uint32_t c) {
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static LBPE_ALWAYS_INLINE ptrdiff_t sequence_v3_end(const unsigned char *cls, int kind,
                                                    const void *data, ptrdiff_t n, ptrdiff_t p) {
    uint32_t c = CP(p);
    unsigned char cc = cls[c];
    ptrdiff_t q;
    if (cc & C_N) { /* step 1: \p{N}{1,3} */
        q = p + 1;
        while (q < n && q < p + 3 && IS(q, C_N)) q++;
        return q;
    }
    unsigned char want = cc & C_CJK; /* step 2: p's stretch */
    /* [ASCII punctuation][A-Za-z]+ */
    if (ascii_punct(c) && p + 1 < n && ascii_letter(CP(p + 1))) {
        q = p + 2;
        while (q < n && ascii_letter(CP(q))) q++;
        return q;
    }
    /* [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+ (a mark as the optional one ends where a run of
     * marks and letters from it ends, either way) */
    q = -1;
    if (cc & (C_L | C_M)) q = p + 1;
    else if (!CRLF(c) && !(cc & C_PS) && DS_LM(p + 1)) q = p + 2;
    if (q >= 0) {
        while (DS_LM(q)) q++;
        return q;
    }
    /* " ?[\p{P}\p{S}]+[\r\n]*" */
    if (cc & C_PS) q = p + 1;
    else if (c == ' ' && IN(p + 1) && IS(p + 1, C_PS)) q = p + 2;
    if (q >= 0) {
        while (IN(q) && IS(q, C_PS)) q++;
        while (IN(q) && CRLF(CP(q))) q++;
        return q;
    }
    if (cc & C_S) { /* \s*[\r\n]+, \s+(?!\S), \s+ */
        ptrdiff_t r = p + 1, last_newline = CRLF(c) ? p : -1;
        for (; IN(r) && IS(r, C_S); r++)
            if (CRLF(CP(r))) last_newline = r;
        if (last_newline >= 0) return last_newline + 1;
        if (!IN(r)) return r; /* the stretch's end: (?!\S) holds */
        return r - p >= 2 ? r - 1 : r;
    }
    /* no match starts here: the piece runs to where one starts (or the stretch ends) */
    q = p + 1;
    while (IN(q) && !IS(q, C_L | C_M | C_PS | C_S) && !DS_LM(q + 1)) q++;
    return q;
}
#undef IN
#undef DS_LM

/* The end of the piece that starts at p (p < n). */
static LBPE_ALWAYS_INLINE ptrdiff_t piece_end(const Preset *pr, const unsigned char *cls, int kind,
                                              const void *data, ptrdiff_t n, ptrdiff_t p) {
    if (pr->sequence) return sequence_v3_end(cls, kind, data, n, p);
    uint32_t c = CP(p);
    unsigned char cc = cls[c];
    ptrdiff_t q;
    if (pr->contractions && (q = contraction(kind, data, n, p, pr->contractions == CONTR_ANY_CASE)))
        return p + q;
    int lead = !CRLF(c) && !(cc & (C_L | C_N)); /* [^\r\n\p{L}\p{N}] */
    switch (pr->letters) {
    case 0:
        if (c == ' ' && p + 1 < n && IS(p + 1, C_L)) return run(cls, kind, data, n, p + 1, C_L);
        if (cc & C_L) return run(cls, kind, data, n, p, C_L);
        break;
    case 1:
        if (cc & C_L) return run(cls, kind, data, n, p, C_L);
        if (lead && p + 1 < n && IS(p + 1, C_L)) return run(cls, kind, data, n, p + 1, C_L);
        break;
    default:
        for (int form = 0; form < 2; form++) {
            ptrdiff_t e = -1;
            if (lead && p + 1 < n)
                e = form ? upper_then_lower(cls, kind, data, n, p + 1)
                         : upper_lower(cls, kind, data, n, p + 1);
            if (e < 0)
                e = form ? upper_then_lower(cls, kind, data, n, p)
                         : upper_lower(cls, kind, data, n, p);
            if (e >= 0) return e + contraction(kind, data, n, e, 1);
        }
    }
    switch (pr->numbers) {
    case 0:
        if (c == ' ' && p + 1 < n && IS(p + 1, C_N)) return run(cls, kind, data, n, p + 1, C_N);
        if (cc & C_N) return run(cls, kind, data, n, p, C_N);
        break;
    case 1:
        if (cc & C_N) {
            q = p + 1;
            while (q < n && q < p + 3 && IS(q, C_N)) q++;
            return q;
        }
        break;
    default:
        if (cc & C_N) return p + 1;
    }
    q = -1;
    if (c == ' ' && p + 1 < n && OTHER(p + 1)) q = run_other(cls, kind, data, n, p + 1);
    else if (!(cc & (C_L | C_N | C_S))) q = run_other(cls, kind, data, n, p);
    if (q >= 0) {
        if (pr->other_tail)
            while (q < n && (CRLF(CP(q)) || (pr->other_tail == 2 && CP(q) == '/'))) q++;
        return q;
    }
    return split_space(cls, kind, data, n, p, pr->space);
}

/* piece_end compiled once for each kind, which is then a constant: each code point is one load */
static ptrdiff_t piece_end_1(const Preset *pr, const unsigned char *cls, const void *data,
                             ptrdiff_t n, ptrdiff_t p) {
    return piece_end(pr, cls, 1, data, n, p);
}

static ptrdiff_t piece_end_2(const Preset *pr, const unsigned char *cls, const void *data,
                             ptrdiff_t n, ptrdiff_t p) {
    return piece_end(pr, cls, 2, data, n, p);
}

static ptrdiff_t piece_end_4(const Preset *pr, const unsigned char *cls, const void *data,
                             ptrdiff_t n, ptrdiff_t p) {
    return piece_end(pr, cls, 4, data, n, p);
}

LBPE_FN ptrdiff_t next_piece_latin1(const Preset *pr, const unsigned char *cls, const Text *t,
                                    ptrdiff_t p) {
    return piece_end_1(pr, cls, t->data, t->n, p);
}

LBPE_FN ptrdiff_t next_piece(const Preset *pr, const unsigned char *cls, const Text *t,
                             ptrdiff_t p) {
    return t->kind == 1   ? piece_end_1(pr, cls, t->data, t->n, p)
           : t->kind == 2 ? piece_end_2(pr, cls, t->data, t->n, p)
                          : piece_end_4(pr, cls, t->data, t->n, p);
}
