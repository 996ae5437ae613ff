/* The compiled core of lbpe's model stage: BPE, LBPE, cuts, the piece caches and the preset
 * pre-tokenisers, in plain C (no CPython header). lbpe/_native.c is the glue that makes a Python
 * extension of it; the host it runs in provides the few functions declared under "host" below
 * (memory, errors, interruption, the fallback for a character without a token).
 *
 *   table.c        every token and every proper prefix of a token, hashed (FNV-1a, so a span's
 *                  hash grows one byte at a time while LBPE walks it) -> id / LBPE id; the
 *                  tokens of 3 to 16 bytes again, keyed by their bytes as words, in compact
 *                  tables that most lookups use; merge pairs; the long tokens LBPE finds by a
 *                  polynomial hash; scratch buffers;
 *   bpe.c          classic BPE of one piece: an array scan for short pieces, a linked list with a
 *                  heap ordered by (priority, position) for long ones (one merge at a time,
 *                  leftmost first among equal priorities), a bucketed sweep for very long ones;
 *   lbpe.c         the paper's loop, as lbpe/model/lbpe.py computes it;
 *   starts.c       every token that starts at a unit of a piece (the other methods' lookups);
 *   greedy.c       longest-prefix and longest-suffix, as lbpe/model/greedy.py computes them;
 *   shortest.c     least-tokens, as lbpe/model/shortest.py computes it;
 *   cuts.c         boundaries no token covers, where a piece falls apart into parts;
 *   cache.c        bounded caches of pieces (UTF-8) -> ids;
 *   encode.c       one piece -> ids (fallbacks, scaffold tokens), through the caches; a text
 *                  pre-tokenised with a preset -> ids;
 *   pretokenize.c  the presets' regular expressions written out as code;
 *   blocks.c       the splitter over a text: pretokenize.c's presets, with ASCII classified
 *                  64 code points at a time into bitmasks for the common pieces;
 *   ranks.c        one line of a .tiktoken rank file (the glue reads whole files with it).
 */
#ifndef LBPE_CORE_H
#define LBPE_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The linkage of the core's functions and data (and of the host's, below). A file compiled on its
 * own gets external names; the glue compiles the whole core inside its one unit and defines
 * LBPE_ONE_UNIT first, which makes them static: the compiler then knows every call there is, so
 * it inlines the calls on the path of every piece (pre-tokeniser, cache, model) as when the code
 * was one file, instead of keeping each as an out-of-line function other units could call. */
#ifdef LBPE_ONE_UNIT
#define LBPE_FN   static
#define LBPE_DATA static
#else
#define LBPE_FN
#define LBPE_DATA extern
#endif

/* For the few functions whose copies per string kind (1, 2, 4 bytes a code point) must each be
 * compiled with the kind a constant: the splitter and the UTF-8 conversion on every piece. */
#if defined(__GNUC__) || defined(__clang__)
#define LBPE_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define LBPE_ALWAYS_INLINE inline
#endif

/* Ask for the cache line at p before it is needed (building the tables, whose loads are random);
 * LBPE_PREFETCH_WRITE when the line will be written. */
#if defined(__GNUC__) || defined(__clang__)
#define LBPE_PREFETCH(p)       __builtin_prefetch(p)
#define LBPE_PREFETCH_WRITE(p) __builtin_prefetch(p, 1)
#else
#define LBPE_PREFETCH(p)       ((void)(p))
#define LBPE_PREFETCH_WRITE(p) ((void)(p))
#endif

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME  1099511628211ULL
#define NONE_PRIO  INT64_MAX
/* pieces of at most this many units take the array scan in classic BPE */
#define SHORT_BPE 32
/* pieces of more units take the bucketed sweep (bpe_bucketed) instead of the heap */
#define LONG_BPE 4096
/* the bucketed sweep hands over to the heap once interrupted sweeps have put back more than
 * 4 n + this many candidates (0: at the first one) */
#define HANDOVER_SLACK 4096
/* the thresholds in force (the host's; tests lower them to run every algorithm on small pieces
 * and to reach the hand-over) */
typedef struct {
    int32_t short_bpe, long_bpe, handover_slack;
} Thresholds;
/* code points: the pre-tokenisers' class table has one byte each */
#define MAX_CP 0x110000
/* A class table (C_L ... per code point) has one entry more, at CLS_INFO: whether its ASCII
 * classes are the usual ones, which the splitter's ASCII blocks assume (set by classes_done). */
#define CLS_INFO    MAX_CP
#define CLS_ENTRIES (MAX_CP + 1)
/* ... when the priorities fit a table of bucket heads this long */
#define MAX_BUCKETS (1 << 24)
/* parts of pieces longer than this (bytes) are not cached */
#define MAX_CACHED_PART 1024
/* LBPE: windows up to this many units are found by walking the token table (in a piece of at
 * most 16 bytes, each looked up whole), longer ones by scanning the gaps (lbpe/model/lbpe.py,
 * WALKED) */
#define WALKED 16
/* the multiplier of the polynomial hash of long windows (odd) */
#define POLY 0x9E3779B97F4A7C15ULL
/* how many steps of a long loop run between two checks for Ctrl-C */
#define SIGNAL_EVERY 65536

/* The inference methods the core runs, by the codes the host passes (lbpe.native.METHOD_CODES);
 * each has its own caches. */
