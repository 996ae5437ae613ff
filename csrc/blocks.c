/* The splitter over a whole text: the presets of pretokenize.c, with a path for ASCII text that
 * classifies up to 64 code points at a time into bitmasks (one bit per code point and class)
 * and finds the common pieces' ends with bit operations. It serves the presets whose letter
 * pieces are "[^\r\n\p{L}\p{N}]?\p{L}+" with any-case contractions (cl100k_base, llama3,
 * qwen2) and o200k_base's upper-then-lower letter pieces: a piece that starts with a classified
 * code point and ends at one, or at the text's end (block_starts: several at once, white space
 * among them; block_end: one). Classified are ASCII and, in a text of Latin-1 (one byte a code
 * point), the code points beyond ASCII whose class the bitmasks model (block_latin1, from the
 * class table). Every other piece (contractions, anything that reaches a code point not
 * classified, or past the block) is left to piece_end, so both give the same pieces by
 * construction: the block path only answers where the preset's pattern looks at nothing but
 * classified code points. */
#include "core.h"
#if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
#include <emmintrin.h>
#define LBPE_BLOCK_SSE2 1
#endif

/* how many of x's lowest bits are set in a row (64 when all are) */
static LBPE_ALWAYS_INLINE unsigned ones(uint64_t x) {
    x = ~x;
    if (!x) return 64;
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned k = 0;
    while (!(x & 1)) x >>= 1, k++;
    return k;
#endif
}

/* the index of x's highest set bit (x != 0) */
static LBPE_ALWAYS_INLINE unsigned top(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return 63u - (unsigned)__builtin_clzll(x);
#else
    unsigned k = 0;
    while (x >>= 1) k++;
    return k;
#endif
}

/* bit k of x (0 past bit 63) */
static LBPE_ALWAYS_INLINE unsigned bit(uint64_t x, unsigned k) {
    return k < 64 ? (unsigned)(x >> k) & 1 : 0;
}

/* The ASCII classes the block path assumes: whether the host's class table agrees. */
LBPE_FN void classes_done(unsigned char *cls) {
    cls[CLS_INFO] = 0;
    for (uint32_t c = 0; c < 128; c++) {
        int upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
        int digit = c >= '0' && c <= '9';
        int space = c == ' ' || (c >= 0x09 && c <= 0x0D);
        if (!!(cls[c] & C_L) != (upper || lower) || !!(cls[c] & C_U) != upper ||
            !!(cls[c] & C_W) != lower || !!(cls[c] & C_N) != digit || !!(cls[c] & C_S) != space)
            return;
    }
    cls[CLS_INFO] = 1;
}

/* The presets the block path serves: cl100k_base's kind, and o200k_base's. */
static int block_preset(const Preset *pr) {
    if (pr->sequence) return 0;
    if (pr->letters == 1)
        return pr->contractions == CONTR_ANY_CASE && (pr->numbers == 1 || pr->numbers == 2) &&
               pr->other_tail == 1;
    return pr->letters == 2 && pr->contractions == CONTR_NONE && pr->numbers == 1 &&
           pr->other_tail == 2;
}

static Classifier classifier(void);

LBPE_FN void splitter_init(Splitter *sp, const Preset *pr, const unsigned char *cls,
                           const Text *t) {
    sp->pr = pr;
    sp->cls = cls;
    sp->t = t;
    sp->on = block_preset(pr) && cls[CLS_INFO] == 1;
    sp->latin1 = sp->on && t->kind == 1 && !t->ascii;
    sp->classify = classifier();
    sp->b.base = PTRDIFF_MIN / 2; /* no block yet */
    sp->ends = 0;
    sp->from = 0;
}

/* b's bitmasks emptied, for classifiers that add to them */
static LBPE_ALWAYS_INLINE void clear_masks(Block *b) {
    b->stop = b->letter = b->digit = b->other = 0;
    b->upper = b->crlf = b->blank = b->quote = b->slash = 0;
}

