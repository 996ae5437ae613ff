"""The characters HF tokenizers' normal forms (Unicode 9.0.0) leave as they are and Python's
may not. Generated; do not edit.

Written by ``scripts/gen_normal_data.py``; read by :mod:`lbpe.unicode`. Inclusive code point
ranges in hexadecimal (``lo-hi``, or one code point): unassigned at Unicode 9.0.0, and at 17.0.0
decomposed, a mark, or part of a decomposition (635 characters).
"""

UNSEEN = """
7fd 897-89f 8ca-8d3 9fe afa-aff b55 c04 c3c cf3 d00 d3b-d3c d81 eba ece 1715 180f 1abf-1add
1ae0-1aeb 1cf7 1df6-1dfa 32ff a7f1-a7f4 a82c a8ff ab69 105c9 105d2 105da 105e4 10781-10785
10787-107b0 107b2-107ba 10d24-10d27 10d69-10d6d 10eab-10eac 10efa-10eff 10f46-10f50 10f82-10f85
11070 11073-11074 110c2 11145-11146 111ce-111cf 11241 1133b 11382-11385 1138b 1138e 11390-11391
113b8-113c0 113c2 113c5 113c7-113ca 113cc-113d0 113d2 113e1-113e2 1145e 1182c-1183a 11930-11935
11937-11938 1193b-1193e 11940 11942-11943 119d1-119d7 119da-119e0 119e4 11a01-11a0a 11a33-11a39
11a3b-11a3e 11a47 11a51-11a5b 11a8a-11a99 11b60-11b67 11d31-11d36 11d3a 11d3c-11d3d 11d3f-11d45
11d47 11d8a-11d8e 11d90-11d91 11d93-11d97 11ef3-11ef6 11f00-11f01 11f03 11f34-11f3a 11f3e-11f42
11f5a 13440 13447-13455 1611e-1612f 16d63 16d67-16d6a 16f4f 16f7f-16f87 16fe4 16ff0-16ff1
1ccd6-1ccf9 1cf00-1cf2d 1cf30-1cf46 1e030-1e06d 1e08f 1e130-1e136 1e2ae 1e2ec-1e2ef 1e4ec-1e4ef
1e5ee-1e5ef 1e6e3 1e6e6 1e6ee-1e6ef 1e6f5 1f16c 1fbf0-1fbf9
"""

HF_NORMAL_VERSION = "9.0.0"
