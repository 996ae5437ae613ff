"""Measuring what LBPE changes: corpus statistics for both modes (:mod:`~lbpe.analysis.stats`),
intrinsic metrics of a token stream (:mod:`~lbpe.analysis.metrics`), one text over many
vocabularies (:mod:`~lbpe.analysis.across`) and both encodings worked step by step
(:mod:`~lbpe.analysis.explain`). Above the tokenizer; below the playground and the CLI."""