/* The classes of code point c into bit k of b (its byte: c if ASCII, else 0x80). */
static LBPE_ALWAYS_INLINE void classify_one(Block *b, unsigned k, uint32_t c) {
    uint64_t one = (uint64_t)1 << k;
    b->bytes[k] = (unsigned char)(c < 0x80 ? c : 0x80);
    if (c >= 0x80) return;
    b->stop |= one;
    if (c >= 'A' && c <= 'Z') b->upper |= one;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') b->letter |= one;
    else if (c >= '0' && c <= '9') b->digit |= one;
    else if (!(c == ' ' || (c >= 0x09 && c <= 0x0D))) b->other |= one;
    if (c == '\r' || c == '\n') b->crlf |= one;
    if (c == ' ') b->blank |= one;
    if (c == '\'') b->quote |= one;
    if (c == '/') b->slash |= one;
}

#if defined(LBPE_BLOCK_SSE2)
/* 16 code points at `at` as bytes: ASCII ones as they are, every other one 0x80 or above. */
static LBPE_ALWAYS_INLINE __m128i narrow16(int kind, const char *at) {
    if (kind == 1) return _mm_loadu_si128((const __m128i *)at);
    __m128i low = kind == 2 ? _mm_set1_epi16(0x7F) : _mm_set1_epi32(0x7F);
    __m128i mark = kind == 2 ? _mm_set1_epi16(0x80) : _mm_set1_epi32(0x80);
    __m128i zero = _mm_setzero_si128();
    if (kind == 2) {
        __m128i w[2];
        for (int j = 0; j < 2; j++) {
            __m128i v = _mm_loadu_si128((const __m128i *)at + j);
            __m128i high = _mm_andnot_si128(low, v); /* bits above 0x7F */
            __m128i ascii = _mm_cmpeq_epi16(high, zero);
            w[j] = _mm_or_si128(_mm_and_si128(v, low), _mm_andnot_si128(ascii, mark));
        }
        return _mm_packus_epi16(w[0], w[1]); /* every lane is 0..0xFF: exact */
    }
    __m128i w[4];
    for (int j = 0; j < 4; j++) {
        __m128i v = _mm_loadu_si128((const __m128i *)at + j);
        __m128i high = _mm_andnot_si128(low, v);
        __m128i ascii = _mm_cmpeq_epi32(high, zero);
        w[j] = _mm_or_si128(_mm_and_si128(v, low), _mm_andnot_si128(ascii, mark));
    }
    return _mm_packus_epi16(_mm_packs_epi32(w[0], w[1]), _mm_packs_epi32(w[2], w[3]));
}

/* The classes of 64 code points of `kind` bytes at `at` into b (its bitmasks zero before). */
static LBPE_ALWAYS_INLINE void classify64(Block *b, int kind, const char *at) {
    for (unsigned g = 0; g < 4; g++) {
        __m128i x = narrow16(kind, at + (size_t)g * 16 * kind);
        _mm_storeu_si128((__m128i *)(b->bytes + g * 16), x);
        /* x's bytes as signed: everything beyond ASCII is negative and fails every range */
        __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                       _mm_cmpgt_epi8(_mm_set1_epi8('z' + 1), lower));
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                      _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), x));
        __m128i upper = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('A' - 1)),
                                      _mm_cmpgt_epi8(_mm_set1_epi8('Z' + 1), x));
        __m128i blank = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
        __m128i space = _mm_or_si128(blank, _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(0x08)),
                                                          _mm_cmpgt_epi8(_mm_set1_epi8(0x0E), x)));
        __m128i crlf = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')),
                                    _mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
        unsigned shift = g * 16;
        uint64_t ascii = (uint64_t)(~(unsigned)_mm_movemask_epi8(x) & 0xFFFFu);
        uint64_t l = (uint64_t)(unsigned)_mm_movemask_epi8(letter);
        uint64_t d = (uint64_t)(unsigned)_mm_movemask_epi8(digit);
        uint64_t s = (uint64_t)(unsigned)_mm_movemask_epi8(space);
        b->stop |= ascii << shift;
        b->letter |= l << shift;
        b->digit |= d << shift;
        b->other |= (ascii & ~(l | d | s)) << shift;
        b->crlf |= (uint64_t)(unsigned)_mm_movemask_epi8(crlf) << shift;
        b->blank |= (uint64_t)(unsigned)_mm_movemask_epi8(blank) << shift;
        b->upper |= (uint64_t)(unsigned)_mm_movemask_epi8(upper) << shift;
        b->quote |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\'')))
                    << shift;
        b->slash |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('/')))
                    << shift;
    }
}
#endif