enum { M_BPE, M_LBPE, M_PREFIX, M_SUFFIX, M_FEWEST, N_METHODS };

typedef struct {
    int32_t id;  /* token id, or -1 for a proper prefix that is not a token */
    int32_t lid; /* id LBPE may place (-1: not a token, or a scaffold token) */
} Ids;

typedef struct {
    unsigned char head[8]; /* the first bytes, compared here: most tokens never touch the arena */
    uint32_t off;          /* into the byte arena */
    uint32_t len;
    Ids v;
} Entry;

/* A slot of the token table: the entry's string and ids in one place (32 bytes: one cache miss per
 * lookup). */
typedef struct {
    uint64_t head;  /* the first 8 bytes (byte k at bits 8k), zero padded */
    uint32_t len;   /* 0: an empty slot */
    uint32_t tag;   /* the hash's low 32 bits (the high ones place it) */
    uint32_t off;   /* the string in the arena */
    uint32_t entry; /* its entry */
    Ids v;
} Fast;

/* The tokens of 3 to 16 bytes have tables of their own (mid_id), where a token's bytes are its
 * key, whole, in one or two words: a slot is 16 or 32 bytes, and both tables together are a
 * fraction of the token table's size, small enough to stay in the processor's caches while a
 * text is encoded. A slot of the table of 3 to 8 bytes: */
typedef struct {
    uint64_t word; /* the bytes (byte k at bits 8k), zero padded */
    int32_t id;
    uint32_t len; /* 0: an empty slot */
} Mid;

/* ... and of 9 to 16 bytes */
typedef struct {
    uint64_t word[2];
    int32_t id;
    uint32_t len;
    uint64_t unused; /* two slots a cache line */
} Mid2;

typedef struct {
    uint64_t key; /* (left id << 32) | right id; UINT64_MAX when empty */
    int32_t prio;
    int32_t merged;
} PairSlot;

typedef struct {
    int32_t s, e, id;
} Part; /* units [s, e) with their id (-1: none) */
typedef struct {
    int32_t i, len, id;
} Span; /* an LBPE candidate */
/* a candidate merge: key = (priority, position of its left part), one integer to compare */
typedef struct {
    uint64_t key;
    int32_t e, merged;
} HeapItem;

static inline uint64_t heap_key(int64_t prio, int32_t i) {
    return ((uint64_t)((uint32_t)(int32_t)prio ^ 0x80000000u) << 32) | (uint32_t)i;
}

/* A bounded cache of pieces (keyed by their UTF-8) -> ids, emptied when full. A slot holds a
 * key's first 16 bytes and its first two ids, so a piece of up to 16 bytes and 2 ids (most
 * pieces) is its slot alone; any other piece also has an entry, which keeps its whole key and
 * all its ids in the arenas. A hit on a piece of the first kind reads one 32-byte slot. */
typedef struct {
    uint64_t word[2]; /* the key's first 16 bytes (Key.word) */
    uint16_t len;     /* the key's length in bytes; 0: an empty slot */
    uint16_t count;   /* how many ids */
    int32_t id[2];    /* the first ids */
    uint32_t entry;   /* its entry, if it has one (slot_has_entry) */
} CSlot;
/* A cache key: the UTF-8 s[0:n], its first 16 bytes as two words (zero padded) and its hash. */
typedef struct {
    const char *s;
    size_t n;
    uint64_t word[2];
    uint64_t hash;
} Key;
/* the longest key and the most ids a slot holds: longer pieces are not cached */
#define CACHE_MAX_KEY 65535
#define CACHE_MAX_IDS 65535
typedef struct {
    uint64_t hash;
    uint32_t koff, klen, ioff, icount;
} CEntry;
typedef struct {
    CSlot *slots;
    size_t mask;
    size_t n; /* pieces cached */
    CEntry *entries;
    size_t n_entries, cap;
    char *keys;
    size_t klen, kcap;
    int32_t *ids;
    size_t ilen, icap;
} Cache;
static inline int slot_has_entry(const CSlot *x) { return x->len > 16 || x->count > 2; }

