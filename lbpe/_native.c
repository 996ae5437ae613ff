/* lbpe._native: the compiled fast path of the model stage (CPython only), the glue between
 * CPython and the core in csrc/ (core.h says what lives there).
 *
 * The pure-Python modules lbpe/model/bpe.py and lbpe/model/lbpe.py are the reference; the core
 * computes the same tokens for the same pieces, faster, and the test suite checks that the two
 * agree (tests/test_native.py). What lives here: the module (multi-phase init, its state: the
 * presets' character classes and the BPE thresholds), the Model type (a heap type over the
 * core's tables), argument parsing, ids as shared int objects, pack/unpack, and encode_batch's
 * threads; and the host functions the core calls (core.h): memory through PyMem_Raw, errors as
 * exceptions, Ctrl-C and time budgets, the Python fallback for a character without a token.
 *
 *   Model.encode_text    text -> ids: split with a preset, each piece through a bounded cache
 *                        (piece UTF-8 -> ids) or the model, ids returned as shared int objects;
 *   Model.encode_pieces  the same for pieces another pre-tokeniser made;
 *   Model.encode_batch   encode_text of many texts, on threads that run without the GIL.
 *
 * Nothing here keeps a pointer into a Python object across a call into Python, and every loop
 * that can run long checks for signals (Ctrl-C) now and then.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <pthread.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define LBPE_ONE_UNIT
#include "core.h"

/* The core is compiled in this unit (a unity build), as when it was one file: its calls on the
 * path of every piece (pre-tokeniser, cache, model) stay open to inlining, which separate units
 * would close. Each core file still compiles on its own (tests/test_native.py). */
#include "blocks.c"
#include "bpe.c"
#include "cache.c"
#include "cuts.c"
#include "encode.c"
#include "greedy.c"
#include "lbpe.c"
#include "pretokenize.c"
#include "ranks.c"
#include "shortest.c"
#include "starts.c"
#include "table.c"

/* The Python object: the core's tables, and what only Python needs. */
typedef struct {
    PyObject_HEAD
    Model core;
    pthread_mutex_t lock; /* held by the call using the caches and scratch (a mutex, not a
                           * PyThread lock: that one reads the clock even when not waiting) */
    int has_lock;         /* lock was initialised */
    unsigned long owner;  /* the thread that holds it (0: none) */
    PyObject *fallback;   /* callable(char) -> list[int] */
    PyObject **longs;     /* shared ints of ids 0..n_longs-1 (NULL: not made yet) */
    Py_ssize_t n_longs;
    int ready; /* Model.__init__ finished (a failed one leaves tables half built) */
} NativeModel;

/* A table of classes; the module keeps every table it made until it is freed, since threads of a
 * running encode_batch may still read one that set_classes() replaced. */
typedef struct ClassTable {
    struct ClassTable *prev;
    unsigned char cls[CLS_ENTRIES];
} ClassTable;

/* What the module keeps (one per interpreter that imports it). */
typedef struct {
    PyTypeObject *model_type;
    ClassTable *classes; /* the presets' classes (NULL until set_classes), older tables behind */
    Thresholds thresholds;
    PyObject *option_names[5]; /* OPTION_NAMES, interned */
} State;

/* The keyword options of encode_text and encode_pieces, in EncodeOptions' order. */
#define OPTION_NAMES {"method", "limit", "cached_chars", "seconds", "buffer"}

static State *module_state(PyObject *mod) { return (State *)PyModule_GetState(mod); }
static State *model_state(NativeModel *self) {
    return (State *)PyType_GetModuleState(Py_TYPE(self));
}

/* The presets' classes, or NULL with RuntimeError when set_classes() was not called. */
static const unsigned char *classes_of(const State *st) {
    if (!st->classes) {
        PyErr_SetString(PyExc_RuntimeError, "set_classes() first");
        return NULL;
    }
    return st->classes->cls;
}

static int model_enter(NativeModel *self) {
    if (!self->ready || !self->has_lock) {
        PyErr_SetString(PyExc_RuntimeError, "lbpe._native.Model was not initialised");
        return -1;
    }
    unsigned long me = PyThread_get_thread_ident();
    if (pthread_mutex_trylock(&self->lock) != 0) {
        if (self->owner == me) {
            PyErr_SetString(PyExc_RuntimeError, "lbpe._native.Model is not re-entrant");
            return -1;
        }
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&self->lock);
        Py_END_ALLOW_THREADS
    }
    self->owner = me;
    return 0;
}

static void model_exit(NativeModel *self) {
    self->owner = 0;
    pthread_mutex_unlock(&self->lock);
}

/* ------------------------------------------------------------------ helpers */

/* encode_batch's workers run without the GIL. There a failure only returns -1 (the caller's
 * thread then encodes that text again, the ordinary way, which raises the real error), nothing
 * calls into Python, and Ctrl-C is left to the caller's thread. */
static _Thread_local int in_worker = 0;

/* ---- the host functions the core calls (core.h) */

LBPE_FN void *lbpe_malloc(size_t bytes) { return PyMem_RawMalloc(bytes); }
LBPE_FN void *lbpe_calloc(size_t count, size_t size) { return PyMem_RawCalloc(count, size); }
LBPE_FN void *lbpe_realloc(void *p, size_t bytes) { return PyMem_RawRealloc(p, bytes); }
LBPE_FN void lbpe_free(void *p) { PyMem_RawFree(p); }

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define HUGE_PAGE ((size_t)2 << 20)
/* tracemalloc's domain of the tables mapped here (PyMem's allocations are traced in its own) */
#define TABLE_DOMAIN 0x6c627065u

LBPE_FN size_t lbpe_table_bytes(size_t bytes) {
    return bytes < HUGE_PAGE ? bytes : (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

LBPE_FN void *lbpe_calloc_table(size_t bytes) {
    if (bytes < HUGE_PAGE) return PyMem_RawCalloc(1, bytes);
    /* mapped with a huge page's room to spare, then trimmed to start at a huge page */
    size_t len = lbpe_table_bytes(bytes);
    char *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *a = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > p) munmap(p, (size_t)(a - p));
    munmap(a + len, (size_t)(p + HUGE_PAGE - a)); /* the room past the end */
    (void)madvise(a, len, MADV_HUGEPAGE);
    /* traced as PyMem's blocks are (from any thread: tracing may take the GIL, which a thread
     * waiting for a batch's workers or its gatherer has given up) */
    (void)PyTraceMalloc_Track(TABLE_DOMAIN, (uintptr_t)a, len);
    return a;
}

LBPE_FN void lbpe_free_table(void *p, size_t bytes) {
    if (bytes < HUGE_PAGE) {
        PyMem_RawFree(p);
        return;
    }
    if (!p) return;
    (void)PyTraceMalloc_Untrack(TABLE_DOMAIN, (uintptr_t)p);
    munmap(p, lbpe_table_bytes(bytes));
}
#else
LBPE_FN size_t lbpe_table_bytes(size_t bytes) { return bytes; }
LBPE_FN void *lbpe_calloc_table(size_t bytes) { return PyMem_RawCalloc(1, bytes); }
LBPE_FN void lbpe_free_table(void *p, size_t bytes) { (void)bytes, PyMem_RawFree(p); }
#endif

LBPE_FN void lbpe_advise_random(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), z = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (z > a) (void)madvise((void *)a, z - a, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

LBPE_FN void lbpe_no_memory(void) {
    if (!in_worker) PyErr_NoMemory();
}

LBPE_FN void lbpe_error(int kind, const char *msg) {
    if (!in_worker)
        PyErr_SetString(kind == LBPE_OVERFLOW ? PyExc_OverflowError : PyExc_RuntimeError, msg);
}

/* A time budget (lbpe/budget.py): encode_text and encode_pieces get the seconds left and stop
 * with TimeoutError once they are spent, checked where Ctrl-C is (0: no budget). */
static _Thread_local double deadline = 0;

static double monotonic_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void set_deadline(double seconds) { deadline = seconds > 0 ? monotonic_now() + seconds : 0; }

LBPE_FN int lbpe_interrupted(void) {
    if (in_worker) return 0;
    if (deadline > 0 && monotonic_now() > deadline) {
        PyErr_SetString(PyExc_TimeoutError, "lbpe._native: the time budget is spent");
        return -1;
    }
    return PyErr_CheckSignals();
}

/* Calls the vocabulary's fallback (lbpe.vocab.Vocab.fallback_ids), which raises the pure path's
 * error naming the character; in a worker, only fails (the caller's thread redoes the text). */
LBPE_FN int lbpe_fallback(void *fallback, const char *s, size_t n) {
    if (in_worker) return -1;
    PyObject *ch = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "strict");
    if (!ch) return -1;
    PyObject *r = PyObject_CallOneArg((PyObject *)fallback, ch);
    Py_DECREF(ch);
    if (!r) return -1;
    Py_DECREF(r);
    PyErr_SetString(PyExc_RuntimeError,
                    "lbpe._native: the fallback returned ids for a vocabulary without fallback");
    return -1;
}

/* A text as the core reads it (PyUnicode_READY done). */
static Text text_of(PyObject *text) {
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text),
              PyUnicode_IS_ASCII(text)};
    return t;
}