/* The same with wider vectors where the compiler can target them: compiled for those
 * instructions alone, and called only when the processor has them (splitter_init). */
#if defined(LBPE_BLOCK_SSE2) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define LBPE_BLOCK_WIDE 1

/* bytes of x (as signed) in [lo, hi], lo > -128 and hi < 127 */
__attribute__((target("avx2"))) static inline __m256i range32(__m256i x, char lo, char hi) {
    return _mm256_and_si256(_mm256_cmpgt_epi8(x, _mm256_set1_epi8((char)(lo - 1))),
                            _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(hi + 1)), x));
}

/* 32 code points at `at` of 2 or 4 bytes as bytes: ASCII ones as they are, every other one 0x80
 * (the least of it and 0x80, packed; the packs work within each 128-bit half, and the
 * permutation puts the code points back in order). */
__attribute__((target("avx2"))) static inline __m256i narrow32(int kind, const char *at) {
    const __m256i *v = (const __m256i *)at;
    if (kind == 2) {
        __m256i mark = _mm256_set1_epi16(0x80);
        __m256i lo = _mm256_min_epu16(_mm256_loadu_si256(v), mark);
        __m256i hi = _mm256_min_epu16(_mm256_loadu_si256(v + 1), mark);
        return _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xD8);
    }
    __m256i mark = _mm256_set1_epi32(0x80);
    __m256i w0 = _mm256_min_epu32(_mm256_loadu_si256(v), mark);
    __m256i w1 = _mm256_min_epu32(_mm256_loadu_si256(v + 1), mark);
    __m256i w2 = _mm256_min_epu32(_mm256_loadu_si256(v + 2), mark);
    __m256i w3 = _mm256_min_epu32(_mm256_loadu_si256(v + 3), mark);
    __m256i x = _mm256_packus_epi16(_mm256_packus_epi32(w0, w1), _mm256_packus_epi32(w2, w3));
    return _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* The classes of 32 code points as bytes (x), one bit a code point. */
typedef struct {
    uint32_t stop, letter, digit, other, upper, crlf, blank, quote, slash;
} Classes32;

__attribute__((target("avx2"))) static inline Classes32 classify32(__m256i x) {
    Classes32 c;
    /* x's bytes as signed: everything beyond ASCII is negative and fails every range */
    __m256i blank = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(' '));
    __m256i crlf = _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\r')),
                                   _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\n')));
    uint32_t s = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(blank, range32(x, 0x09, 0x0D)));
    c.stop = ~(uint32_t)_mm256_movemask_epi8(x);
    c.letter = (uint32_t)_mm256_movemask_epi8(
        range32(_mm256_or_si256(x, _mm256_set1_epi8(0x20)), 'a', 'z'));
    c.digit = (uint32_t)_mm256_movemask_epi8(range32(x, '0', '9'));
    c.other = c.stop & ~(c.letter | c.digit | s);
    c.upper = (uint32_t)_mm256_movemask_epi8(range32(x, 'A', 'Z'));
    c.crlf = (uint32_t)_mm256_movemask_epi8(crlf);
    c.blank = (uint32_t)_mm256_movemask_epi8(blank);
    c.quote = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\'')));
    c.slash = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('/')));
    return c;
}

/* the bits of a (0-31) and of b (32-63) */
static LBPE_ALWAYS_INLINE uint64_t join32(uint32_t a, uint32_t b) {
    return (uint64_t)a | (uint64_t)b << 32;
}

__attribute__((target("avx2"))) static void classify64_avx2(Block *b, int kind, const char *at) {
    __m256i x0, x1;
    if (kind == 1) {
        x0 = _mm256_loadu_si256((const __m256i *)at);
        x1 = _mm256_loadu_si256((const __m256i *)at + 1);
    } else {
        x0 = narrow32(kind, at);
        x1 = narrow32(kind, at + (size_t)32 * kind);
    }
    _mm256_storeu_si256((__m256i *)b->bytes, x0);
    _mm256_storeu_si256((__m256i *)b->bytes + 1, x1);
    Classes32 lo = classify32(x0), hi = classify32(x1);
    b->stop = join32(lo.stop, hi.stop);
    b->letter = join32(lo.letter, hi.letter);
    b->digit = join32(lo.digit, hi.digit);
    b->other = join32(lo.other, hi.other);
    b->upper = join32(lo.upper, hi.upper);
    b->crlf = join32(lo.crlf, hi.crlf);
    b->blank = join32(lo.blank, hi.blank);
    b->quote = join32(lo.quote, hi.quote);
    b->slash = join32(lo.slash, hi.slash);
}