/* A vocabulary's tables, with the scratch buffers and caches of the one call using them. */
#define N_SCRATCH 11
typedef struct ModelS {
    /* token table */
    char *arena;
    size_t arena_len, arena_cap;
    Entry *entries;
    size_t n_entries, cap_entries;
    /* merge pairs (NULL for rank vocabularies) */
    PairSlot *pairs;
    size_t pair_mask;
    int char_units;
    int whole_piece_first;
    /* scaffold: id -> its two parts (-1 when not scaffold); NULL when none */
    int32_t *sc_left, *sc_right;
    ptrdiff_t sc_size;
    /* character units without a token */
    int has_byte_fallback;
    int32_t byte_fallback[256];
    int has_unk;
    int32_t unk;
    int fuse_unk;
    void *fallback;   /* the host's, for lbpe_fallback */
    int32_t max_prio; /* the largest merge priority */
    void *scratch[N_SCRATCH];
    size_t scratch_cap[N_SCRATCH];
    Cache cache[N_METHODS];      /* piece -> ids, per method (M_BPE ...) */
    Cache part_cache[N_METHODS]; /* part of a piece (between cuts) -> ids, per method */
    const struct ModelS *parent; /* a worker's copy: the model whose caches it may read */
    uint64_t *witness;           /* (end, start) fragment pairs inside tokens */
    size_t witness_mask, n_witness;
    int cuts; /* whether pieces fall apart at cuts (cuts.c) */
    /* LBPE tokens longer than WALKED units, by the polynomial hash of their bytes */
    uint32_t *long_slots; /* entry + 1; 0 = empty */
    size_t long_mask;
    uint64_t *long_hash;   /* the hash of each slot's token */
    int32_t *long_lengths; /* their lengths in units, longest first */
    int32_t n_long_lengths;
    uint64_t *poly_pow; /* POLY^k for k <= the longest such token's bytes */
    uint32_t poly_max;
    int32_t reach[256]; /* first byte -> the longest such token starting with it */
    int32_t *short_ids; /* the token id (-1: none) of each string of 1 byte, then of 2 bytes */
    /* one bit per hash of every string in the table (NULL while it is built): most lookups of a
     * string that is not there end in this small table, without touching the big one */
    uint64_t *filter;
    uint64_t filter_shift;    /* bit = (h * POLY) >> filter_shift */
    uint64_t *witness_filter; /* the same for the witnesses (cuts.c) */
    uint64_t witness_shift;
    /* the witnesses not of two whole characters, by the last byte of their first fragment and
     * the first byte of their second: bit a << 8 | b (NULL: there are none) */
    uint64_t *part_ends;
    /* the tokens of 3 to 8 and of 9 to 16 bytes by their words (mid: NULL when there are none,
     * and token_id asks the token table) ... */
    Mid *mid;
    Mid2 *mid2;
    size_t n_mid, n_mid2;
    uint64_t *mid_filter; /* ... with one filter of their own */
    uint64_t mid_shift;
    /* the lengths of the tokens of 3 bytes or more that start with each two bytes a, b: bit
     * length_bit(len) of lengths2[a << 8 | b] (NULL with the mid tables) */
    uint16_t *lengths2;
    uint64_t *tail_filter; /* the tokens of more than 16 bytes, by their first 16 bytes and their
                            * length (mid_hash): NULL when there are none */
    uint64_t tail_shift;
    void *mid_block, *mid2_block; /* ... aligned to 64 bytes in these blocks */
    Fast *fast; /* the token table: a slot for every entry (NULL before Model init) ... */
    size_t n_fast;
    void *fast_block;             /* ... aligned to 64 bytes in this block */
    const Thresholds *thresholds; /* the host's, which outlives its models */
    int tables_read; /* mid, mid2, mid_filter read through (or judged not worth it) since the
                      * caches were emptied */
} Model;

typedef struct {
    int32_t *ids;
    size_t len, cap;
} IdBuf;

/* ---- host: what the program the core runs in provides (lbpe/_native.c: CPython's) */

LBPE_FN void *lbpe_malloc(size_t bytes);
LBPE_FN void *lbpe_calloc(size_t count, size_t size);
LBPE_FN void *lbpe_realloc(void *p, size_t bytes);
LBPE_FN void lbpe_free(void *p);
enum { LBPE_OVERFLOW, LBPE_RUNTIME };
/* A failure: no memory, or an error of that kind with that message. */
LBPE_FN void lbpe_no_memory(void);
/* A hint that a large table is read at random: the host may back it with huge pages. */
LBPE_FN void lbpe_advise_random(void *p, size_t bytes);
/* Zeroed memory for a table read at random (NULL: no memory, not reported): from 2 MB up, where
 * the host has huge pages, mapped on its own at a huge page's start and advised to use them, so
 * one TLB entry covers 2 MB of it, not 4 KB. Given back with lbpe_free_table and its size. */
LBPE_FN void *lbpe_calloc_table(size_t bytes);
LBPE_FN void lbpe_free_table(void *p, size_t bytes);
/* The memory lbpe_calloc_table(bytes) holds (a mapping's whole huge pages). */
LBPE_FN size_t lbpe_table_bytes(size_t bytes);
LBPE_FN void lbpe_error(int kind, const char *msg);
/* -1 (the error reported) when the call must stop: Ctrl-C, or the time budget spent; else 0. */
LBPE_FN int lbpe_interrupted(void);
/* A character (UTF-8 s[0:n]) that has no token and no byte fallback or unknown token: the host
 * reports the error naming it (with `fallback`, Model.fallback) and returns -1. */
LBPE_FN int lbpe_fallback(void *fallback, const char *s, size_t n);

/* ---- table.c */
LBPE_FN void *scratch(Model *m, int slot, size_t bytes);
/* Room in the token table for `count` strings; 0, or -1 (reported). */
LBPE_FN int table_reserve(Model *m, size_t count);
/* A token: its bytes (n >= 1) and id. */
typedef struct {
    const char *s;
    size_t n;
    int32_t id;
} TokenBytes;
/* Every token and every proper prefix of one into the token table, with their ids (-1: a
 * prefix that is no token; a scaffold token's LBPE id -1, by m->sc_left, which is set first).
 * The tokens are distinct. 0, or -1 (reported). */
LBPE_FN int table_add_tokens(Model *m, const TokenBytes *tokens, size_t count);
LBPE_FN int pair_put(Model *m, int32_t a, int32_t b, int32_t prio, int32_t merged);
LBPE_FN int build_long_tokens(Model *m);
/* Model.short_ids, Model.filter and the tables of tokens of 3 to 16 bytes (Model.mid ...), from
 * the token table (once it is complete). */
