"""Measuring what LBPE changes: corpus statistics for both modes (:mod:`~lbpe.analysis.stats`;
ids counted by :mod:`~lbpe.analysis.counting`, the two segmentations' agreement by
:mod:`~lbpe.analysis.agreement`, both modes compared as JSON by :mod:`~lbpe.analysis.comparison`),
every inference method side by side (:mod:`~lbpe.analysis.methods`), intrinsic metrics of a
token stream (:mod:`~lbpe.analysis.metrics`), one text over many
vocabularies (:mod:`~lbpe.analysis.across`) and both encodings worked step by step
(:mod:`~lbpe.analysis.explain`, over the traces of :mod:`~lbpe.analysis.trace`), or any two
methods each with its own steps (:mod:`~lbpe.analysis.pair_steps`, over the traces of
:mod:`~lbpe.analysis.greedy_trace`, :mod:`~lbpe.analysis.fewest_trace` and
:mod:`~lbpe.analysis.dropout_trace`). Above the tokenizer; below the playground and the CLI."""