/* bytes of x in [lo, hi] (unsigned: everything beyond ASCII is 0x80 or more, above hi) */
__attribute__((target("avx512f,avx512bw"))) static inline uint64_t range64(__m512i x, char lo,
                                                                             char hi) {
    return _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8(lo)),
                                  _mm512_set1_epi8((char)(hi - lo + 1)));
}

__attribute__((target("avx512f,avx512bw"))) static void classify64_avx512(Block *b, int kind,
                                                                         const char *at) {
    __m512i x;
    /* wider code points saturate to 0xFF, beyond ASCII as they should be */
    if (kind == 1) x = _mm512_loadu_si512((const void *)at);
    else if (kind == 2)
        x = _mm512_inserti64x4(
            _mm512_castsi256_si512(_mm512_cvtusepi16_epi8(_mm512_loadu_si512((const void *)at))),
            _mm512_cvtusepi16_epi8(_mm512_loadu_si512((const void *)(at + 64))), 1);
    else {
        __m128i q[4];
        for (int j = 0; j < 4; j++)
            q[j] = _mm512_cvtusepi32_epi8(_mm512_loadu_si512((const void *)(at + 64 * j)));
        x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(q[1], q[0])),
                               _mm256_set_m128i(q[3], q[2]), 1);
    }
    _mm512_storeu_si512((void *)b->bytes, x);
    uint64_t ascii = ~_mm512_movepi8_mask(x);
    uint64_t l = range64(_mm512_or_si512(x, _mm512_set1_epi8(0x20)), 'a', 'z');
    uint64_t d = range64(x, '0', '9');
    uint64_t blank = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(' '));
    uint64_t s = blank | range64(x, 0x09, 0x0D);
    b->stop = ascii;
    b->letter = l;
    b->digit = d;
    b->other = ascii & ~(l | d | s);
    b->crlf = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\r')) |
              _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\n'));
    b->blank = blank;
    b->upper = range64(x, 'A', 'Z');
    b->quote = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\''));
    b->slash = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('/'));
}
#endif

/* 64 code points of `kind` bytes at `at` classified into b without wider vectors */
static void classify64_base(Block *b, int kind, const char *at) {
    clear_masks(b);
#if defined(LBPE_BLOCK_SSE2)
    classify64(b, kind, at);
#else
    for (unsigned k = 0; k < 64; k++) classify_one(b, k, read_cp(kind, at, k));
#endif
}

/* The widest classifier this processor runs (BLOCK_SIMD_...), and the one in use: the best
 * unless set lower (for tests; one setting for the whole process, as the processor is). */
static int simd_best = -1, simd_used = -1;

LBPE_FN int block_simd_best(void) {
    if (simd_best < 0) {
        int best = BLOCK_SIMD_BASE;
#if defined(LBPE_BLOCK_WIDE)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2")) best = BLOCK_SIMD_AVX2;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
            best = BLOCK_SIMD_AVX512;
#endif
        simd_best = best;
    }
    return simd_best;
}

static int simd_level(void) { return simd_used < 0 ? block_simd_best() : simd_used; }

LBPE_FN int block_simd(int level) {
    int old = simd_level();
    if (level >= 0) simd_used = level;
    return old;
}

static Classifier classifier(void) {
    int level = simd_level();
#if defined(LBPE_BLOCK_WIDE)
    if (level == BLOCK_SIMD_AVX512) return classify64_avx512;
    if (level == BLOCK_SIMD_AVX2) return classify64_avx2;
#endif
    (void)level;
    return classify64_base;
}

