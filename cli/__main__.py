"""``python -m cli``: the ``mlens`` command line without the console script."""

from cli import main

main()