/* 0 for a method code the core runs (M_BPE ... : lbpe.native.METHOD_CODES); else ValueError. */
static int check_method(int method) {
    if (method >= 0 && method < N_METHODS) return 0;
    PyErr_SetString(PyExc_ValueError, "unknown method code");
    return -1;
}

/* encode_text of the core; at a lone surrogate, the UnicodeEncodeError str.encode gives (in a
 * worker, only -1). */
static int encode_one_text(Model *m, PyObject *text, const Preset *pr, const unsigned char *cls,
                           int method, Py_ssize_t limit, Py_ssize_t cached_chars, IdBuf *b,
                           unsigned char **u8, size_t *u8cap) {
    Text t = text_of(text);
    ptrdiff_t bad[2];
    int rc = encode_text(m, &t, pr, cls, method, limit, cached_chars, b, u8, u8cap, bad);
    if (rc != -2) return rc;
    if (in_worker) return -1;
    PyObject *piece = PyUnicode_Substring(text, bad[0], bad[1]);
    if (piece) {
        PyObject *r = PyUnicode_AsUTF8String(piece);
        Py_XDECREF(r);
        Py_DECREF(piece);
    }
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError, "lbpe._native: surrogate not refused");
    return -1;
}

static PyObject *ids_tuple(const IdBuf *b, size_t from) {
    PyObject *t = PyTuple_New((Py_ssize_t)(b->len - from));
    if (!t) return NULL;
    for (size_t k = from; k < b->len; k++) {
        PyObject *v = PyLong_FromLong(b->ids[k]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)(k - from), v);
    }
    return t;
}

/* set_classes(letters, numbers, upper, lower, space, marks, punctuation_symbols, cjk): inclusive
 * (lo, hi) code point ranges */
static PyObject *set_classes(PyObject *mod, PyObject *args) {
    PyObject *lists[8];
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &lists[0], &lists[1], &lists[2], &lists[3], &lists[4],
                          &lists[5], &lists[6], &lists[7]))
        return NULL;
    ClassTable *made = PyMem_RawCalloc(1, sizeof(ClassTable));
    if (!made) return PyErr_NoMemory();
    unsigned char *table = made->cls;
    static const unsigned char flags[8] = {C_L, C_N, C_U, C_W, C_S, C_M, C_PS, C_CJK};
    for (int f = 0; f < 8; f++) {
        PyObject *seq = PySequence_Fast(lists[f], "ranges must be a sequence of (lo, hi)");
        if (!seq) {
            PyMem_RawFree(made);
            return NULL;
        }
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
            long lo, hi;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "ll", &lo, &hi)) {
                Py_DECREF(seq);
                PyMem_RawFree(made);
                return NULL;
            }
            if (lo < 0 || hi >= MAX_CP || lo > hi) {
                Py_DECREF(seq);
                PyMem_RawFree(made);
                PyErr_Format(PyExc_ValueError, "bad code point range (%ld, %ld)", lo, hi);
                return NULL;
            }
            for (long cp = lo; cp <= hi; cp++) table[cp] |= flags[f];
        }
        Py_DECREF(seq);
    }
    classes_done(table);
    /* the old table is kept: threads of a running encode_batch may be reading it */
    State *st = module_state(mod);
    made->prev = st->classes;
    st->classes = made;
    Py_RETURN_NONE;
}

/* split(text, preset) -> list[str]: the pieces (for tests: must equal the preset's findall) */
static PyObject *split(PyObject *mod, PyObject *args) {
    PyObject *text;
    int preset;
    if (!PyArg_ParseTuple(args, "Ui", &text, &preset)) return NULL;
    const unsigned char *cls = classes_of(module_state(mod));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS) {
        PyErr_SetString(PyExc_ValueError, "unknown preset");
        return NULL;
    }
    Text t = text_of(text);
    Py_ssize_t n = t.n;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Splitter sp;
    splitter_init(&sp, &PRESETS[preset], cls, &t);
    for (Py_ssize_t p = 0; p < n;) {
        const char *ascii;
        Py_ssize_t q = splitter_step(&sp, p, &ascii, sp.latin1);
        PyObject *piece = PyUnicode_Substring(text, p, q);
        if (!piece || PyList_Append(out, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(piece);
        p = q;
    }
    return out;
}

/* block_path(preset) -> bool: whether the splitter reads ASCII in blocks for this preset, with
 * the class table set (for tests: the fast path must not switch itself off unnoticed) */
static PyObject *block_path(PyObject *mod, PyObject *args) {
    int preset;
    if (!PyArg_ParseTuple(args, "i", &preset)) return NULL;
    const unsigned char *cls = classes_of(module_state(mod));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS) {
        PyErr_SetString(PyExc_ValueError, "unknown preset");
        return NULL;
    }
    Text t = {1, "", 0, 1};
    Splitter sp;
    splitter_init(&sp, &PRESETS[preset], cls, &t);
    return PyBool_FromLong(sp.on);
}

/* _block_simd([level]) -> (old level, best level): the classifier of the splitter's ASCII
 * blocks, 0 (SSE2, or a loop), 1 (AVX2) or 2 (AVX-512BW), set to `level` for the whole process
 * (for tests: every classifier the processor runs must split alike) */
static PyObject *set_block_simd(PyObject *mod, PyObject *args) {
    (void)mod;
    int level = -1;
    if (!PyArg_ParseTuple(args, "|i", &level)) return NULL;
    int best = block_simd_best();
    if (level > best) {
        PyErr_Format(PyExc_ValueError, "this processor runs block classifiers up to %d, not %d",
                     best, level);
        return NULL;
    }
    return Py_BuildValue("ii", block_simd(level), best);
}

/* last_starts(text, preset, count) -> (pieces, starts): how many pieces the preset splits text
 * into, and where the last `count` of them start (for Tokenizer.safe_cut, without building
 * every piece) */
static PyObject *last_starts(PyObject *mod, PyObject *args) {
    PyObject *text;
    int preset;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "Uin", &text, &preset, &count)) return NULL;
    const unsigned char *cls = classes_of(module_state(mod));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS || count < 1 || count > 4096) {
        PyErr_SetString(PyExc_ValueError, "bad preset or count");
        return NULL;
    }
    Text t = text_of(text);
    Py_ssize_t n = t.n, total = 0;
    Py_ssize_t *ring = PyMem_RawMalloc((size_t)count * sizeof(Py_ssize_t));
    if (!ring) return PyErr_NoMemory();
    Splitter sp;
    splitter_init(&sp, &PRESETS[preset], cls, &t);
    for (Py_ssize_t p = 0; p < n; total++) {
        const char *ascii;
        ring[total % count] = p;
        p = splitter_step(&sp, p, &ascii, sp.latin1);
    }
    Py_ssize_t kept = total < count ? total : count;
    PyObject *starts = PyList_New(kept);
    if (!starts) {
        PyMem_RawFree(ring);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < kept; k++) {
        PyObject *v = PyLong_FromSsize_t(ring[(total - kept + k) % count]);
        if (!v) {
            Py_DECREF(starts);
            PyMem_RawFree(ring);
            return NULL;
        }
        PyList_SET_ITEM(starts, k, v);
    }
    PyMem_RawFree(ring);
    PyObject *r = Py_BuildValue("nN", total, starts);
    return r;
}

/* The table of the model's shared ints (self->longs, one slot an id below n_longs), empty: an
 * id's int is made the first time a list holds it, so a first encode of a short text makes a
 * handful of ints, not one for every token of the vocabulary (200,000 for o200k_base). */