/* b := the block of the text's code points from `base` on (up to 64 of them). */
static LBPE_ALWAYS_INLINE void block_scan(Block *b, Classifier classify, int kind,
                                          const void *data, ptrdiff_t n, ptrdiff_t base) {
    ptrdiff_t left = n - base;
    unsigned len = left < 64 ? (unsigned)left : 64;
    b->base = base;
    b->len = len;
    memset(b->bytes + 64, 0, sizeof(b->bytes) - 64);
    if (len == 64) classify(b, kind, (const char *)data + base * kind);
    else {
        clear_masks(b);
        for (unsigned k = 0; k < len; k++) classify_one(b, k, read_cp(kind, data, base + k));
        memset(b->bytes + len, 0, 64 - len);
    }
    /* the code points that exist; the text's end, when inside the block, is a place to stop */
    b->inside = len == 64 ? ~(uint64_t)0 : ((uint64_t)1 << len) - 1;
    if (len < 64) {
        b->inside |= (uint64_t)1 << len;
        b->stop |= (uint64_t)1 << len;
    }
}

/* The end of the piece at p from the block (p - base <= 32), or -1 where piece_end must say. */
static LBPE_ALWAYS_INLINE ptrdiff_t block_end(const Block *b, const Preset *pr, ptrdiff_t p) {
    unsigned o = (unsigned)(p - b->base);
    uint64_t stop = b->stop >> o; /* where a run may end: an ASCII code point, or the end */
    uint64_t letter = b->letter >> o, other = b->other >> o;
    unsigned k, r;
    /* p is ASCII, and so is p + 1 unless the text ends there */
    if ((stop & 3) != 3) return -1;
    int o200k = pr->letters == 2;
    if (!o200k && bit(b->quote, o)) return -1; /* a contraction may start at p */
    /* the letters, after one [^\r\n\p{L}\p{N}] or none */
    if (letter & 1) k = 0;
    else if ((letter & 2) && !bit(b->crlf | b->digit, o)) k = 1;
    else k = 2;
    if (k < 2) {
        if (!o200k) r = k + ones(letter >> k); /* \p{L}+ */
        else {
            /* [A-Z]*[a-z]+ or [A-Z]+[a-z]*: upper case letters, then lower case ones */
            uint64_t upper = b->upper >> o;
            r = k + ones(upper >> k);
            if (r >= 64) return -1; /* upper case to the block's end */
            r += ones((letter & ~upper) >> r);
            if (bit(b->quote >> o, r)) return -1; /* a contraction may follow */
        }
        return bit(stop, r) ? p + r : -1;
    }
    /* \p{N}{1,3} or \p{N} */
    if (bit(b->digit, o)) {
        if (pr->numbers == 2) return p + 1;
        r = ones(b->digit >> o);
        if (r >= 3) return p + 3;
        return bit(stop, r) ? p + r : -1;
    }
    /* " ?[^\s\p{L}\p{N}]+" then "[\r\n]*" (o200k_base: "[\r\n/]*") */
    if (bit(b->blank, o) && (other & 2)) k = 1;
    else if (other & 1) k = 0;
    else return -1; /* white space */
    r = k + ones(other >> k);
    if (!bit(stop, r)) return -1; /* beyond ASCII (maybe more of the run), or the block's end */
    r += ones((b->crlf | (o200k ? b->slash : 0)) >> o >> r); /* r < 64: bit r of stop is set */
    return bit(b->inside >> o, r) ? p + r : -1;
}

/* The pieces from p on that the block settles at once, for the presets it serves: letter,
 * number and other pieces as cl100k_base's ("[^\r\n\p{L}\p{N}]?\p{L}+", or o200k_base's
 * upper-then-lower letters, "\p{N}{1,3}" or "\p{N}", " ?[^\s\p{L}\p{N}]+[\r\n]*" (o200k_base:
 * "[\r\n/]*"), white space as "\s*[\r\n]+", "\s+(?!\S)" and "\s+"). Bit k of the answer: a
 * piece ends (and the next starts) at p + k; 0 when the block settles nothing. p is a piece's
 * start and p - base <= 32.
 *
 * It looks only at the ASCII code points from p up to the first quote that may start a
 * contraction or code point beyond ASCII (z: contractions and Unicode classes are left to
 * block_end and piece_end). Inside that stretch a piece starts at:
 *   - a letter run's first letter, or the code point before it when that one leads the run
 *     (and, for o200k_base, a capital after a small letter):
 *     white space but CR and LF, or a lone "other" not after a space (after one,
 *     " ?[^\s\p{L}\p{N}]+" takes the space and it, and the letters start their own piece);
 *   - a digit run's first digit and every third after it ("\p{N}{1,3}"), or every digit;
 *   - an "other" run's first code point, or the space before it; the CR and LF right after the
 *     run (and, for o200k_base, '/' among them) are its tail, and what follows the tail starts
 *     a piece;
 *   - a white-space run's first code point (past such a tail). When the run holds a CR or LF,
 *     "\s*[\r\n]+" takes it up to its last one, and the rest is split as a run without;
 *   - in a white-space run without CR or LF: its first code point, and its last when the run
 *     is longer than one and something other than white space follows ("\s+(?!\S)" leaves it).
 * Each rule looks at a code point's neighbours up to the next one, except the white-space runs,
 * whose pieces depend on where the run ends: a run that reaches z is not settled beyond its
 * first code point (is z white space beyond ASCII, or the block's end before a CR?), and
 * cl100k_base's "\s++$" keeps a run that ends the text whole. When the text ends at z, the last
 * piece ends there too. */