LBPE_FN int build_short_ids(Model *m);
LBPE_FN int build_filter(Model *m);
LBPE_FN int build_mid(Model *m);
/* A filter of `count` keys: (*bits, *shift) for filter_has; -1 on no memory. */
LBPE_FN int new_filter(size_t count, uint64_t **bits, uint64_t *shift);
/* Frees what a model owns (a worker's copy: only its own buffers, model_free_own). */
LBPE_FN void model_free(Model *m);
LBPE_FN void model_free_own(Model *m);

/* ---- bpe.c, lbpe.c: one piece of n units (ub: their byte offsets, uid: their ids) -> parts */
LBPE_FN ptrdiff_t bpe_short(Model *m, const char *s, const int32_t *ub, int32_t n,
                            const int32_t *uid, Part *out);
/* A piece of 2 to SMALL_PIECE bytes on a rank vocabulary with the tables of tokens of 3 to 16
 * bytes (byte units, ub[k] = k), as bpe_short would split it. */
#define SMALL_PIECE 32
LBPE_FN ptrdiff_t bpe_small(const Model *m, const char *s, int32_t n, const int32_t *uid,
                            Part *out);
LBPE_FN ptrdiff_t bpe_long(Model *m, const char *s, const int32_t *ub, int32_t n,
                           const int32_t *uid, Part *out);
LBPE_FN ptrdiff_t bpe_bucketed(Model *m, const char *s, const int32_t *ub, int32_t n,
                               const int32_t *uid, Part *out);
LBPE_FN ptrdiff_t lbpe(Model *m, const char *s, const int32_t *ub, int32_t n, const int32_t *uid,
                       Part *out);
/* LBPE of a piece of 2 to SMALL_PIECE bytes (byte units) where every token may be placed (no
 * scaffold tokens), with the tables of tokens of 3 to 16 bytes, as lbpe would split it. */
LBPE_FN ptrdiff_t lbpe_small(const Model *m, const char *s, int32_t n, const int32_t *uid,
                             Part *out);

/* ---- starts.c: the LBPE tokens of two units or more that start at a unit of one piece */
typedef struct {
    const uint64_t *H; /* the polynomial hash of each byte prefix (NULL: no long token fits) */
    int32_t *ends;     /* starts_at's answer: where each token ends (ascending) ... */
    int32_t *ids;      /* ... and its id; room for WALKED + n_long_lengths each */
} Starts;
LBPE_FN int starts_begin(Model *m, const char *s, const int32_t *ub, int32_t n, Starts *st);
LBPE_FN int32_t starts_at(const Model *m, const char *s, const int32_t *ub, int32_t n, int32_t i,
                          const Starts *st);

/* ---- greedy.c, shortest.c: one piece -> parts, as bpe.c and lbpe.c */
LBPE_FN ptrdiff_t longest_prefix(Model *m, const char *s, const int32_t *ub, int32_t n,
                                 const int32_t *uid, Part *out);
LBPE_FN ptrdiff_t longest_suffix(Model *m, const char *s, const int32_t *ub, int32_t n,
                                 const int32_t *uid, Part *out);
LBPE_FN ptrdiff_t least_tokens(Model *m, const char *s, const int32_t *ub, int32_t n,
                               const int32_t *uid, Part *out);

/* ---- cache.c */
LBPE_FN int grow(void **p, size_t *cap, size_t need, size_t item);
LBPE_FN int idbuf_push(IdBuf *b, int32_t id);
LBPE_FN int append_ids(IdBuf *out, const int32_t *ids, size_t count);
LBPE_FN void cache_free(Cache *c);
LBPE_FN void cache_clear(Cache *c);
LBPE_FN int cache_add(Cache *c, const Key *k, const int32_t *ids, size_t count);
/* cache_add for a cache of at most `limit` pieces: emptied first when it holds that many, and
 * nothing kept when limit <= 0. 0, or -1 on no memory. */
static inline int cache_keep(Cache *c, const Key *k, const int32_t *ids, size_t count,
                             ptrdiff_t limit) {
    if ((ptrdiff_t)c->n >= limit) cache_clear(c);
    return limit > 0 ? cache_add(c, k, ids, count) : 0;
}
LBPE_FN int cache_reserve(Cache *c, size_t pieces);
/* The pieces an empty cache makes room for ahead of a text of that many code points (0: none). */
LBPE_FN size_t pieces_expected(ptrdiff_t code_points, ptrdiff_t limit);
/* The bytes a cache holds (slots, entries, keys, ids). */
LBPE_FN size_t cache_bytes(const Cache *c);
LBPE_FN int merge_cache(Cache *into, const Cache *from, ptrdiff_t limit);
/* into takes what from holds, as it is (into's own freed first); from is left empty. */
LBPE_FN void cache_move(Cache *into, Cache *from);

/* ---- cuts.c */
LBPE_FN int build_witnesses(Model *m);
LBPE_FN int by_parts(Model *m, const char *s, size_t n, int method, ptrdiff_t limit, IdBuf *out);