static int longs_table(NativeModel *self) {
    Model *m = &self->core;
    if (self->longs) return 0;
    Py_ssize_t n = 0;
    for (size_t x = 0; x < m->n_entries; x++)
        if (m->entries[x].v.id >= n) n = m->entries[x].v.id + 1;
    if (m->has_byte_fallback)
        for (int x = 0; x < 256; x++)
            if (m->byte_fallback[x] >= n) n = m->byte_fallback[x] + 1;
    if (m->has_unk && m->unk >= n) n = m->unk + 1;
    PyObject **longs = PyMem_RawCalloc((size_t)n + 1, sizeof(PyObject *));
    if (!longs) {
        PyErr_NoMemory();
        return -1;
    }
    self->longs = longs;
    self->n_longs = n;
    return 0;
}

/* The shared int of id (0 <= id < n_longs), made now if it was not yet: a borrowed reference
 * (the table holds one), NULL with an exception set when it cannot be made. */
static inline PyObject *shared_long(PyObject **longs, uint32_t id) {
    PyObject *v = longs[id];
    if (!v) v = longs[id] = PyLong_FromLong((long)id);
    return v;
}

/* Every shared int made: encode_batch's threads hand them out without the GIL, where none can
 * be made. */
static int ensure_longs(NativeModel *self) {
    if (longs_table(self) < 0) return -1;
    for (Py_ssize_t x = 0; x < self->n_longs; x++)
        if (!shared_long(self->longs, (uint32_t)x)) return -1;
    return 0;
}

/* The int of id `raw` into *item (a new reference); -1 with an exception set when it cannot be
 * made. */
static LBPE_ALWAYS_INLINE int put_id(PyObject **longs, uint32_t n, PyObject **item, int32_t raw) {
    uint32_t id = (uint32_t)raw; /* as unsigned: a negative id is >= n */
    if (id < n) {
        PyObject *v = shared_long(longs, id);
        if (!v) return -1;
        Py_INCREF(v);
        *item = v;
        return 0;
    }
    return (*item = PyLong_FromLong(raw)) ? 0 : -1;
}

static inline PyObject *id_object(NativeModel *self, int32_t id) {
    PyObject *v;
    return put_id(self->longs, (uint32_t)self->n_longs, &v, id) < 0 ? NULL : v;
}

/* How many ids ahead put_ids asks for an int's cache line, and twice as many for the line of the
 * table's slot that points to it: each id's int is read and its count written, at random over
 * the vocabulary's ints (3 MB for 100,000 tokens) and their table (800 KB). When neither is in
 * the processor's caches, each id first seen is two waits on memory one after the other. */
#define LONGS_AHEAD 64

/* The ints of ids[0:count] into items (each a new reference); -1 with an exception set when
 * one cannot be made (the items after it are left as they were). */
static int put_ids(NativeModel *self, PyObject **items, const int32_t *ids, size_t count) {
    PyObject **longs = self->longs;
    uint32_t n = (uint32_t)self->n_longs;
    size_t x = 0;
    /* all but the last ids, with both lines asked for ahead (the table's slot by its address as
     * a number: asking for a line never faults, and no slot past the table is read) */
    for (; x + 2 * LONGS_AHEAD < count; x++) {
        uintptr_t slot = (uintptr_t)longs + (uint32_t)ids[x + 2 * LONGS_AHEAD] * sizeof(PyObject *);
        LBPE_PREFETCH((const void *)slot);
        uint32_t later = (uint32_t)ids[x + LONGS_AHEAD];
        if (later < n) LBPE_PREFETCH_WRITE(longs[later]); /* NULL until made: harmless */
        if (put_id(longs, n, &items[x], ids[x]) < 0) return -1;
    }
    for (; x < count; x++) {
        if (x + LONGS_AHEAD < count) {
            uint32_t later = (uint32_t)ids[x + LONGS_AHEAD];
            if (later < n) LBPE_PREFETCH_WRITE(longs[later]);
        }
        if (put_id(longs, n, &items[x], ids[x]) < 0) return -1;
    }
    return 0;
}

/* ids[0:count] as a list of ints (longs_table first) */
static PyObject *ids_list(NativeModel *self, const int32_t *ids, size_t count) {
    PyObject *list = PyList_New((Py_ssize_t)count);
    if (list && put_ids(self, ((PyListObject *)list)->ob_item, ids, count) < 0) Py_CLEAR(list);
    return list;
}

static PyObject *id_list(NativeModel *self, const IdBuf *b) {
    if (longs_table(self) < 0) return NULL;
    return ids_list(self, b->ids, b->len);
}

/* The ids of b: a list of ints, or (buffer) bytes of native-endian int32, one per id, which
 * array.array("i") and numpy.frombuffer take without a Python int per token. */
static PyObject *id_result(NativeModel *self, const IdBuf *b, int buffer) {
    if (!buffer) return id_list(self, b);
    if (b->len == 0) return PyBytes_FromStringAndSize("", 0);
    return PyBytes_FromStringAndSize((const char *)b->ids, (Py_ssize_t)(b->len * sizeof(int32_t)));
}

/* The options every encode call takes by keyword (method, limit, cached_chars, seconds, buffer). */
typedef struct {
    int method, buffer;
    Py_ssize_t limit, cached_chars;
    double seconds;
} EncodeOptions;

/* An int argument of `fn` named `name` (an int or any object with __index__): 0, or -1 with
 * the error set. */
static int int_arg(const char *fn, const char *name, PyObject *o, int *out) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < INT_MIN || v > INT_MAX) {
        PyErr_Format(PyExc_OverflowError, "%s(): %s out of range", fn, name);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The EncodeOptions of a METH_FASTCALL | METH_KEYWORDS call of `fn` with `npos` positional
 * arguments (checked here: exactly so many), every option given by keyword: 0, or -1 with a
 * TypeError naming the argument. Matched against the names directly, where
 * PyArg_ParseTupleAndKeywords needs a dict made for the call and a string made for each name it
 * looks up: about half of a short text's encode. */
static int encode_options(State *st, const char *fn, Py_ssize_t nargs, Py_ssize_t npos,
                          PyObject *const *args, PyObject *kwnames, EncodeOptions *o) {
    static const char *names[] = OPTION_NAMES;
    PyObject *value[5] = {NULL, NULL, NULL, NULL, NULL};
    if (nargs != npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional argument%s (%zd given)", fn, npos,
                     npos == 1 ? "" : "s", nargs);
        return -1;
    }
    Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nk; j++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, j);
        /* a call site's names are interned, as the module's own are: most calls compare
         * pointers only; a name built at run time is compared by its characters */
        int k = 0;
        while (k < 5 && name != st->option_names[k]) k++;
        if (k == 5) {
            k = 0;
            while (k < 5 && PyUnicode_CompareWithASCIIString(name, names[k]) != 0) k++;
        }
        if (k == 5 || value[k]) {
            PyErr_Format(PyExc_TypeError, "%s() got %s keyword argument '%U'", fn,
                         k == 5 ? "an unexpected" : "a repeated", name);
            return -1;
        }
        value[k] = args[nargs + j];
    }
    for (int k = 0; k < 5; k++)
        if (!value[k]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required keyword argument '%s'", fn,
                         names[k]);
            return -1;
        }
    if (int_arg(fn, "method", value[0], &o->method) < 0) return -1;
    if ((o->limit = PyNumber_AsSsize_t(value[1], PyExc_OverflowError)) == -1 && PyErr_Occurred())
        return -1;
    if ((o->cached_chars = PyNumber_AsSsize_t(value[2], PyExc_OverflowError)) == -1 &&
        PyErr_Occurred())
        return -1;
    if ((o->seconds = PyFloat_AsDouble(value[3])) == -1.0 && PyErr_Occurred()) return -1;
    if ((o->buffer = PyObject_IsTrue(value[4])) < 0) return -1;
    return check_method(o->method);
}

static PyObject *Model_encode_text(NativeModel *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    Model *m = &self->core;
    EncodeOptions o;
    int preset;
    if (encode_options(model_state(self), "encode_text", nargs, 2, args, kwnames, &o) < 0)
        return NULL;
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "encode_text(): text must be str, not %s",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (PyUnicode_READY(text) < 0) return NULL; /* (a no-op since Python 3.12) */
    if (int_arg("encode_text", "preset", args[1], &preset) < 0) return NULL;
    const unsigned char *cls = classes_of(model_state(self));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS) {
        PyErr_SetString(PyExc_ValueError, "unknown preset");
        return NULL;
    }
    if (model_enter(self) < 0) return NULL;
    IdBuf b = {NULL, 0, 0};
    unsigned char *u8 = NULL;
    size_t u8cap = 0;
    PyObject *result = NULL;
    set_deadline(o.seconds);
    if (encode_one_text(m, text, &PRESETS[preset], cls, o.method, o.limit, o.cached_chars, &b,
                        &u8, &u8cap) == 0)
        result = id_result(self, &b, o.buffer);
    set_deadline(0);
    lbpe_free(b.ids);
    lbpe_free(u8);
    model_exit(self);
    return result;
}