static LBPE_ALWAYS_INLINE uint64_t block_starts(const Block *b, const Preset *pr, ptrdiff_t p) {
    unsigned o = (unsigned)(p - b->base);
    /* a quote may start a contraction when a letter, or something not known here, follows it;
     * before anything else it is one more "other". After a space or another "other" (past p)
     * it is inside that code point's piece (" ?[^\s\p{L}\p{N}]+" takes it), so no contraction
     * starts there either. */
    uint64_t contraction = (b->quote & ((b->letter >> 1) | ~(b->stop >> 1))) >> o;
    contraction &= ~(((b->other | b->blank) >> o) << 1);
    uint64_t hard = ~(b->stop >> o) | contraction;
    /* bits o.. of stop past the block's last code point are 0: hard there */
    unsigned z = ones(~hard);
    unsigned end = b->len - o; /* the text's end, when b->len < 64 */
    int at_end = b->len < 64 && z > end;
    if (at_end) z = end;
    if (z < 2) return 0;
    uint64_t in = z == 64 ? ~(uint64_t)0 : ((uint64_t)1 << z) - 1;
    uint64_t letter = (b->letter >> o) & in, digit = (b->digit >> o) & in;
    uint64_t other = (b->other >> o) & in, blank = (b->blank >> o) & in;
    uint64_t nl = (b->crlf >> o) & in;
    uint64_t space = in & ~(letter | digit | other | nl); /* white space but CR and LF */
    /* an "other" run's tail: the CR and LF after it (o200k_base: and '/'), each CR or LF that
     * follows the run filled upwards through them */
    uint64_t tail = 0;
    if (nl) {
        uint64_t tails = pr->letters == 2 ? nl | ((b->slash >> o) & in) : nl;
        tail = nl & (other << 1);
        for (unsigned k = 1; k < 64; k <<= 1) {
            tail |= tails & (tail << k);
            tails &= tails << k;
        }
    }
    /* letters, and the code point that leads them (an "other" after a tail may) */
    uint64_t lone = other & ~tail & ~((other & ~tail) << 1) & ~(blank << 1);
    uint64_t lead = (space | lone) & (letter >> 1);
    uint64_t starts = (letter & ~(letter << 1) & ~(lead << 1)) | lead;
    /* o200k_base: "[A-Z]*[a-z]+" or "[A-Z]+[a-z]*", so a capital after a small letter */
    if (pr->letters == 2) starts |= (b->upper >> o) & in & ((letter & ~(b->upper >> o)) << 1);
    /* digits, in threes from the run's start */
    if (pr->numbers == 2) starts |= digit;
    else {
        uint64_t third = digit & ~(digit << 1);
        while (third) {
            starts |= third;
            third = (third << 3) & digit & (digit << 1) & (digit << 2);
        }
    }
    /* "other" runs, with the space before them */
    uint64_t run = other & ~(other << 1);
    starts |= (run & ~(blank << 1)) | ((run >> 1) & blank);
    /* white space without CR or LF: a run's first code point, and its last when it follows one
     * and is followed by something settled here (not z) */
    starts |= space & ~(space << 1);
    starts |= space & (space << 1) & ~(space >> 1) & (in >> 1);
    if (nl) {
        /* nothing starts inside a tail, and something starts after it */
        starts = (starts & ~tail) | ((tail << 1) & ~tail & in);
        /* each white-space run with a CR or LF in it */
        uint64_t ws = (space | nl) & ~tail, left = nl & ~tail;
        while (left) {
            unsigned i = ones(~left); /* the run's first CR or LF */
            uint64_t before = ~ws & (((uint64_t)1 << i) - 1);
            unsigned s = before ? top(before) + 1 : 0, e = i + ones(ws >> i);
            uint64_t whole = (e == 64 ? ~(uint64_t)0 : ((uint64_t)1 << e) - 1) >> s << s;
            left &= ~whole;
            starts = (starts & ~whole) | ((uint64_t)1 << s);
            /* the run may go on past z; or, for cl100k_base, "\s++$" takes it to the end */
            if (e == z && (!at_end || pr->space == 1)) continue;
            unsigned last = top(nl & whole) + 1; /* "\s*[\r\n]+" ends after the last one */
            if (last < e) starts |= (uint64_t)1 << last;
            if (e - last >= 2 && e < z) starts |= (uint64_t)1 << (e - 1); /* "\s+(?!\S)" */
        }
    }
    starts &= ~(uint64_t)1;
    return at_end ? starts | (uint64_t)1 << z : starts;
}

