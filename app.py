"""Run the lbpe playground (the Gradio app is :mod:`lbpe.playground.app`): ``python app.py [--host H] [--port P]``.

Hugging Face Gradio Spaces run this file; an installed lbpe runs the same app with ``lbpe serve``.
"""

from lbpe.playground.app import demo, main  # noqa: F401 - Spaces look for ``demo``

if __name__ == "__main__":
    main()
