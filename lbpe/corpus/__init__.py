"""Corpora beyond one text: reading UTF-8 in chunks (:mod:`~lbpe.corpus.textio`), documents from
files (:mod:`~lbpe.corpus.documents`), statistics over every core (:mod:`~lbpe.corpus.parallel`,
on the process pool of :mod:`~lbpe.corpus.workers`) and token shards for training
(:mod:`~lbpe.corpus.shards`, written in the containers of :mod:`~lbpe.corpus.containers`, locally
or on Ray). Above the tokenizer; below the playground and the CLI."""