/* ---- encode_batch: texts shared among threads that run without the GIL ---- */

/* The texts of one encode_batch call, and where each one's ids are. Each thread takes the next
 * text nobody has taken: texts of one length can take very different times (of 1 MB of code as
 * 256 documents, one half took twice as long as the other), so a thread given a fixed share
 * would wait for the slower one. */
typedef struct {
    PyObject **texts; /* our own references: the caller's list may change meanwhile */
    Py_ssize_t n;
    Py_ssize_t next;   /* the next text to take (atomic) */
    int *owner; /* the job whose buffer holds each text's ids (threads: the caller's); -1: none */
    size_t *from, *to; /* each text's ids in that buffer */
    const Preset *pr;
    const unsigned char *cls;
    int method;
    Py_ssize_t limit, cached_chars;
} Work;

typedef struct {
    Model copy; /* the model's tables, with its own scratch, caches and memo */
    Work *work;
    int index;
    IdBuf ids;
} Job;

/* Encode texts until none is left to take. A text that fails here (a character the vocabulary
 * cannot encode, a lone surrogate, no memory) is left without an owner, and this thread takes
 * no more: the caller's thread encodes it again, the ordinary way, which raises the error. */
static void *run_job(void *arg) {
    Job *j = arg;
    Work *w = j->work;
    unsigned char *u8 = NULL;
    size_t u8cap = 0;
    in_worker = 1;
    for (;;) {
        Py_ssize_t k = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
        if (k >= w->n) break;
        size_t from = j->ids.len;
        if (encode_one_text(&j->copy, w->texts[k], w->pr, w->cls, w->method, w->limit,
                            w->cached_chars, &j->ids, &u8, &u8cap) < 0)
            break;
        w->from[k] = from;
        w->to[k] = j->ids.len;
        w->owner[k] = j->index;
    }
    in_worker = 0;
    lbpe_free(u8);
    return NULL;
}

/* A worker's copy shares every table of m (read only) and owns the buffers it writes. */
static void job_setup(Job *j, Model *m) {
    memcpy(&j->copy, m, sizeof(Model));
    for (int k = 0; k < N_SCRATCH; k++) {
        j->copy.scratch[k] = NULL;
        j->copy.scratch_cap[k] = 0;
    }
    memset(j->copy.cache, 0, sizeof(j->copy.cache));
    memset(j->copy.part_cache, 0, sizeof(j->copy.part_cache));
    j->copy.parent = m;
}

static void job_free(Job *j) {
    model_free_own(&j->copy);
    lbpe_free(j->ids.ids);
}

/* A job's cache of method c: its piece cache, or its part cache when parts. */
static Cache *share_cache(Job *j, int c, int parts) {
    return parts ? &j->copy.part_cache[c] : &j->copy.cache[c];
}

/* What the jobs cached of method c (their part caches when parts), kept in into, the model's
 * own: an empty one takes the fullest job's cache as it is, instead of copying each piece into
 * it on the caller's thread after the workers are done; the other jobs' pieces are copied in as
 * room allows. */
static int gather_caches(Cache *into, Job *jobs, int threads, int c, int parts, Py_ssize_t limit) {
    int taken = -1;
    for (int t = 0; t < threads && !into->n; t++) {
        size_t n = share_cache(&jobs[t], c, parts)->n;
        if (n && (taken < 0 || n > share_cache(&jobs[taken], c, parts)->n)) taken = t;
    }
    if (taken >= 0) cache_move(into, share_cache(&jobs[taken], c, parts));
    for (int t = 0; t < threads; t++)
        if (t != taken && merge_cache(into, share_cache(&jobs[t], c, parts), limit) < 0) return -1;
    return 0;
}

/* gather_caches of every method, on a thread of its own beside the filling of the lists: it
 * touches no Python object. failed: no memory (the caller raises). */
typedef struct {
    Model *m;
    Job *jobs;
    int threads;
    Py_ssize_t limit;
    int failed;
} Gather;

static void *gather_job(void *arg) {
    Gather *g = arg;
    in_worker = 1;
    for (int c = 0; c < N_METHODS && !g->failed; c++)
        g->failed = gather_caches(&g->m->cache[c], g->jobs, g->threads, c, 0, g->limit) < 0 ||
                    gather_caches(&g->m->part_cache[c], g->jobs, g->threads, c, 1, g->limit) < 0;
    in_worker = 0;
    return NULL;
}

/* Filling the lists of a run of texts [a, z) from the buffers their ids are in (src, by owner):
 * with the shared ints, without touching a reference count (another thread may hand out the
 * same int); the references are counted in counts and added on the caller's thread. */
typedef struct {
    const Work *work;
    int32_t *const *src;
    PyObject **lists; /* the result's items */
    Py_ssize_t a, z;
    PyObject **longs; /* the model's shared ints, n_longs of them */
    Py_ssize_t n_longs;
    uint32_t *counts; /* how many items refer to each shared int */
    int odd;          /* an id without a shared int: filled on the caller's thread instead */
} Fill;

static void *fill_job(void *arg) {
    Fill *f = arg;
    const Work *w = f->work;
    for (Py_ssize_t k = f->a; k < f->z; k++) {
        PyObject **items = ((PyListObject *)f->lists[k])->ob_item;
        const int32_t *ids = f->src[w->owner[k]] + w->from[k];
        size_t count = w->to[k] - w->from[k];
        for (size_t x = 0; x < count; x++) {
            int32_t id = ids[x];
            if (id < 0 || id >= f->n_longs) {
                f->odd = 1;
                return NULL;
            }
            items[x] = f->longs[id];
            f->counts[id]++;
        }
    }
    return NULL;
}

/* Below this many ids in all, encode_batch's lists are filled on the caller's thread alone. */
#define FILL_ON_THREADS (1 << 15)

/* The lists of encode_batch's texts, made here and put in result. With enough ids, runs of texts
 * of about as many ids each are filled on threads of their own (fill_job), with the GIL held
 * throughout: no Python code runs, so no one sees a list before the counts of its references
 * are added. A run with an id that has no shared int is filled here, the ordinary way. */
static int fill_lists(NativeModel *self, const Work *w, int32_t *const *src, int threads,
                      PyObject *result) {
    size_t total = 0;
    for (Py_ssize_t k = 0; k < w->n; k++) {
        PyObject *list = PyList_New((Py_ssize_t)(w->to[k] - w->from[k]));
        if (!list) return -1;
        PyList_SET_ITEM(result, k, list);
        total += w->to[k] - w->from[k];
    }
    if (total < FILL_ON_THREADS || total > UINT32_MAX) threads = 1;
    Fill fills[64];
    size_t done = 0;
    Py_ssize_t k = 0;
    for (int t = 0; t < threads; t++) {
        Fill *f = &fills[t];
        f->work = w;
        f->src = src;
        f->lists = ((PyListObject *)result)->ob_item;
        f->a = k;
        while (k < w->n && (t == threads - 1 || done * threads < total * (t + 1)))
            done += w->to[k] - w->from[k], k++;
        f->z = k;
        f->longs = self->longs;
        f->n_longs = self->n_longs;
        f->counts =
            threads > 1 ? PyMem_RawCalloc((size_t)self->n_longs + 1, sizeof(uint32_t)) : NULL;
        f->odd = f->counts == NULL;
    }
    if (threads > 1) {
        pthread_t tids[64];
        int started[64] = {0};
        for (int t = 1; t < threads; t++)
            started[t] = !fills[t].odd && pthread_create(&tids[t], NULL, fill_job, &fills[t]) == 0;
        for (int t = 0; t < threads; t++) {
            if (started[t]) pthread_join(tids[t], NULL);
            else if (!fills[t].odd) fill_job(&fills[t]); /* here: the first run, or no thread */
        }
    }
    /* the counts of the runs filled added up first: each shared int's count written once */
    uint32_t *sum = NULL;
    for (int t = 0; t < threads; t++) {
        Fill *f = &fills[t];
        if (!f->odd && !sum) {
            sum = f->counts;
            f->counts = NULL;
        } else if (!f->odd)
            for (Py_ssize_t id = 0; id < f->n_longs; id++) sum[id] += f->counts[id];
        PyMem_RawFree(f->counts);
        f->counts = NULL;
    }
    for (Py_ssize_t id = 0; sum && id < self->n_longs; id++) /* their items are in place */
        if (sum[id]) {
            PyObject *v = self->longs[id];
            Py_SET_REFCNT(v, Py_REFCNT(v) + (Py_ssize_t)sum[id]);
        }
    PyMem_RawFree(sum);
    /* what fill_job wrote for an odd run holds no reference: every odd run is cleared before any
     * is filled, so a failure below leaves nothing to be released twice */
    for (int t = 0; t < threads; t++)
        for (Py_ssize_t x = fills[t].a; fills[t].odd && x < fills[t].z; x++)
            memset(((PyListObject *)fills[t].lists[x])->ob_item, 0,
                   (size_t)PyList_GET_SIZE(fills[t].lists[x]) * sizeof(PyObject *));
    for (int t = 0; t < threads; t++)
        for (Py_ssize_t x = fills[t].a; fills[t].odd && x < fills[t].z; x++) {
            PyObject **items = ((PyListObject *)fills[t].lists[x])->ob_item;
            if (put_ids(self, items, src[w->owner[x]] + w->from[x], w->to[x] - w->from[x]) < 0)
                return -1;
        }
    return 0;
}

