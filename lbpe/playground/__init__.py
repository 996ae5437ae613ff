"""The playground: its examples, the views both interfaces show (:mod:`~lbpe.playground.service`),
the HTML and charts they are drawn with (:mod:`~lbpe.playground.display`), the Gradio app
(:mod:`~lbpe.playground.app`, needs the ``app`` extra) and the offline page on Pyodide
(:mod:`~lbpe.playground.page`). It imports the library; the library never imports it."""