/* ---- pretokenize.c */
#define C_L 1  /* \p{L} */
#define C_N 2  /* \p{N} */
#define C_U 4  /* Lu Lt Lm Lo M: o200k's "upper" letters */
#define C_W 8  /* Ll Lm Lo M: o200k's "lower" letters */
#define C_S 16 /* White_Space */
#define C_M   32  /* \p{M} */
#define C_PS  64  /* \p{P} or \p{S} */
#define C_CJK 128 /* DeepSeek-V3's CJK ranges: U+4E00..U+9FA5, U+3040..U+309F, U+30A0..U+30FF */
/* sequence: 0 for one regex's pieces, SEQ_DEEPSEEK_V3 for DeepSeek-V3's Sequence of Splits
 * (the other fields then say nothing) */
enum { SEQ_NONE, SEQ_DEEPSEEK_V3 };
enum { CONTR_NONE, CONTR_CASE, CONTR_ANY_CASE };
typedef struct {
    int contractions, letters, numbers, other_tail, space, sequence;
} Preset;
#define N_PRESETS 7
LBPE_DATA const Preset PRESETS[N_PRESETS];
/* A text as CPython stores it: n code points of `kind` bytes each (1, 2 or 4) at data. */
typedef struct {
    int kind;
    const void *data;
    ptrdiff_t n;
    int ascii;
} Text;
/* The end of the piece that starts at p (p < t->n). */
LBPE_FN ptrdiff_t next_piece(const Preset *pr, const unsigned char *cls, const Text *t,
                             ptrdiff_t p);
/* The same for a text of kind 1: splitter_next_latin1 calls this one, splitter_next the other
 * (one caller each, which inlines it). */
LBPE_FN ptrdiff_t next_piece_latin1(const Preset *pr, const unsigned char *cls, const Text *t,
                                    ptrdiff_t p);

/* ---- blocks.c */
/* Up to 64 code points of a text from `base` on, classified: bit k of each mask is about code
 * point base + k. The vectors classify ASCII; in a text of Latin-1 (code points up to U+00FF,
 * one byte each: the letters of most European languages) splitter_next_latin1 adds the rest by
 * the host's class table. Otherwise nothing beyond ASCII is in any class but `inside` (and
 * `high`). */
typedef struct {
    ptrdiff_t base;
    uint64_t letter, digit, other;        /* [A-Za-z], [0-9], the rest of ASCII but \s */
    uint64_t upper;                       /* [A-Z] */
    uint64_t crlf, blank, quote, slash;   /* [\r\n], ' ', '\'', '/' */
    uint64_t inside;                      /* code points of the text, and the text's end */
    uint64_t stop;                        /* classified (ASCII, and in a Latin-1 text the
                                           * code points of a class the block path models),
                                           * and the text's end */
    unsigned len;                         /* how many code points (64: the text goes on) */
    unsigned char bytes[80];              /* as bytes (0x80 or more: not ASCII), 0 after */
    uint64_t high; /* code points beyond ASCII (set by splitter_next_latin1 alone) */
} Block;
/* What fills a block's bitmasks and bytes from 64 code points of `kind` bytes at `at`. */
typedef void (*Classifier)(Block *b, int kind, const char *at);
/* A text being split with a preset (blocks.c). */
typedef struct {
    const Preset *pr;
    const unsigned char *cls;
    const Text *t;
    int on;     /* the block path serves this preset */
    int latin1; /* ... and classifies beyond ASCII: the text is Latin-1, not all ASCII */
    Classifier classify;
    Block b;
    /* pieces the block settled and not yet returned: bit k, an end at `from` + k */
    uint64_t ends;
    ptrdiff_t from;
} Splitter;
/* The classifiers of blocks: SSE2 where the compiler has it (else a loop), AVX2, AVX-512BW. */
enum { BLOCK_SIMD_BASE, BLOCK_SIMD_AVX2, BLOCK_SIMD_AVX512 };
/* The widest this processor runs. */
LBPE_FN int block_simd_best(void);
/* The one splitters use from now on set to `level` (no more than the best; below 0: unchanged);
 * the old one returned. */
LBPE_FN int block_simd(int level);
/* Fill in cls[CLS_INFO] once the class table cls is made. */
LBPE_FN void classes_done(unsigned char *cls);
LBPE_FN void splitter_init(Splitter *sp, const Preset *pr, const unsigned char *cls,
                           const Text *t);
/* The end of the piece at p (p < t->n) when the block holds no settled piece (sp->ends == 0):
 * callers use splitter_step. The second where sp->latin1. */
LBPE_FN ptrdiff_t splitter_next(Splitter *sp, ptrdiff_t p, const char **ascii);
LBPE_FN ptrdiff_t splitter_next_latin1(Splitter *sp, ptrdiff_t p, const char **ascii);
/* Whether text[p:q] (inside block b) has a code point beyond ASCII: b->high, where
 * splitter_next_latin1 set it. */
static LBPE_ALWAYS_INLINE int beyond_ascii(const Block *b, ptrdiff_t p, ptrdiff_t q) {
    uint64_t high = b->high >> (p - b->base);
    if (q - p < 64) high &= ((uint64_t)1 << (q - p)) - 1;
    return high != 0;
}
/* The end of the piece at p (p < t->n). *ascii is its bytes (all ASCII, with at least 16 bytes
 * readable after the piece) when the block path found it, NULL otherwise. A piece the block
 * already settled is handed out here, without a call. `latin1`: 0 where the caller knows the
 * text is not Latin-1 (a constant there: nothing of sp->latin1's is compiled in). */