/* encode_batch(texts, preset, method, limit, cached_chars, threads) -> list[list[int]]
 * Each text pre-tokenised with a preset and encoded, as encode_text would; `threads` threads
 * take the texts one at a time and run without the GIL. A text that fails there is encoded
 * again here, the ordinary way, which raises the real error. */
static PyObject *Model_encode_batch(NativeModel *self, PyObject *args, PyObject *kw) {
    Model *m = &self->core;
    static char *names[] = {"", "", "method", "limit", "cached_chars", "threads", NULL};
    PyObject *texts;
    int preset, method, threads;
    Py_ssize_t limit, cached_chars;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!i$inni", names, &PyList_Type, &texts, &preset,
                                     &method, &limit, &cached_chars, &threads))
        return NULL;
    if (check_method(method) < 0) return NULL;
    const unsigned char *cls = classes_of(model_state(self));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS) {
        PyErr_SetString(PyExc_ValueError, "unknown preset");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(texts);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *t = PyList_GET_ITEM(texts, k);
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "texts must be str");
            return NULL;
        }
        if (PyUnicode_READY(t) < 0) return NULL;
    }
    if (model_enter(self) < 0) return NULL;
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if (threads > n) threads = (int)(n ? n : 1);
    if (ensure_longs(self) < 0) {
        model_exit(self);
        return NULL;
    }
    Work w = {.n = n, .pr = &PRESETS[preset], .cls = cls, .method = method, .limit = limit,
              .cached_chars = cached_chars};
    Job *jobs = PyMem_RawCalloc((size_t)threads, sizeof(Job));
    w.texts = PyMem_RawMalloc(((size_t)n + 1) * sizeof(PyObject *));
    w.owner = PyMem_RawMalloc(((size_t)n + 1) * sizeof(int));
    w.from = PyMem_RawMalloc(((size_t)n + 1) * sizeof(size_t));
    w.to = PyMem_RawMalloc(((size_t)n + 1) * sizeof(size_t));
    if (!jobs || !w.texts || !w.owner || !w.from || !w.to) {
        PyMem_RawFree(jobs);
        PyMem_RawFree(w.texts);
        PyMem_RawFree(w.owner);
        PyMem_RawFree(w.from);
        PyMem_RawFree(w.to);
        model_exit(self);
        return PyErr_NoMemory();
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        w.texts[k] = PyList_GET_ITEM(texts, k);
        Py_INCREF(w.texts[k]);
        w.owner[k] = -1;
        total += PyUnicode_GET_LENGTH(w.texts[k]);
    }
    IdBuf here = {NULL, 0, 0}; /* the ids of texts encoded again on this thread */
    unsigned char *u8 = NULL;
    size_t u8cap = 0;
    int made = 0;
    PyObject *result = NULL;
    for (int t = 0; t < threads; t++) {
        made = t + 1; /* freed at cleanup, however far its setup got */
        jobs[t].work = &w;
        jobs[t].index = t;
        job_setup(&jobs[t], m);
        /* a cold model: each job's cache made room at once for the pieces of its part, as
         * encode_text does for one long text */
        size_t want = m->cache[method].n ? 0 : pieces_expected(total / threads, limit);
        if (want && cache_reserve(&jobs[t].copy.cache[method], want) < 0) goto cleanup;
    }
    pthread_t tids[64];
    int started[64] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tids[t], NULL, run_job, &jobs[t]) == 0;
    run_job(&jobs[0]);
    for (int t = 1; t < threads; t++)
        if (started[t]) pthread_join(tids[t], NULL);
    Py_END_ALLOW_THREADS
    /* texts that failed in a thread: again here, with the GIL, so the real error is raised */
    for (Py_ssize_t k = 0; k < n; k++) {
        if (w.owner[k] >= 0) continue;
        w.from[k] = here.len;
        if (encode_one_text(m, w.texts[k], w.pr, cls, method, limit, cached_chars, &here, &u8,
                            &u8cap) < 0)
            goto cleanup;
        w.to[k] = here.len;
        w.owner[k] = threads;
    }
    /* the model's caches gathered while the lists are made and filled (no goto until joined:
     * the jobs' caches are read there). Each allocation there may wait for the GIL (tracemalloc
     * takes it in PyMem_RawMalloc), which the join gives up. */
    Gather g = {m, jobs, threads, limit, 0};
    pthread_t gatherer;
    int beside = threads > 1 && pthread_create(&gatherer, NULL, gather_job, &g) == 0;
    if (!beside) gather_job(&g);
    int32_t *src[65];
    for (int t = 0; t < threads; t++) src[t] = jobs[t].ids.ids;
    src[threads] = here.ids;
    result = PyList_New(n);
    if (!result || fill_lists(self, &w, src, threads, result) < 0) Py_CLEAR(result);
    if (beside) { /* without the GIL: with tracemalloc on, the gatherer's allocations take it */
        Py_BEGIN_ALLOW_THREADS
        pthread_join(gatherer, NULL);
        Py_END_ALLOW_THREADS
    }
    if (g.failed) {
        Py_CLEAR(result);
        if (!PyErr_Occurred()) PyErr_NoMemory();
    }
cleanup:
    for (int t = 0; t < made; t++) job_free(&jobs[t]);
    PyMem_RawFree(jobs);
    lbpe_free(here.ids);
    lbpe_free(u8);
    for (Py_ssize_t k = 0; k < n; k++) Py_DECREF(w.texts[k]);
    PyMem_RawFree(w.texts);
    PyMem_RawFree(w.owner);
    PyMem_RawFree(w.from);
    PyMem_RawFree(w.to);
    model_exit(self);
    return result;
}

/* encode_pieces(pieces, method, limit, cached_chars, seconds, buffer) -> list[int] (or bytes, as
 * encode_text): pieces from any pre-tokeniser */
static PyObject *Model_encode_pieces(NativeModel *self, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames) {
    Model *m = &self->core;
    EncodeOptions o;
    if (encode_options(model_state(self), "encode_pieces", nargs, 1, args, kwnames, &o) < 0)
        return NULL;
    PyObject *pieces = args[0];
    if (!PyList_Check(pieces)) {
        PyErr_Format(PyExc_TypeError, "encode_pieces(): pieces must be a list, not %s",
                     Py_TYPE(pieces)->tp_name);
        return NULL;
    }
    if (model_enter(self) < 0) return NULL;
    IdBuf b = {NULL, 0, 0};
    PyObject *result = NULL;
    set_deadline(o.seconds);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(pieces); k++) {
        if ((k & 8191) == 8191 && lbpe_interrupted() < 0) goto done;
        PyObject *piece = PyList_GET_ITEM(pieces, k);
        if (!PyUnicode_Check(piece)) {
            PyErr_SetString(PyExc_TypeError, "pieces must be str");
            goto done;
        }
        Py_INCREF(piece); /* a signal handler could take it out of the list meanwhile */
        Py_ssize_t n;
        const char *s =
            PyUnicode_AsUTF8AndSize(piece, &n); /* a lone surrogate: UnicodeEncodeError */
        int bad = !s || cached_piece(m, s, (size_t)n, PyUnicode_GET_LENGTH(piece), o.method,
                                     o.limit, o.cached_chars, &b) < 0;
        Py_DECREF(piece);
        if (bad) goto done;
    }
    result = id_result(self, &b, o.buffer);
done:
    set_deadline(0);
    lbpe_free(b.ids);
    model_exit(self);
    return result;
}