/* The code points of block b beyond ASCII (a Latin-1 text's) into its classes, by the class
 * table, where the block path models their class as it does ASCII's: \p{L} as letters, \p{N}
 * as digits, White_Space as white space (none of them is CR, LF or ' ') and the rest as
 * "other"; for o200k_base's letters, upper case letters (Lu Lt) also as upper, and its letters
 * of both kinds (Lm Lo, and the marks) not at all. Those left out stay hard, for piece_end. */
static void block_latin1(Block *b, const Splitter *sp) {
    const unsigned char *text = (const unsigned char *)sp->t->data;
    int o200k = sp->pr->letters == 2;
    for (uint64_t left = b->high; left; left &= left - 1) {
        unsigned k = ones(~left);
        unsigned char f = sp->cls[text[b->base + k]];
        if (o200k && ((f & C_M) || ((f & C_U) && (f & C_W)))) continue;
        uint64_t one = (uint64_t)1 << k;
        b->stop |= one;
        if (f & C_L) {
            b->letter |= one;
            if (f & C_U) b->upper |= one;
        } else if (f & C_N) b->digit |= one;
        else if (!(f & C_S)) b->other |= one;
    }
}

LBPE_FN ptrdiff_t splitter_next(Splitter *sp, ptrdiff_t p, const char **ascii) {
    const Text *t = sp->t;
    Block *b = &sp->b;
    *ascii = NULL;
    if (sp->on && read_cp(t->kind, t->data, p) < 0x80 &&
        (p + 1 == t->n || read_cp(t->kind, t->data, p + 1) < 0x80)) {
        if (p - b->base > 32) block_scan(b, sp->classify, t->kind, t->data, t->n, p);
        uint64_t ends = block_starts(b, sp->pr, p);
        if (ends) {
            unsigned k = ones(~ends);
            sp->ends = ends & (ends - 1);
            sp->from = p;
            *ascii = (const char *)b->bytes + (p - b->base);
            return p + k;
        }
        ptrdiff_t q = block_end(b, sp->pr, p);
        if (q >= 0) {
            *ascii = (const char *)b->bytes + (p - b->base);
            return q;
        }
    }
    return next_piece(sp->pr, sp->cls, t, p);
}

LBPE_FN ptrdiff_t splitter_next_latin1(Splitter *sp, ptrdiff_t p, const char **ascii) {
    Block *b = &sp->b;
    *ascii = NULL;
    if (p - b->base > 32) {
        block_scan(b, sp->classify, 1, sp->t->data, sp->t->n, p);
        b->high = b->inside & ~b->stop;
        if (b->high) block_latin1(b, sp);
    }
    uint64_t ends = block_starts(b, sp->pr, p);
    ptrdiff_t q;
    if (ends) {
        unsigned k = ones(~ends);
        sp->ends = ends & (ends - 1);
        sp->from = p;
        q = p + k;
    } else if ((q = block_end(b, sp->pr, p)) < 0)
        return next_piece_latin1(sp->pr, sp->cls, sp->t, p);
    if (!beyond_ascii(b, p, q)) *ascii = (const char *)b->bytes + (p - b->base);
    return q;
}