static LBPE_ALWAYS_INLINE ptrdiff_t splitter_step(Splitter *sp, ptrdiff_t p, const char **ascii,
                                                  int latin1) {
    uint64_t ends = sp->ends;
    if (!ends)
        return latin1 && sp->latin1 ? splitter_next_latin1(sp, p, ascii)
                                    : splitter_next(sp, p, ascii);
#if defined(__GNUC__) || defined(__clang__)
    unsigned k = (unsigned)__builtin_ctzll(ends);
#else
    unsigned k = 0;
    while (!((ends >> k) & 1)) k++;
#endif
    sp->ends = ends & (ends - 1);
    ptrdiff_t q = sp->from + k;
    *ascii = latin1 && sp->latin1 && beyond_ascii(&sp->b, p, q)
                 ? NULL
                 : (const char *)sp->b.bytes + (p - sp->b.base);
    return q;
}

/* Code point i of a text of that kind. */
static inline uint32_t read_cp(int kind, const void *data, ptrdiff_t i) {
    return kind == 1   ? ((const uint8_t *)data)[i]
           : kind == 2 ? ((const uint16_t *)data)[i]
                       : ((const uint32_t *)data)[i];
}

/* ---- encode.c */
LBPE_FN int encode_piece(Model *m, const char *s, ptrdiff_t len, int method, int whole, IdBuf *b);
LBPE_FN int cached_piece(Model *m, const char *s, size_t n, ptrdiff_t chars, int method,
                         ptrdiff_t limit, ptrdiff_t cached_chars, IdBuf *out);
/* encode_text: text pre-tokenised with a preset, the ids of every piece appended to b (u8: a
 * buffer for the UTF-8 of non-ASCII pieces, kept across calls). 0; -1 on an error (reported);
 * -2 at a lone surrogate, in the piece bad[0]:bad[1] (nothing reported). */
LBPE_FN int encode_text(Model *m, const Text *t, const Preset *pr, const unsigned char *cls,
                        int method, ptrdiff_t limit, ptrdiff_t cached_chars, IdBuf *b,
                        unsigned char **u8, size_t *u8cap, ptrdiff_t bad[2]);

/* ---- inline: the lookups every stage makes */

#define CONT(b) (((b) & 0xC0) == 0x80)

static inline uint64_t fnv(const unsigned char *s, size_t n, uint64_t h) {
    for (size_t k = 0; k < n; k++) {
        h ^= s[k];
        h *= FNV_PRIME;
    }
    return h;
}

/* Whether a[0:n] == b[0:n]: the short strings of pieces and tokens compared in place, a word at
 * a time, where a call to memcmp would cost more than the comparison. */
static inline int same_bytes(const char *a, const char *b, size_t n) {
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
    }
    for (; n; a++, b++, n--)
        if (*a != *b) return 0;
    return 1;
}

/* The bit of hash h in a filter of 2^(64 - shift) bits (new_filter). */
static inline uint64_t filter_bit(uint64_t shift, uint64_t h) { return (h * POLY) >> shift; }

/* Whether a filter (new_filter) has the bit of hash h: 0 means that key was never added. */
static inline int filter_has(const uint64_t *bits, uint64_t shift, uint64_t h) {
    uint64_t b = filter_bit(shift, h);
    return (int)((bits[b >> 6] >> (b & 63)) & 1);
}

static inline void filter_add(uint64_t *bits, uint64_t shift, uint64_t h) {
    uint64_t b = filter_bit(shift, h);
    bits[b >> 6] |= 1ULL << (b & 63);
}

/* The first 8 bytes of s[0:n] (byte k at bits 8k), zero padded. Nothing past u[n - 1] is read:
 * a short string is two loads that overlap in the middle (the bytes they share are the same, so
 * their OR is exact), not a loop over its bytes. */
static inline uint64_t head_word(const unsigned char *u, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 8) {
        uint64_t w;
        memcpy(&w, u, 8);
        return w;
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, u, 4);
        memcpy(&b, u + n - 4, 4);
        return (uint64_t)a | (uint64_t)b << (8 * (n - 4));
    }
    if (n >= 2) {
        uint16_t a, b;
        memcpy(&a, u, 2);
        memcpy(&b, u + n - 2, 2);
        return (uint64_t)a | (uint64_t)b << (8 * (n - 2));
    }
    return n ? u[0] : 0;
#else
    uint64_t w = 0;
    for (size_t k = 0; k < n && k < 8; k++) w |= (uint64_t)u[k] << (8 * k);
    return w;
#endif
}

/* The first slot to probe for hash h in a table of `size` (the hash mixed: the high bits of FNV
 * hardly depend on the last bytes). */
static inline size_t fast_slot(uint64_t h, size_t size) {
    return (size_t)((((h * 0x9E3779B97F4A7C15ULL) >> 32) * (uint64_t)size) >> 32);
}

/* The slot of the string s[0:n] (h: its FNV hash) in the token table, or NULL. */
static inline const Fast *fast_at(const Model *m, const char *s, size_t n, uint64_t h) {
    uint64_t head = head_word((const unsigned char *)s, n);
    uint32_t tag = (uint32_t)h;
    size_t k = (size_t)fast_slot(h, m->n_fast);
    for (;;) {
        const Fast *f = &m->fast[k];
        if (f->len == 0) return NULL;
        if (f->tag == tag && f->len == n && f->head == head &&
            (n <= 8 || same_bytes(m->arena + f->off + 8, s + 8, n - 8)))
            return f;
        if (++k == m->n_fast) k = 0;
    }
}