/* pack(lists) -> bytes: lists of ids as b"I" + count (int64) + lengths (int64 each) + ids (int32
 * each), little-endian; what a worker of encode_batch sends back through its pipe. */
static PyObject *pack(PyObject *Py_UNUSED(mod), PyObject *lists) {
    if (!PyList_Check(lists)) {
        PyErr_SetString(PyExc_TypeError, "pack() takes a list of lists of ids");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(lists), total = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *ids = PyList_GET_ITEM(lists, k);
        if (!PyList_Check(ids)) {
            PyErr_SetString(PyExc_TypeError, "pack() takes a list of lists of ids");
            return NULL;
        }
        total += PyList_GET_SIZE(ids);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, 1 + 8 + 8 * count + 4 * total);
    if (!out) return NULL;
    char *p = PyBytes_AS_STRING(out);
    *p++ = 'I';
    int64_t c64 = count;
    memcpy(p, &c64, 8);
    p += 8;
    for (Py_ssize_t k = 0; k < count; k++) {
        int64_t n = PyList_GET_SIZE(PyList_GET_ITEM(lists, k));
        memcpy(p, &n, 8);
        p += 8;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *ids = PyList_GET_ITEM(lists, k);
        for (Py_ssize_t x = 0; x < PyList_GET_SIZE(ids); x++) {
            PyObject *item = PyList_GET_ITEM(ids, x);
            /* exact ints only: nothing can run Python code (and change the lists) meanwhile */
            if (!PyLong_CheckExact(item)) {
                Py_DECREF(out);
                PyErr_SetString(PyExc_TypeError, "pack() takes lists of int ids");
                return NULL;
            }
            long v = PyLong_AsLong(item);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(out);
                return NULL;
            }
            if (v < 0 || v > INT32_MAX) {
                Py_DECREF(out);
                PyErr_SetString(PyExc_OverflowError, "id out of range");
                return NULL;
            }
            int32_t v32 = (int32_t)v;
            memcpy(p, &v32, 4);
            p += 4;
        }
    }
    return out;
}

/* unpack(data) -> list[list[int]]: the inverse of pack(), ids as the model's shared ints */
static PyObject *Model_unpack(NativeModel *self, PyObject *arg) {
    Py_buffer view;
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "lbpe._native.Model was not initialised");
        return NULL;
    }
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *p = view.buf, *end = p + view.len;
    PyObject *out = NULL;
    int64_t count;
    if (view.len < 9 || *p != 'I') goto bad;
    p++;
    memcpy(&count, p, 8);
    p += 8;
    if (count < 0 || count > (end - p) / 8) goto bad;
    const char *lengths = p, *ids = p + 8 * count;
    int64_t total = 0;
    for (int64_t k = 0; k < count; k++) {
        int64_t n;
        memcpy(&n, lengths + 8 * k, 8);
        if (n < 0 || n > (end - ids) / 4 - total) goto bad;
        total += n;
    }
    if (ids + 4 * total != end) goto bad;
    if (longs_table(self) < 0) goto done;
    out = PyList_New((Py_ssize_t)count);
    if (!out) goto done;
    for (int64_t k = 0; k < count; k++) {
        int64_t n;
        memcpy(&n, lengths + 8 * k, 8);
        PyObject *list = PyList_New((Py_ssize_t)n);
        if (!list) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)k, list);
        for (int64_t x = 0; x < n; x++) {
            int32_t id;
            memcpy(&id, ids, 4);
            ids += 4;
            PyObject *v = id_object(self, id);
            if (!v) {
                Py_CLEAR(out);
                goto done;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)x, v);
        }
    }
    goto done;
bad:
    PyErr_SetString(PyExc_ValueError, "unpack(): not data written by pack()");
done:
    PyBuffer_Release(&view);
    return out;
}

static PyObject *Model_clear_cache(NativeModel *self, PyObject *Py_UNUSED(ignored)) {
    Model *m = &self->core;
    if (model_enter(self) < 0)
        return NULL; /* waits for an encode_batch whose threads read the caches */
    for (int k = 0; k < N_METHODS; k++) {
        cache_clear(&m->cache[k]);
        cache_clear(&m->part_cache[k]);
    }
    m->tables_read = 0; /* the next long cold text reads them through again (encode.c) */
    model_exit(self);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ the Model type */

static void Model_dealloc(NativeModel *self) {
    model_free(&self->core);
    Py_XDECREF(self->fallback);
    if (self->has_lock) pthread_mutex_destroy(&self->lock);
    if (self->longs) {
        for (Py_ssize_t x = 0; x < self->n_longs; x++) Py_XDECREF(self->longs[x]);
        PyMem_RawFree(self->longs);
    }
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free((PyObject *)self);
    Py_DECREF(type); /* an instance of a heap type holds a reference to it */
}

static int as_id(PyObject *v, int32_t *out, const char *what) {
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", what);
        return -1;
    }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (x < 0 || x > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s %ld is outside 0..2**31-1", what, x);
        return -1;
    }
    *out = (int32_t)x;
    return 0;
}

static Entry *lookup_bytes(NativeModel *self, PyObject *key) {
    Model *m = &self->core;
    char *s;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(key, &s, &n) < 0) return NULL;
    const Fast *f =
        n > 0 ? fast_at(m, s, (size_t)n, fnv((const unsigned char *)s, (size_t)n, FNV_OFFSET))
              : NULL;
    if (!f || f->v.id < 0) {
        PyErr_Format(PyExc_ValueError, "merge part %R is not a token", key);
        return NULL;
    }
    return &m->entries[f->entry];
}

/* The tokens of a dict {bytes: id} into m's token table (table_add_tokens). 0, or -1 with an
 * error set. */
static int add_tokens(Model *m, PyObject *tokens) {
    /* their bytes and ids gathered first (the dict keeps the bytes alive while they are read) */
    TokenBytes *list = PyMem_RawMalloc(((size_t)PyDict_GET_SIZE(tokens) + 1) * sizeof(TokenBytes));
    if (!list) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    size_t count = 0;
    int failed = 0;
    while (!failed && PyDict_Next(tokens, &pos, &k, &v)) {
        char *s;
        Py_ssize_t n;
        int32_t id;
        if (PyBytes_AsStringAndSize(k, &s, &n) < 0 || as_id(v, &id, "token id") < 0) failed = 1;
        else if (n == 0) {
            PyErr_SetString(PyExc_ValueError, "empty token");
            failed = 1;
        } else {
            list[count].s = s;
            list[count].n = (size_t)n;
            list[count].id = id;
            count++;
        }
    }
    if (!failed) failed = table_add_tokens(m, list, count) < 0;
    PyMem_RawFree(list);
    return failed ? -1 : 0;
}

/* Model(tokens, *, char_units, whole_piece_first, merges, scaffold, byte_fallback, unk,
 *       fuse_unk, fallback)
 *   tokens: dict bytes -> id;  merges: dict (bytes, bytes) -> priority, or None;
 *   scaffold: dict id -> (id, id);  byte_fallback: dict byte -> id, or None;  unk: int or None */