static inline const Ids *fast_find(const Model *m, const char *s, size_t n, uint64_t h) {
    const Fast *f = fast_at(m, s, n, h);
    return f ? &f->v : NULL;
}

/* The token / prefix s[0:n] (h: its FNV hash), or NULL. */
static inline const Ids *lookup_h(const Model *m, const char *s, size_t n, uint64_t h) {
    if (m->filter && !filter_has(m->filter, m->filter_shift, h)) return NULL;
    return fast_find(m, s, n, h);
}

static inline const Ids *lookup(const Model *m, const char *s, size_t n) {
    return lookup_h(m, s, n, fnv((const unsigned char *)s, n, FNV_OFFSET));
}

/* The hash of the string of n bytes (3 <= n <= 16) whose words (head_word of its first 8 bytes,
 * and of the rest) are w0 and w1, in the tables of tokens of 3 to 16 bytes. */
static inline uint64_t mid_hash(uint64_t w0, uint64_t w1, size_t n) {
    uint64_t h = (w0 ^ ((uint64_t)n << 59)) * 0xff51afd7ed558ccdULL;
    return n > 8 ? (h ^ (h >> 29) ^ w1) * 0xc4ceb9fe1a85ec53ULL : h;
}

/* The first slot to probe for hash h in a table of `size` slots. */
static inline size_t mid_slot(uint64_t h, size_t size) {
    return (size_t)(((h >> 32) * (uint64_t)size) >> 32);
}

/* The lines that mid_id of the string u[0:n] (3 <= n <= 16) reads, asked for ahead of it. */
static inline void mid_prefetch(const Model *m, const unsigned char *u, size_t n) {
    uint64_t h = mid_hash(head_word(u, n), n > 8 ? head_word(u + 8, n - 8) : 0, n);
    LBPE_PREFETCH(&m->mid_filter[filter_bit(m->mid_shift, h) >> 6]);
    if (n <= 8) LBPE_PREFETCH(&m->mid[mid_slot(h, m->n_mid)]);
    else LBPE_PREFETCH(&m->mid2[mid_slot(h, m->n_mid2)]);
}

/* The id of the token of n bytes (3 <= n <= 16) whose words are w0 and w1, -1 when it is none. */
static inline int32_t mid_id(const Model *m, uint64_t w0, uint64_t w1, size_t n) {
    uint64_t h = mid_hash(w0, w1, n);
    if (n <= 8) {
        size_t k = mid_slot(h, m->n_mid);
        LBPE_PREFETCH(&m->mid[k]); /* its line and the filter's are read at once, not in turn */
        if (!filter_has(m->mid_filter, m->mid_shift, h)) return -1;
        for (;;) {
            const Mid *x = &m->mid[k];
            if (x->word == w0 && x->len == n) return x->id;
            if (x->len == 0) return -1;
            if (++k == m->n_mid) k = 0;
        }
    }
    size_t k = mid_slot(h, m->n_mid2);
    LBPE_PREFETCH(&m->mid2[k]);
    if (!filter_has(m->mid_filter, m->mid_shift, h)) return -1;
    for (;;) {
        const Mid2 *x = &m->mid2[k];
        if (x->word[0] == w0 && x->word[1] == w1 && x->len == n) return x->id;
        if (x->len == 0) return -1;
        if (++k == m->n_mid2) k = 0;
    }
}

/* A length's bit in lengths2: 3 to 16 bytes one bit each, every longer one bit 15. */
static inline uint16_t length_bit(size_t len) {
    return (uint16_t)(1u << (len <= 16 ? len - 3 : 15));
}

/* The id of the span u[i:e] (3 <= e - i <= 16) of a piece copied to u and zero padded to 16
 * bytes past its end, -1 when it is no token: its words are two loads, not head_word's. */
static LBPE_ALWAYS_INLINE int32_t span_id(const Model *m, const unsigned char *u, int32_t i,
                                          int32_t e) {
    size_t len = (size_t)(e - i);
    uint64_t w0, w1 = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&w0, u + i, 8);
    if (len < 8) w0 &= ((uint64_t)1 << (8 * len)) - 1;
    else if (len > 8) {
        memcpy(&w1, u + i + 8, 8);
        if (len < 16) w1 &= ((uint64_t)1 << (8 * (len - 8))) - 1;
    }
#else
    w0 = head_word(u + i, len);
    if (len > 8) w1 = head_word(u + i + 8, len - 8);
#endif
    return mid_id(m, w0, w1, len);
}

/* The id of the span u[i:e] (e - i > 16) of a piece copied to u and zero padded to 16 bytes
 * past its end, -1 when it is no token: most spans are answered by the filter of the tokens of
 * more than 16 bytes, small enough to stay in the processor's caches, without hashing them. */
static inline int32_t long_span_id(const Model *m, const unsigned char *u, int32_t i, int32_t e) {
    size_t len = (size_t)(e - i);
    uint64_t h = mid_hash(head_word(u + i, 8), head_word(u + i + 8, 8), len);
    if (!m->tail_filter || !filter_has(m->tail_filter, m->tail_shift, h)) return -1;
    const Ids *x = lookup(m, (const char *)u + i, len);
    return x ? x->id : -1;
}

/* The id of the token of the two bytes u[0], u[1], -1 when it is none. */
static inline int32_t two_byte_id(const Model *m, const unsigned char *u) {
    return m->short_ids[256 + ((size_t)u[0] << 8 | u[1])];
}

/* The id of the token s[0:n] (n >= 1), -1 when it is none: one or two bytes from short_ids,
 * up to 16 from the tables of those. */
static inline int32_t token_id(const Model *m, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    if (n == 1) return m->short_ids[u[0]];
    if (n == 2) return two_byte_id(m, u);
    if (n >= 3 && n <= 16 && m->mid) /* (the empty string is no token either) */
        return mid_id(m, head_word(u, n), n > 8 ? head_word(u + 8, n - 8) : 0, n);
    const Ids *x = lookup(m, s, n);
    return x ? x->id : -1;
}

static inline uint64_t pair_key(int32_t a, int32_t b) {
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}
static inline size_t pair_hash(uint64_t key) {
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17);
}

static inline const PairSlot *pair_find(const Model *m, int32_t a, int32_t b) {
    uint64_t key = pair_key(a, b);
    size_t k = pair_hash(key) & m->pair_mask;
    for (;;) {
        const PairSlot *p = &m->pairs[k];
        if (p->key == key) return p;
        if (p->key == UINT64_MAX) return NULL;
        k = (k + 1) & m->pair_mask;
    }
}

static inline size_t mix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k;
}

/* The LBPE id of the long token whose bytes are s[0:len] (h: their polynomial hash), or -1. */
static inline int32_t long_find(const Model *m, const char *s, uint32_t len, uint64_t h) {
    size_t k = mix64(h) & m->long_mask;
    for (;;) {
        uint32_t slot = m->long_slots[k];
        if (!slot) return -1;
        if (m->long_hash[k] == h) {
            const Entry *e = &m->entries[slot - 1];
            if (e->len == len && memcmp(m->arena + e->off, s, len) == 0) return e->v.lid;
        }
        k = (k + 1) & m->long_mask;
    }
}

/* head_word(s, n), reading the 8 bytes at s in one load when `room` (>= n) bytes may be read
 * there: the cache's keys are pieces of a text, most of them with more of the text after them. */
static inline uint64_t head_in(const char *s, size_t n, size_t room) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (room >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        return n >= 8 ? w : w & ((1ULL << (8 * n)) - 1);
    }
#else
    (void)room;
#endif
    return head_word((const unsigned char *)s, n);
}

/* The hash of the words of s[0:n] past its first 16 bytes, folded into h. */
static uint64_t key_tail_hash(uint64_t h, const char *s, size_t n) {
    for (size_t at = 16; at < n; at += 8) {
        uint64_t w = head_word((const unsigned char *)s + at, n - at);
        h = (h ^ (h >> 29) ^ w) * 0xc4ceb9fe1a85ec53ULL;
    }
    return h;
}

/* A key's hash before its bytes past the first 16 are mixed in, from its first two words. */
static LBPE_ALWAYS_INLINE uint64_t key_head_hash(uint64_t w0, uint64_t w1, size_t n) {
    uint64_t h = (w0 ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL)) * 0xff51afd7ed558ccdULL;
    return n > 8 ? (h ^ (h >> 29) ^ w1) * 0xc4ceb9fe1a85ec53ULL : h;
}

/* The cache key of s[0:n] (`room` >= n bytes readable at s). Its hash mixes a word at a time
 * (FNV's byte at a time would cost more than the lookup it places). */
static LBPE_ALWAYS_INLINE Key key_of(const char *s, size_t n, size_t room) {
    Key k;
    k.s = s;
    k.n = n;
    k.word[0] = head_in(s, n, room);
    k.word[1] = n > 8 ? head_in(s + 8, n - 8, room - 8) : 0;
    uint64_t h = key_head_hash(k.word[0], k.word[1], n);
    if (n > 16) h = key_tail_hash(h, s, n);
    k.hash = h ^ (h >> 32);
    return k;
}

/* The slot of key k in cache c, or NULL. */
static inline const CSlot *cache_slot(const Cache *c, const Key *k) {
    if (!c->slots) return NULL;
    size_t at = (size_t)k->hash & c->mask;
    for (;;) {
        const CSlot *x = &c->slots[at];
        if (x->len == 0) return NULL;
        if (x->len == k->n && x->word[0] == k->word[0] && x->word[1] == k->word[1] &&
            (k->n <= 16 ||
             same_bytes(c->keys + c->entries[x->entry].koff + 16, k->s + 16, k->n - 16)))
            return x;
        at = (at + 1) & c->mask;
    }
}

/* Append the ids of cache c's slot x to out. 0, or -1 on no memory (reported). */
static inline int slot_ids(const Cache *c, const CSlot *x, IdBuf *out) {
    if (x->count > 2) return append_ids(out, c->ids + c->entries[x->entry].ioff, x->count);
    if (out->cap - out->len < 2 &&
        grow((void **)&out->ids, &out->cap, out->len + 2, sizeof(int32_t)) < 0)
        return -1;
    out->ids[out->len] = x->id[0];
    out->ids[out->len + 1] = x->id[1];
    out->len += x->count;
    return 0;
}

#endif