static int Model_init(NativeModel *self, PyObject *args, PyObject *kw) {
    Model *m = &self->core;
    static char *names[] = {
        "tokens",        "char_units", "whole_piece_first", "merges",   "scaffold",
        "byte_fallback", "unk",        "fuse_unk",          "fallback", NULL};
    PyObject *tokens, *merges, *scaffold, *bf, *unk, *fallback;
    int char_units, wpf, fuse;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!$ppOOOOpO", names, &PyDict_Type, &tokens,
                                     &char_units, &wpf, &merges, &scaffold, &bf, &unk, &fuse,
                                     &fallback))
        return -1;
    if (self->ready || m->fast) {
        PyErr_SetString(PyExc_RuntimeError, "Model is already initialised");
        return -1;
    }
    m->thresholds = &model_state(self)->thresholds;
    if (!self->has_lock) { /* (a failed __init__ may have made it) */
        if (pthread_mutex_init(&self->lock, NULL) != 0) {
            PyErr_NoMemory();
            return -1;
        }
        self->has_lock = 1;
    }
    m->char_units = char_units;
    m->whole_piece_first = wpf;
    m->fuse_unk = fuse;
    Py_INCREF(fallback);
    self->fallback = fallback;
    m->fallback = fallback;
    /* the tokens and their proper prefixes: about 2.1 strings a token in OpenAI's and Llama's
     * vocabularies (the table grows if there are more) */
    if (table_reserve(m, (size_t)PyDict_GET_SIZE(tokens) * 5 / 2 + 256) < 0) return -1;
    /* scaffold ids: excluded from LBPE, split after BPE */
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    int32_t max_id = 0;
    while (PyDict_Next(tokens, &pos, &k, &v)) {
        int32_t id;
        if (as_id(v, &id, "token id") < 0) return -1;
        if (id > max_id) max_id = id;
    }
    if (scaffold != Py_None && PyDict_GET_SIZE(scaffold)) {
        m->sc_size = (Py_ssize_t)max_id + 1;
        m->sc_left = PyMem_RawMalloc((size_t)m->sc_size * sizeof(int32_t));
        m->sc_right = PyMem_RawMalloc((size_t)m->sc_size * sizeof(int32_t));
        if (!m->sc_left || !m->sc_right) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t x = 0; x < m->sc_size; x++) m->sc_left[x] = m->sc_right[x] = -1;
        pos = 0;
        while (PyDict_Next(scaffold, &pos, &k, &v)) {
            int32_t id, a, b;
            if (as_id(k, &id, "scaffold id") < 0) return -1;
            if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) {
                PyErr_SetString(PyExc_TypeError, "scaffold parts must be (id, id)");
                return -1;
            }
            if (as_id(PyTuple_GET_ITEM(v, 0), &a, "scaffold part") < 0 ||
                as_id(PyTuple_GET_ITEM(v, 1), &b, "scaffold part") < 0)
                return -1;
            if (id >= m->sc_size) {
                PyErr_SetString(PyExc_ValueError, "scaffold id is not a token");
                return -1;
            }
            m->sc_left[id] = a;
            m->sc_right[id] = b;
        }
    }
    m->max_prio = max_id; /* rank vocabularies: the priority is the merged token's id */
    if (add_tokens(m, tokens) < 0) return -1;
    if (build_long_tokens(m) < 0 || build_short_ids(m) < 0 || build_filter(m) < 0 ||
        build_mid(m) < 0)
        return -1;
    if (merges != Py_None) {
        m->max_prio = 0;
        Py_ssize_t count = PyDict_GET_SIZE(merges);
        size_t psize = 1024;
        while (psize < (size_t)count * 2 + 2) psize *= 2;
        m->pairs = PyMem_RawMalloc(psize * sizeof(PairSlot));
        if (!m->pairs) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t x = 0; x < psize; x++) m->pairs[x].key = UINT64_MAX;
        m->pair_mask = psize - 1;
        pos = 0;
        while (PyDict_Next(merges, &pos, &k, &v)) {
            if (!PyTuple_Check(k) || PyTuple_GET_SIZE(k) != 2) {
                PyErr_SetString(PyExc_TypeError, "merge keys must be (bytes, bytes)");
                return -1;
            }
            Entry *a = lookup_bytes(self, PyTuple_GET_ITEM(k, 0));
            if (!a) return -1;
            Entry *b = lookup_bytes(self, PyTuple_GET_ITEM(k, 1));
            if (!b) return -1;
            /* the merged token: look the concatenation up */
            size_t la = a->len, lb = b->len;
            char *joined = PyMem_RawMalloc(la + lb);
            if (!joined) {
                PyErr_NoMemory();
                return -1;
            }
            memcpy(joined, m->arena + a->off, la);
            memcpy(joined + la, m->arena + b->off, lb);
            const Fast *c = fast_at(m, joined, la + lb,
                                    fnv((const unsigned char *)joined, la + lb, FNV_OFFSET));
            PyMem_RawFree(joined);
            if (!c || c->v.id < 0) {
                PyErr_Format(PyExc_ValueError, "merge %R does not make a token", k);
                return -1;
            }
            long prio = PyLong_AsLong(v);
            if (prio == -1 && PyErr_Occurred()) return -1;
            if (prio < INT32_MIN || prio > INT32_MAX) {
                PyErr_SetString(PyExc_ValueError, "merge priority out of range");
                return -1;
            }
            pair_put(m, a->v.id, b->v.id, (int32_t)prio, c->v.id);
            /* a negative priority has no bucket: such lists keep the heap */
            if (prio < 0) m->max_prio = INT32_MAX;
            else if (prio > m->max_prio && m->max_prio != INT32_MAX) m->max_prio = (int32_t)prio;
        }
    }
    if (bf != Py_None) {
        if (PyDict_GET_SIZE(bf) != 256) {
            PyErr_SetString(PyExc_ValueError, "byte fallback needs 256 ids");
            return -1;
        }
        for (int x = 0; x < 256; x++) {
            PyObject *key = PyLong_FromLong(x);
            if (!key) return -1;
            PyObject *id = PyDict_GetItemWithError(bf, key);
            Py_DECREF(key);
            if (!id) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "byte fallback lacks byte %d", x);
                return -1;
            }
            if (as_id(id, &m->byte_fallback[x], "byte fallback id") < 0) return -1;
        }
        m->has_byte_fallback = 1;
    }
    if (unk != Py_None) {
        if (as_id(unk, &m->unk, "unknown-token id") < 0) return -1;
        m->has_unk = 1;
    }
    /* cuts, except where runs of unknown characters fuse into one token across them */
    if (!(m->fuse_unk && m->has_unk && !m->has_byte_fallback)) {
        if (build_witnesses(m) < 0) return -1;
        m->cuts = 1;
    }
    self->ready = 1;
    return 0;
}

/* encode_piece(piece, method) -> tuple[int, ...]: one piece, no cache (for tests and display) */
static PyObject *Model_encode_piece(NativeModel *self, PyObject *args) {
    Model *m = &self->core;
    PyObject *piece;
    int method;
    if (!PyArg_ParseTuple(args, "Ui", &piece, &method)) return NULL;
    if (check_method(method) < 0) return NULL;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(piece, &n);
    if (!s) return NULL;
    if (model_enter(self) < 0) return NULL;
    IdBuf b = {NULL, 0, 0};
    PyObject *r = encode_piece(m, s, n, method, 1, &b) < 0 ? NULL : ids_tuple(&b, 0);
    model_exit(self);
    lbpe_free(b.ids);
    return r;
}

static PyObject *Model_cached(NativeModel *self, PyObject *Py_UNUSED(ignored)) {
    Model *m = &self->core;
    PyObject *counts = PyTuple_New(N_METHODS); /* pieces cached, per method code */
    if (!counts) return NULL;
    for (int k = 0; k < N_METHODS; k++) {
        PyObject *v = PyLong_FromSize_t(m->cache[k].n);
        if (!v) {
            Py_DECREF(counts);
            return NULL;
        }
        PyTuple_SET_ITEM(counts, k, v);
    }
    return counts;
}

static PyObject *Model_sizeof(NativeModel *self, PyObject *Py_UNUSED(ignored)) {
    Model *m = &self->core;
    size_t total = sizeof(NativeModel) + m->arena_cap + m->cap_entries * sizeof(Entry);
    if (m->pairs) total += (m->pair_mask + 1) * sizeof(PairSlot);
    total += (size_t)m->sc_size * 2 * sizeof(int32_t);
    if (m->short_ids) total += (256 + 65536) * sizeof(int32_t);
    if (m->filter) total += (((size_t)1 << (64 - m->filter_shift)) / 8);
    if (m->witness_filter) total += (((size_t)1 << (64 - m->witness_shift)) / 8);
    if (m->part_ends) total += 65536 / 8;
    if (m->witness) total += (m->witness_mask + 1) * sizeof(uint64_t);
    if (m->fast) total += (m->n_fast + 2) * sizeof(Fast);
    if (m->mid)
        total += (m->n_mid + 4) * sizeof(Mid) + (m->n_mid2 + 2) * sizeof(Mid2) +
                 ((size_t)1 << (64 - m->mid_shift)) / 8 + 65536 * sizeof(uint16_t);
    if (m->tail_filter) total += (((size_t)1 << (64 - m->tail_shift)) / 8);
    if (m->long_slots)
        total += (m->long_mask + 1) * (sizeof(uint32_t) + sizeof(uint64_t)) +
                 ((size_t)m->poly_max + 1) * sizeof(uint64_t) +
                 (size_t)m->n_long_lengths * sizeof(int32_t);
    if (self->longs) total += ((size_t)self->n_longs + 1) * sizeof(PyObject *);
    for (int k = 0; k < N_SCRATCH; k++) total += m->scratch_cap[k];
    for (int k = 0; k < N_METHODS; k++)
        total += cache_bytes(&m->cache[k]) + cache_bytes(&m->part_cache[k]);
    return PyLong_FromSize_t(total);
}

static PyMethodDef Model_methods[] = {
    {"encode_pieces", (PyCFunction)(void (*)(void))Model_encode_pieces,
     METH_FASTCALL | METH_KEYWORDS,
     "encode_pieces(pieces, /, *, method, limit, cached_chars, seconds, buffer) -> list[int] | "
     "bytes: encode pre-tokenised pieces"},
    {"encode_piece", (PyCFunction)Model_encode_piece, METH_VARARGS,
     "encode_piece(piece, method) -> tuple[int, ...]"},
    {"encode_batch", (PyCFunction)(void (*)(void))Model_encode_batch, METH_VARARGS | METH_KEYWORDS,
     "encode_batch(texts, preset, /, *, method, limit, cached_chars, threads) -> list[list[int]]: "
     "encode_text of each, on threads"},
    {"encode_text", (PyCFunction)(void (*)(void))Model_encode_text, METH_FASTCALL | METH_KEYWORDS,
     "encode_text(text, preset, /, *, method, limit, cached_chars, seconds, buffer) -> list[int] | "
     "bytes: pre-tokenise with a preset and encode (buffer: native-endian int32 ids)"},
    {"clear_cache", (PyCFunction)Model_clear_cache, METH_NOARGS,
     "empty the piece caches of every method"},
    {"unpack", (PyCFunction)Model_unpack, METH_O,
     "unpack(data) -> list[list[int]]: what pack() wrote"},
    {"cached", (PyCFunction)Model_cached, METH_NOARGS,
     "cached() -> the pieces cached for each method code (BPE, LBPE, ...)"},
    {"__sizeof__", (PyCFunction)Model_sizeof, METH_NOARGS, "memory held by the tables, in bytes"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot model_slots[] = {
    {Py_tp_dealloc, Model_dealloc},
    {Py_tp_doc, "A vocabulary's tables for compiled BPE and LBPE (see lbpe/native.py)."},
    {Py_tp_methods, Model_methods},
    {Py_tp_init, Model_init},
    {Py_tp_new, PyType_GenericNew},
    {0, NULL},
};

static PyType_Spec model_spec = {
    .name = "lbpe._native.Model",
    .basicsize = sizeof(NativeModel),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = model_slots,
};

static PyObject *set_bpe_thresholds(PyObject *mod, PyObject *args) {
    Thresholds *t = &module_state(mod)->thresholds;
    int a, b, c = t->handover_slack;
    if (!PyArg_ParseTuple(args, "ii|i", &a, &b, &c)) return NULL;
    if (a < 1 || a > SHORT_BPE || b < 1 || c < 0) {
        PyErr_Format(PyExc_ValueError, "need 1 <= short <= %d, long >= 1 and handover >= 0",
                     SHORT_BPE);
        return NULL;
    }
    PyObject *old = Py_BuildValue("iii", t->short_bpe, t->long_bpe, t->handover_slack);
    t->short_bpe = a;
    t->long_bpe = b;
    t->handover_slack = c;
    return old;
}

/* parse_ranks(data) -> {token: rank} | None: a whole rank file through rank_line (ranks.c); None
 * when any line is not "<canonical base64> <rank>", a token or a rank appears twice, or a rank
 * lies beyond four times the line count (lbpe/formats/tiktoken.py then reads the file itself). */
static PyObject *parse_ranks(PyObject *mod, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *s = view.buf, *end = s + view.len;
    size_t lines = 1;
    for (const char *q = s; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) lines++;
    size_t bound = lines * 4 + 1024;
    unsigned char *tok = PyMem_RawMalloc((size_t)view.len + 4);
    unsigned char *seen = PyMem_RawCalloc(bound / 8 + 1, 1);
    PyObject *out = PyDict_New();
    if (!tok || !seen || !out) {
        if (out) PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t count = 0;
    while (s < end) {
        size_t len;
        uint64_t rank;
        const char *next = rank_line(s, end, tok, &len, &rank);
        if (!next || rank >= bound || (seen[rank / 8] >> (rank % 8) & 1)) goto unusual;
        seen[rank / 8] |= (unsigned char)(1u << (rank % 8));
        PyObject *key = PyBytes_FromStringAndSize((const char *)tok, (Py_ssize_t)len);
        PyObject *value = key ? PyLong_FromUnsignedLongLong(rank) : NULL;
        int failed = !value || PyDict_SetItem(out, key, value) < 0;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (failed) goto fail;
        if (PyDict_GET_SIZE(out) != ++count) goto unusual; /* a token seen before */
        s = next;
    }
    if (count == 0) goto unusual;
    PyMem_RawFree(tok);
    PyMem_RawFree(seen);
    PyBuffer_Release(&view);
    return out;
unusual:
    Py_CLEAR(out);
    PyMem_RawFree(tok);
    PyMem_RawFree(seen);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(out);
    PyMem_RawFree(tok);
    PyMem_RawFree(seen);
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"set_classes", set_classes, METH_VARARGS,
     "set_classes(letters, numbers, upper, lower, space, marks, punctuation_symbols, cjk): the "
     "presets' classes"},
    {"split", split, METH_VARARGS, "split(text, preset) -> list[str]: a preset's pieces"},
    {"block_path", block_path, METH_VARARGS,
     "block_path(preset) -> bool: whether ASCII is split in blocks for this preset"},
    {"_block_simd", set_block_simd, METH_VARARGS,
     "_block_simd([level]) -> (old, best): the block classifier, 0 (SSE2), 1 (AVX2) or 2 "
     "(AVX-512BW), set for the process (tests)"},
    {"_set_bpe_thresholds", set_bpe_thresholds, METH_VARARGS,
     "_set_bpe_thresholds(short, long[, handover]) -> old: pieces up to short units take the array "
     "scan, up to long the heap, longer the bucketed sweep, which hands over to the heap past "
     "4 n + handover put-back candidates (tests)"},
    {"last_starts", last_starts, METH_VARARGS,
     "last_starts(text, preset, count) -> (pieces, starts of the last count)"},
    {"pack", pack, METH_O, "pack(lists of ids) -> bytes (see Model.unpack)"},
    {"parse_ranks", parse_ranks, METH_O,
     "parse_ranks(data) -> {token: rank}, or None when the rank file is not plainly well formed"},
    {NULL, NULL, 0, NULL},
};

static int module_exec(PyObject *mod) {
    State *st = module_state(mod);
    st->thresholds.short_bpe = SHORT_BPE;
    st->thresholds.long_bpe = LONG_BPE;
    st->thresholds.handover_slack = HANDOVER_SLACK;
    static const char *names[] = OPTION_NAMES;
    for (int k = 0; k < 5; k++)
        if (!(st->option_names[k] = PyUnicode_InternFromString(names[k]))) return -1;
    st->model_type = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &model_spec, NULL);
    if (!st->model_type) return -1;
    return PyModule_AddType(mod, st->model_type);
}

static int module_traverse(PyObject *mod, visitproc visit, void *arg) {
    State *st = module_state(mod);
    Py_VISIT(st->model_type);
    for (int k = 0; k < 5; k++) Py_VISIT(st->option_names[k]);
    return 0;
}

static int module_clear(PyObject *mod) {
    State *st = module_state(mod);
    Py_CLEAR(st->model_type);
    for (int k = 0; k < 5; k++) Py_CLEAR(st->option_names[k]);
    return 0;
}

/* Runs after the last model is gone: each holds its type, which holds the module. */
static void module_free(void *mod) {
    State *st = module_state((PyObject *)mod);
    if (!st) return;
    module_clear((PyObject *)mod);
    while (st->classes) {
        ClassTable *prev = st->classes->prev;
        PyMem_RawFree(st->classes);
        st->classes = prev;
    }
}

/* Py_mod_gil: the GIL stays on for this module under free-threaded builds. encode_batch runs its
 * threads without the GIL, but over their own copies of what they write; what stays shared
 * needs the GIL: pack(), encode_pieces() and encode_batch() read caller's lists through borrowed
 * references, unpack() fills a model's table of shared ints outside the model's lock, and
 * set_classes() and _set_bpe_thresholds() replace state that running calls read without a lock. */
static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#if PY_VERSION_HEX >= 0x030C0000
    /* nothing is shared between interpreters: every Python object belongs to one module state */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    {Py_mod_gil, Py_MOD_GIL_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "lbpe._native",
    .m_doc = "The compiled fast path of lbpe's model stage and preset pre-tokenisers.",
    .m_size = sizeof(State),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModuleDef_Init(&moduledef); }
